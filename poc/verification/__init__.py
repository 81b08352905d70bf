"""POC results fed back into the facts: which catalog capabilities this evaluation's POC
verified or contradicted for each candidate.

findings.py holds the rule and the reads (named here too, as `poc.verification.<name>`),
review.py the administrators' review list across evaluations, and api.py the API. The test-bed
page (poc/testbeds/views.py) and the shortlist show the findings.
"""

from .findings import (
    CASE_CAPABILITIES,
    CONTRADICTED,
    MEETS,
    VERIFIED,
    CandidateFindings,
    CapabilityFinding,
    Finding,
    Verification,
    derive,
    outcome,
    poc_verification,
    shortlist_facts,
    verifying_cases,
)

__all__ = [
    "CASE_CAPABILITIES",
    "CONTRADICTED",
    "MEETS",
    "VERIFIED",
    "CandidateFindings",
    "CapabilityFinding",
    "Finding",
    "Verification",
    "derive",
    "outcome",
    "poc_verification",
    "shortlist_facts",
    "verifying_cases",
]
