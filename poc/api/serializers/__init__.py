"""POC API serializers.

Input serializers only parse types and look up referenced rows; every rule (permissions, sealing,
the 0–5 rubric, metrics, evidence limits, versions) is enforced by `poc.services`, so the pages
and the API cannot drift. Output serializers read what `poc.selectors` built: scorecard cells
already say what the requesting user may see, and nothing here reads other people's scores
from the database. Scores, weights and shares are Decimal and travel as strings.

base.py holds what they share (help texts, decimal fields), library.py the test-case library,
plan.py the plan, scorecard.py the scorecard and the score writes, results.py the results. Every
serializer is also named here (`from poc.api import serializers as s`, then `s.<name>`).
"""

from .base import HIDDEN_CELLS_HELP, HIDDEN_HELP, TEXT_HELP, NumberField, decimal
from .library import (
    BandSerializer,
    MetricSerializer,
    ProfileChoiceSerializer,
    ProfileWeightSerializer,
    ScenarioProfileSerializer,
    TestCaseSerializer,
    TestGroupSerializer,
    metric_of,
)
from .plan import (
    CANDIDATE_FIELDS,
    PlanCaseAddSerializer,
    PlanCaseSerializer,
    PlanGroupSerializer,
    PlanInitSerializer,
    PlanSerializer,
    PlanWriteSerializer,
    ProfileApplySerializer,
    WeightWriteSerializer,
)
from .results import (
    AgreementSerializer,
    CandidateOverallSerializer,
    ProfileFitSerializer,
    ProfileLeadersSerializer,
    ResultsSerializer,
    SensitivitySerializer,
    SufficiencySerializer,
    ThinCandidateSerializer,
    TypeRankSerializer,
    TypeResultsSerializer,
    WeightFlipSerializer,
    WinShareSerializer,
)
from .scorecard import (
    CellSerializer,
    ConsensusSerializer,
    ConsensusWriteSerializer,
    EvidenceSerializer,
    EvidenceUploadSerializer,
    MyScoreSerializer,
    OtherScoreSerializer,
    OverallSerializer,
    ScorecardCandidateSerializer,
    ScorecardCaseSerializer,
    ScorecardSerializer,
    ScoresSubmitSerializer,
    ScoresSubmittedSerializer,
    ScoreWriteSerializer,
)

__all__ = [
    "AgreementSerializer",
    "BandSerializer",
    "CANDIDATE_FIELDS",
    "CandidateOverallSerializer",
    "CellSerializer",
    "ConsensusSerializer",
    "ConsensusWriteSerializer",
    "EvidenceSerializer",
    "EvidenceUploadSerializer",
    "HIDDEN_CELLS_HELP",
    "HIDDEN_HELP",
    "MetricSerializer",
    "MyScoreSerializer",
    "NumberField",
    "OtherScoreSerializer",
    "OverallSerializer",
    "PlanCaseAddSerializer",
    "PlanCaseSerializer",
    "PlanGroupSerializer",
    "PlanInitSerializer",
    "PlanSerializer",
    "PlanWriteSerializer",
    "ProfileApplySerializer",
    "ProfileChoiceSerializer",
    "ProfileFitSerializer",
    "ProfileLeadersSerializer",
    "ProfileWeightSerializer",
    "ResultsSerializer",
    "ScenarioProfileSerializer",
    "ScoreWriteSerializer",
    "ScorecardCandidateSerializer",
    "ScorecardCaseSerializer",
    "ScorecardSerializer",
    "ScoresSubmitSerializer",
    "ScoresSubmittedSerializer",
    "SensitivitySerializer",
    "SufficiencySerializer",
    "TEXT_HELP",
    "TestCaseSerializer",
    "TestGroupSerializer",
    "ThinCandidateSerializer",
    "TypeRankSerializer",
    "TypeResultsSerializer",
    "WeightFlipSerializer",
    "WeightWriteSerializer",
    "WinShareSerializer",
    "decimal",
    "metric_of",
]
