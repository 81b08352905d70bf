"""POC API: the test-case library for any signed-in user; inside an evaluation (members only,
others get 404) its one plan for every candidate, the blind scorecard, consensus, evidence,
results and the .xlsx export. library.py, plan.py, cells.py (the scorecard, scores, consensus
and evidence) and results.py (with the export) hold the views, base.py what they share,
serializers/ the serializers, urls.py the routes; the sub-features' own API views are in their
packages (poc/conflicts/api.py, poc/imports/api.py, poc/testbeds/api.py,
poc/verification/api.py).

Views parse input, look rows up within the evaluation (a case of another evaluation's plan is
404) and call the same services the pages use; the services enforce permissions (403), sealing
(409), the rubric and versions. Everything about other people's scores is read through
`selectors.scorecard(evaluation, user)`, so blind scoring holds here as on the pages: a reviewer
or editor sees other reviewers' scores and evidence for a cell only after submitting their own;
the owner and viewers see every submitted score; drafts are shown to their author only.
Concurrency over HTTP works as in the evaluations API: plan cases and groups, my score and the
consensus carry `version` and answer with `ETag: "<n>"` (0 before the first save); a write names
the version it edited as If-Match (stale: 412) or as `version` in the body (stale: 409), and
updating a saved row without either is refused with 428.
"""
