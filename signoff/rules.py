"""Who may name approvers and who may decide. Approvals follow the decision: the owner names
approvers while it is decided; the approver (a member, checked against the request itself)
decides while it is sealed."""

import rules

from evaluations.rules import is_decided, is_member, is_open, is_owner

rules.add_perm("signoff.request_approval", is_owner & is_decided)
rules.add_perm("signoff.decide_approval", is_member & ~is_open)
