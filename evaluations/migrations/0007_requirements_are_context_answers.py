"""Private deployment and compliance become one fact each: the evaluation's answer to a context
question (models.ContextFact), no longer a column beside it.

Before the columns go, each ticked box becomes a "yes" to its new question. The old combined
question `private_compliance` ("private deployment or compliance?") is retired: where it was
answered yes and a box says which one holds, the box decides; answered yes with neither box, both
new questions are answered yes (a requirement wrongly kept can be cleared; one silently dropped
would not be checked); answered no, both are no. Its answers stay, under the deactivated question.
The catalog rule that tested it now tests private deployment (and the seed adds one for
compliance).
"""

from django.db import migrations

OLD_QUESTION = "private_compliance"
OLD_RULE, NEW_RULE = "private-compliance", "private-deployment"
COLUMNS = {
    "private_deployment_required": "private_deployment",
    "compliance_required": "compliance_regime",
}
# Texts as seeded when this migration was written; `manage.py seed` refreshes them.
QUESTIONS = {
    "private_deployment": (
        "Must the platform run on your own premises or in a closed network (private deployment)?",
        "平台是否必须部署在自有机房或封闭网络中（私有化部署）？",
    ),
    "compliance_regime": (
        "Does a compliance regime apply, such as data residency rules or audits of who did what?",
        "是否需要满足合规要求，例如数据驻留规定，或对操作记录的审计？",
    ),
}


def forwards(apps, schema_editor):
    Evaluation = apps.get_model("evaluations", "Evaluation")
    ContextQuestion = apps.get_model("evaluations", "ContextQuestion")
    ContextAnswer = apps.get_model("evaluations", "ContextAnswer")
    ShortlistRule = apps.get_model("catalog", "ShortlistRule")
    if schema_editor.connection.vendor == "postgresql":
        # The columns are dropped in this same transaction: no deferred checks may be pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")

    old_question = ContextQuestion.objects.filter(key=OLD_QUESTION).first()
    if not ShortlistRule.objects.filter(key=NEW_RULE).exists():
        ShortlistRule.objects.filter(key=OLD_RULE).update(
            key=NEW_RULE, facts=["private_deployment"]
        )
    else:
        ShortlistRule.objects.filter(key=OLD_RULE).update(is_active=False)
    if not Evaluation.objects.exists():
        if old_question is not None:
            old_question.is_active = False
            old_question.save(update_fields=["is_active"])
        return

    order = old_question.order if old_question is not None else 100
    questions = {}
    for i, (key, (en, zh)) in enumerate(QUESTIONS.items()):
        questions[key], _created = ContextQuestion.objects.get_or_create(
            key=key,
            defaults={"order": order + i, "text": en, "text_en": en, "text_zh_hans": zh},
        )
    old_answers = {}
    if old_question is not None:
        old_answers = {
            a.evaluation_id: a for a in ContextAnswer.objects.filter(question=old_question)
        }

    for evaluation in Evaluation.objects.all():
        ticked = {key: getattr(evaluation, column) for column, key in COLUMNS.items()}
        old = old_answers.get(evaluation.pk)
        for key, question in questions.items():
            detail = ""
            if ticked[key]:
                value = "yes"
            elif old is not None and old.value == "yes" and not any(ticked.values()):
                value, detail = "yes", old.detail
            elif old is not None and old.value == "no":
                value, detail = "no", old.detail
            else:
                continue
            answer = ContextAnswer.objects.filter(evaluation=evaluation, question=question).first()
            if answer is None:
                ContextAnswer.objects.create(
                    evaluation=evaluation,
                    question=question,
                    value=value,
                    detail=detail[:300],
                    updated_by=old.updated_by if old is not None else None,
                    version=1,
                )
            elif value == "yes" and answer.value != "yes":
                answer.value = "yes"
                answer.version += 1
                answer.save(update_fields=["value", "version"])

    if old_question is not None:
        old_question.is_active = False
        old_question.save(update_fields=["is_active"])


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0003_url_hidden_characters"),
        ("evaluations", "0006_candidate_stacks"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.RemoveField(model_name="evaluation", name="compliance_required"),
        migrations.RemoveField(model_name="evaluation", name="private_deployment_required"),
        migrations.RemoveField(model_name="historicalevaluation", name="compliance_required"),
        migrations.RemoveField(
            model_name="historicalevaluation", name="private_deployment_required"
        ),
    ]
