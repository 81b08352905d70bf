"""The whole catalog as one file, to carry updates between installations that share no network.

A bundle is a zip holding two files:

- `catalog.yaml`: the catalog in the format of `catalog/seed/catalog.yaml` (sources, solution
  types, scenarios, capability groups and capabilities, solutions with aliases and claims,
  shortlist rules, accelerator families and support), so the seed loader reads it as it is;
- `manifest.json`: the format and its version, when and by whom it was exported, the number of
  rows of each kind, and the SHA-256 of `catalog.yaml`.

The SHA-256 detects a file damaged or changed on the way; it is not a signature (whoever edits
`catalog.yaml` can also edit the manifest), so carry bundles the way you carry any file you trust.

Vocabulary of a diff, per row (matched by slug or key, never by id):

- new: in the bundle, not in this installation; changed: in both, with the fields that differ;
- unchanged: in both, equal; kept: only in this installation. An import never deletes.

Not carried (the seed format has no place for them): whether a solution or rule is active, a
claim's verified-in-a-POC flag, the change history. An import leaves them as they are here.

The parts, in the order a bundle goes through them: `export`, `read` (with `normalise`, which
the comparison shares), `diff` and `apply`; `common` holds the names and limits they share.
`models` is the record of each import (one of the catalog's models: catalog/models.py imports
it), `forms` and `views` the bundle page of catalog administrators.

Import a name from the module that defines it (`from catalog.bundle.export import
bundle_export`): this package imports none of its modules, so that catalog.models can import
`models` from here while the other parts import catalog.models.
"""
