"""The cases' primary scenes, which an expert's specialties may name (beside ability codes)."""

from benchmark.models import Case


def primary_scenes() -> list[str]:
    """Every primary scene a stored case has, sorted; an empty scene is none."""
    scenes = Case.objects.exclude(primary_scene="").values_list("primary_scene", flat=True)
    return sorted(set(scenes.distinct()))
