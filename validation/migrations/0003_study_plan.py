from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0002_gate_conditions"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="plan",
            field=models.JSONField(blank=True, default=dict, verbose_name="plan"),
        ),
        migrations.AddField(
            model_name="study",
            name="look_every",
            field=models.PositiveIntegerField(
                blank=True, null=True, verbose_name="look every (completed cases)"
            ),
        ),
        migrations.AddConstraint(
            model_name="study",
            constraint=models.CheckConstraint(
                condition=models.Q(("look_every__isnull", True), ("look_every__gte", 1), _connector="OR"),
                name="study_look_every_positive",
            ),
        ),
    ]
