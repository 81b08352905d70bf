"""Writes to POC plans, scores, evidence and consensus. Pages and the API call these.

seed.py loads the library and profiles, plan.py writes the plan, scores.py the scores and the
consensus, evidence.py the files behind scores (numbers.py parses the numbers they are given).
Every public name is also named here, as `poc.services.<name>`.
"""

from .evidence import (
    EVIDENCE_TYPES,
    MAGIC,
    MARKUP,
    clean_file_name,
    content_matches,
    evidence_add,
    too_large_message,
    upload_refusal,
)
from .numbers import field_decimal
from .plan import (
    VERIFY_GROUP,
    plan_apply_profile,
    plan_case_add_custom,
    plan_case_add_library,
    plan_case_from_library,
    plan_case_remove,
    plan_case_verify,
    plan_init,
    plan_weight_set,
)
from .scores import consensus_record, measured_to_score, score_save, scores_submit
from .seed import SEED_FILE, poc_load_seed

__all__ = [
    "EVIDENCE_TYPES",
    "MAGIC",
    "MARKUP",
    "SEED_FILE",
    "VERIFY_GROUP",
    "clean_file_name",
    "consensus_record",
    "content_matches",
    "evidence_add",
    "field_decimal",
    "measured_to_score",
    "plan_apply_profile",
    "plan_case_add_custom",
    "plan_case_add_library",
    "plan_case_from_library",
    "plan_case_remove",
    "plan_case_verify",
    "plan_init",
    "plan_weight_set",
    "poc_load_seed",
    "score_save",
    "scores_submit",
    "too_large_message",
    "upload_refusal",
]
