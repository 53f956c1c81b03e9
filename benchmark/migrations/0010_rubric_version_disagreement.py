from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("benchmark", "0009_judge_repeats"),
    ]

    operations = [
        migrations.AddField(
            model_name="rubricitemversion",
            name="disagreement",
            field=models.JSONField(
                blank=True, null=True, verbose_name="prompted by a disagreement"
            ),
        ),
    ]
