"""The pool's tally of complete units spread over shards (``PoolTally``): one row per pool
and shard instead of one per pool. The count is recounted from the units both ways, into
shard 0 going forward and into the single row going back."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, Q


def recount(apps, schema_editor):
    """Each pool's complete units, in one tally row (either schema: ``shard`` defaults to 0)."""
    Pool = apps.get_model("annotation", "Pool")
    PoolTally = apps.get_model("annotation", "PoolTally")
    PoolTally.objects.all().delete()
    pools = Pool.objects.annotate(complete=Count("units", filter=Q(units__ratings_complete=True)))
    PoolTally.objects.bulk_create(
        PoolTally(pool_id=pool.pk, units_complete=pool.complete) for pool in pools if pool.complete
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_pool_units_tally"),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, recount),
        migrations.DeleteModel(name="PoolTally"),
        migrations.CreateModel(
            name="PoolTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("shard", models.PositiveSmallIntegerField(default=0, verbose_name="shard")),
                (
                    "units_complete",
                    models.PositiveIntegerField(default=0, verbose_name="units complete"),
                ),
                (
                    "pool",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tallies",
                        to="annotation.pool",
                        verbose_name="pool",
                    ),
                ),
            ],
            options={
                "verbose_name": "pool tally",
                "verbose_name_plural": "pool tallies",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("pool", "shard"), name="pool_tally_shard_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(recount, migrations.RunPython.noop),
    ]
