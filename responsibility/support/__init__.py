"""Support terms: what each candidate's vendor (or community, or own team) commits to after
delivery, term by term with its source, compared side by side (docs/method.md, "Support
terms"). terms.py defines the terms and which value is better; models.py, services.py
(writes), selectors.py (the comparison), forms.py, views.py, api.py, export.py (the xlsx
sheet), report.py, reminders.py and demo/ follow the app's usual split."""
