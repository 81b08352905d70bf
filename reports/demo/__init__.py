"""The demo evaluations `manage.py demo` loads, one per language: the same evaluation, scores
and decision, with everything its users typed in that language.

data.py holds what every language shares, en.yaml and zh-hans.yaml the texts (texts.py reads
them), loader.py writes one demo through the services as the demo users."""
