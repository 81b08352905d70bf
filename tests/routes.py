"""The evaluation pages as the URLconf has them: a test that walks these finds a new route as
soon as it exists, instead of trusting a list kept by hand."""

from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse

from evaluations.models import ContextQuestion, FiveQuestion

# Reads only the evaluation's owner may make (other members get 403): the archive holds every
# member's scores, drafts and evidence; the people search offers the company's accounts.
OWNER_ONLY = {"portable:evaluation_archive", "evaluations:member_search"}


def evaluation_routes(resolver=None, namespace=""):
    """(url name, argument names) of every page route below /evaluations/<pk>/."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            if str(entry.pattern).startswith("api/"):
                continue
            yield from evaluation_routes(entry, inner)
        elif isinstance(entry, URLPattern) and entry.name and "pk" in entry.pattern.converters:
            yield f"{namespace}{entry.name}", sorted(entry.pattern.converters)


def argument_values(evaluation):
    """Every value each route argument can take for this evaluation."""
    cases = list(evaluation.poc_cases.all())
    return {
        "pk": [evaluation.pk],
        "cid": [c.pk for c in evaluation.candidates.all()],
        "case_id": [c.pk for c in cases],
        "evidence_id": [e.pk for c in cases for s in c.scores.all() for e in s.evidence.all()],
        "key": [q.key for q in ContextQuestion.objects.all()[:2]]
        + [q.key for q in FiveQuestion.objects.all()[:2]],
        "run_id": [r.pk for r in evaluation.report_runs.all()],
    }


def walk(evaluation):
    """Every (route, kwargs) pair of the URLconf's evaluation pages for this evaluation."""
    values = argument_values(evaluation)
    for name, args in evaluation_routes():
        combos = [{}]
        for arg in args:
            combos = [{**c, arg: v} for c in combos for v in values[arg][:4]]
        for kwargs in combos:
            try:
                yield name, reverse(name, kwargs=kwargs)
            except NoReverseMatch:  # e.g. a key that route's converter refuses
                continue
