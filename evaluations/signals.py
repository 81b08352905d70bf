"""Signals the evaluations services send; a higher app connects its receiver in its
AppConfig.ready() (pretix's one signal per plugin point), so evaluations imports none of them."""

from django.dispatch import Signal

# A candidate was added: by hand, from the suggestions, or as a stack once its layers are
# saved. Sent inside the adding service's transaction with `candidate` and `user`; a receiver's
# error undoes the addition.
candidate_added = Signal()
