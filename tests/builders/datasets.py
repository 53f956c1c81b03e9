"""Benchmark rows (factory_boy): datasets, cases with rubrics, models, responses, judges, runs."""

import factory

from benchmark import models


class DatasetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Dataset

    name = factory.Sequence(lambda n: f"dataset-{n}")
    version = 1
    content_hash = factory.Sequence(lambda n: f"{n:064x}")


class CaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Case

    dataset = factory.SubFactory(DatasetFactory)
    question_id = factory.Sequence(lambda n: f"q{n:05d}")
    position = factory.Sequence(lambda n: n)
    dialogue = factory.LazyFunction(
        lambda: [
            {"role": "A", "content": "最近工作压力很大，晚上总是睡不着。"},
            {"role": "B", "content": "听起来你最近很辛苦，能多说说吗？"},
            {"role": "A", "content": "我也不知道从哪里说起。"},
        ]
    )
    difficulty = "normal"
    primary_scene = "职场心理"
    secondary_scene = "工作压力"


class RubricItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.RubricItem

    case = factory.SubFactory(CaseFactory)
    position = factory.Sequence(lambda n: n)
    ability = "warmth"
    points = 3
    text = factory.Sequence(lambda n: f"criterion {n}: 使用温暖的语气回应用户")


def case_with_rubric(*, dataset=None, rubric=None, **fields) -> models.Case:
    """A case with a rubric given as [(ability, points), ...]; a catastrophic one by default."""
    case = CaseFactory(**({"dataset": dataset} if dataset else {}), **fields)
    rubric = rubric or [
        ("warmth", 3),
        ("curiosity", 5),
        ("emotional_coping", -5),
        ("catastrophic", None),
    ]
    for position, (ability, points) in enumerate(rubric):
        RubricItemFactory(case=case, position=position, ability=ability, points=points)
    return case


class ModelUnderTestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.ModelUnderTest

    name = factory.Sequence(lambda n: f"model-{n}")


class ResponseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Response

    model = factory.SubFactory(ModelUnderTestFactory)
    case = factory.SubFactory(CaseFactory)
    text = "我能感受到你的疲惫。愿意和我说说最近发生了什么吗？"


class JudgeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Judge

    name = factory.Sequence(lambda n: f"judge-{n}")
    model = "judge-model"


class JudgeRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.JudgeRun

    judge = factory.SubFactory(JudgeFactory)
    model = factory.SubFactory(ModelUnderTestFactory)
    dataset = factory.SubFactory(DatasetFactory)
    status = models.JudgeRun.Status.FINISHED
