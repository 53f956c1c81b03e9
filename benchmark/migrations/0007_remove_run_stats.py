from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('benchmark', '0006_run_stats_to_fields'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='generationrun',
            name='stats',
        ),
        migrations.RemoveField(
            model_name='judgerun',
            name='stats',
        ),
    ]
