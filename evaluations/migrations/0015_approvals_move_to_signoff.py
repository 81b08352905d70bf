# Approvals move to the signoff app with their rows: evaluations forgets the two models here
# without touching the database; signoff's 0001_initial takes them over and renames their tables.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('evaluations', '0014_stamp_epoch_digest_day'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='HistoricalApproval'),
                migrations.DeleteModel(name='Approval'),
            ],
            database_operations=[],
        ),
    ]
