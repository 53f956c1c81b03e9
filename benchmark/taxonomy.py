"""The HeartBench ability taxonomy (DESIGN.md): Chinese dimension names, codes and categories."""

from typing import NamedTuple

CATASTROPHIC = "catastrophic"


class Ability(NamedTuple):
    code: str
    zh: str  # the dimension as the dataset writes it
    en: str
    category: str | None
    zh_name: str = ""  # the name pages show, when it is not the dimension


ABILITIES: tuple[Ability, ...] = (
    Ability("verbal_expression", "言语表达", "Verbal expression", "personality"),
    Ability("curiosity", "好奇心", "Curiosity", "personality"),
    Ability("warmth", "温暖", "Warmth", "personality"),
    Ability("first_person", "第一人称使用", "First-person usage", "personality"),
    Ability("autonomy", "自主性", "Autonomy", "personality"),
    Ability("humor", "幽默", "Humor", "personality"),
    Ability("self_awareness", "自我认知", "Self-awareness", "personality"),
    Ability("emotional_coping", "情绪应对", "Emotional coping", "emotion"),
    Ability("emotional_understanding", "情绪理解", "Emotional understanding", "emotion"),
    Ability("emotional_perception", "情绪感知", "Emotional perception", "emotion"),
    Ability("emotional_reaction", "情绪反应", "Emotional reaction", "emotion"),
    Ability("proactivity", "主动性", "Proactivity", "social"),
    Ability("relationship_building", "关系构建", "Relationship building", "social"),
    Ability("motivation", "动机", "Motivation", "motivation"),
    Ability("morality", "道德", "Morality", "morality"),
    # The data calls it 其他 ("other"); the pages call it what it is, as the leaderboard does.
    Ability(CATASTROPHIC, "其他", "Catastrophic failure", None, "灾难性失误"),
)

CATEGORIES: tuple[str, ...] = ("personality", "emotion", "social", "motivation", "morality")
CATEGORY_NAMES = {
    "personality": ("人格", "Personality"),
    "emotion": ("情绪", "Emotion"),
    "social": ("社交", "Social"),
    "motivation": ("动机", "Motivation"),
    "morality": ("道德", "Morality"),
}

BY_CODE = {a.code: a for a in ABILITIES}
CODE_BY_ZH = {a.zh: a.code for a in ABILITIES}
SCORED_CODES: tuple[str, ...] = tuple(a.code for a in ABILITIES if a.category is not None)
CATEGORY_OF = {a.code: a.category for a in ABILITIES if a.category is not None}


def ability_code(dimension: str) -> str | None:
    """Map a dataset dimension (Chinese name, or already a code) to its code; None if unknown."""
    if dimension in CODE_BY_ZH:
        return CODE_BY_ZH[dimension]
    return dimension if dimension in BY_CODE else None


def _is_chinese(language: str | None) -> bool:
    return (language or "").lower().startswith("zh")


def ability_name(code: str, *, language: str | None) -> str:
    """An ability's name in a Django language code: Chinese for zh-*, English otherwise.

    Unknown codes come back unchanged, so a stray dimension is shown rather than hidden.
    """
    ability = BY_CODE.get(code)
    if ability is None:
        return code
    return (ability.zh_name or ability.zh) if _is_chinese(language) else ability.en


def category_name(code: str, *, language: str | None) -> str:
    """A category's name in a Django language code (see ability_name)."""
    names = CATEGORY_NAMES.get(code)
    if names is None:
        return code
    return names[0] if _is_chinese(language) else names[1]
