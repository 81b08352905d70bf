from django.db import migrations, models

# Runs from before sections could be chosen printed all of them.
ALL_SECTIONS = [
    "summary",
    "types",
    "candidates",
    "questions",
    "matrices",
    "poc",
    "costs",
    "reminders",
    "robustness",
    "appendix",
]


def every_section(apps, schema_editor):
    apps.get_model("reports", "ReportRun").objects.update(sections=ALL_SECTIONS)


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="reportrun",
            name="sections",
            field=models.JSONField(
                default=list,
                help_text="The sections printed after the cover.",
                verbose_name="sections",
            ),
        ),
        migrations.RunPython(every_section, migrations.RunPython.noop),
    ]
