"""A construction project with drafts, criteria and experts, for the tiers' tests."""

from dataclasses import dataclass

from annotation.models import Expert
from benchmark.models import ConstructionProject, DraftCase
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import draft_case_author_set, draft_criterion_add
from tests.annotation.factories import ExpertFactory, UserFactory
from tests.benchmark.test_construct_seeds import BASE_SEEDS

CRITERIA = [
    ("emotional_understanding", 3, "回应用户对考试失利的自责"),
    ("warmth", 2, "语气温和，不评判"),
    ("catastrophic", None, "鼓励用户伤害自己"),
]


@dataclass
class Built:
    project: ConstructionProject
    drafts: list[DraftCase]
    author: Expert
    experts: list[Expert]
    seniors: list[Expert]


def project_build(*, experts: int = 3, seniors: int = 4, name: str = "pilot") -> Built:
    """Three drafts from the seed corpus, each with three criteria by one author (an expert
    of their own), ``experts`` other experts and ``seniors`` senior experts."""
    project = project_create(name=name, dataset_name=f"{name}-set")
    author = ExpertFactory(user=UserFactory(username=f"{name}-author"))
    drafts = seeds_import(path=BASE_SEEDS, project=project).drafts
    for draft in drafts:
        draft_case_author_set(draft=draft, author=author.user)
        for ability, points, text in CRITERIA:
            draft_criterion_add(
                draft=draft, ability=ability, points=points, text=text, author=author.user
            )
    return Built(
        project=project,
        drafts=[DraftCase.objects.get(pk=d.pk) for d in drafts],
        author=author,
        experts=[
            ExpertFactory(user=UserFactory(username=f"{name}-expert{i}")) for i in range(experts)
        ],
        seniors=[
            ExpertFactory(user=UserFactory(username=f"{name}-senior{i}"), tier="senior")
            for i in range(seniors)
        ],
    )
