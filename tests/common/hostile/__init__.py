"""A corpus of hostile values against every page form and every API write, found by walking the
URLconf, the pages' HTML and the OpenAPI schema instead of a list kept by hand.

For each target, each field and each value of CORPUS, one request replaces that field's value in
an otherwise valid submission (the page's own values; a body built from the schema and the
resource's GET). Every answer must be one of:

- a refusal a user can act on: pages answer 400 (or another 4xx) with the message in the page
  or in the htmx fragment, or redirect back with an error message (the forms posted without
  htmx); the API answers 4xx JSON, a 400 naming the field it refused;
- an acceptance (2xx, or a page's redirect without an error message), only where MAY_ACCEPT
  says the value is a legitimate value of that kind of field;

never a 5xx, and a refused request changes nothing (`Fingerprint`). Each request runs in a
savepoint that is rolled back after it is judged, so every request meets the same saved state
and the version it sends is always the current one.
"""
