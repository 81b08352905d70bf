from django.db import migrations


class Migration(migrations.Migration):
    """knox's table, made where knox's own migrations once ran: its model is replaced by
    ApiToken (KNOX_TOKEN_MODEL), and a table the models do not know about blocks database
    flushes (it refers to the users)."""

    dependencies = [("apitokens", "0001_initial")]

    operations = [
        migrations.RunSQL("DROP TABLE IF EXISTS knox_authtoken", migrations.RunSQL.noop),
    ]
