# The judge's gate gains its other conditions (issue 17); gate_threshold stays the agreement
# threshold, so existing studies keep their decision's first condition unchanged.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('validation', '0001_squashed_0007_studyunit_dropped'),
    ]

    operations = [
        migrations.AddField(
            model_name='study',
            name='gate_catastrophic_min_hits',
            field=models.PositiveIntegerField(default=10, help_text='Below this many gold catastrophic hits the condition lacks data.', verbose_name='catastrophic hits needed'),
        ),
        migrations.AddField(
            model_name='study',
            name='gate_catastrophic_recall',
            field=models.FloatField(default=0.8, help_text="Lower 95% bound of the judge's recall on gold catastrophic hits.", verbose_name='catastrophic recall threshold'),
        ),
        migrations.AddField(
            model_name='study',
            name='gate_noninferiority_margin',
            field=models.FloatField(default=0.05, help_text='The judge passes when the lower 95% bound of judge − experts (macro-F1) reaches minus this margin.', verbose_name='non-inferiority margin'),
        ),
        migrations.AddField(
            model_name='study',
            name='gate_score_bias',
            field=models.FloatField(default=5.0, help_text='Judge − gold score of every model within ±this, its whole 95% CI.', verbose_name='score bias limit (points)'),
        ),
        migrations.AddConstraint(
            model_name='study',
            constraint=models.CheckConstraint(condition=models.Q(('gate_noninferiority_margin__gte', 0), ('gate_noninferiority_margin__lte', 1)), name='study_gate_margin_0_1'),
        ),
        migrations.AddConstraint(
            model_name='study',
            constraint=models.CheckConstraint(condition=models.Q(('gate_catastrophic_recall__gte', 0), ('gate_catastrophic_recall__lte', 1)), name='study_gate_catastrophic_recall_0_1'),
        ),
        migrations.AddConstraint(
            model_name='study',
            constraint=models.CheckConstraint(condition=models.Q(('gate_score_bias__gte', 0), ('gate_score_bias__lte', 100)), name='study_gate_score_bias_0_100'),
        ),
    ]
