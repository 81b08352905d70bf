"""Who moves evaluations between instances. The archive holds every score, draft and evidence
file of every member, which blind scoring keeps from everyone but their author, so only the
owner exports it; importing creates an evaluation, so it is for those who create them."""

import rules

from evaluations.rules import can_create, is_owner

rules.add_perm("portable.export_evaluation", is_owner)
rules.add_perm("portable.import_evaluation", can_create)
