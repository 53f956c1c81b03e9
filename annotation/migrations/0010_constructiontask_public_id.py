"""Construction tasks join the one family of expert work (``LeasedWork``): a public id for the
work API (each existing task gets its own), the shared lease statuses, the shared column names.
"""

import uuid

from django.db import migrations, models


def give_each_task_an_id(apps, schema_editor):
    task = apps.get_model("annotation", "ConstructionTask")
    rows = list(task.objects.only("pk"))
    for row in rows:
        row.public_id = uuid.uuid4()
    task.objects.bulk_update(rows, ["public_id"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0009_expert_is_demo")]

    operations = [
        migrations.AddField(
            model_name="constructiontask",
            name="public_id",
            field=models.UUIDField(editable=False, null=True, verbose_name="public id"),
        ),
        migrations.RunPython(give_each_task_an_id, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="constructiontask",
            name="public_id",
            field=models.UUIDField(
                default=uuid.uuid4, editable=False, unique=True, verbose_name="public id"
            ),
        ),
        migrations.AlterField(
            model_name="constructiontask",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True, verbose_name="created at"),
        ),
        migrations.AlterField(
            model_name="constructiontask",
            name="status",
            field=models.CharField(
                choices=[
                    ("leased", "leased"),
                    ("submitted", "submitted"),
                    ("expired", "expired"),
                    ("released", "released"),
                ],
                default="leased",
                max_length=10,
                verbose_name="status",
            ),
        ),
    ]
