"""Importing measured values from a benchmark script's CSV or JSON file as my draft scores.

models.py holds the import kept with its file (registered under the `poc` app through
poc/models.py), files.py reads a file into rows, services.py checks the rows and saves them
through poc.services.score_save (preview or apply), forms.py and views.py make the page under
the POC tab, and api.py the API.

Django imports this package while it loads the models (poc/models.py imports the import
model), before poc.models is complete: it names nothing itself, so importing it never needs
poc.models (services.py does).
"""
