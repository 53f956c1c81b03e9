"""The criterion diff on Chinese and mixed text (pure, no database)."""

from benchmark.rubric_diff import (
    DELETE,
    EQUAL,
    INSERT,
    Segment,
    rubric_diff,
    text_diff,
    tokens,
)


def _before(segments):
    return "".join(s.text for s in segments if s.op != INSERT)


def _after(segments):
    return "".join(s.text for s in segments if s.op != DELETE)


def test_chinese_change_is_marked_at_character_level():
    before = "回应中使用温暖的语气，表达对用户的关心。"
    after = "回应中使用温和的语气，表达对用户处境的关心。"
    segments = text_diff(before, after)
    assert segments == (
        Segment(EQUAL, "回应中使用温"),
        Segment(DELETE, "暖"),
        Segment(INSERT, "和"),
        Segment(EQUAL, "的语气，表达对用户"),
        Segment(INSERT, "处境"),
        Segment(EQUAL, "的关心。"),
    )
    assert _before(segments) == before and _after(segments) == after


def test_latin_words_stay_whole_beside_chinese():
    assert tokens("提到CBT 3.5次") == ["提", "到", "CBT", " ", "3.5", "次"]
    segments = text_diff("建议使用CBT技术", "建议使用DBT技术")
    assert Segment(DELETE, "CBT") in segments and Segment(INSERT, "DBT") in segments


def test_inline_and_html_renderings_escape_and_mark():
    diff = rubric_diff(
        before_text="不要说<批评>的话",
        after_text="不要说指责的话",
        before_points=-3,
        after_points=-5,
    )
    assert diff.inline() == "不要说[-<批评>-]{+指责+}的话"
    html = diff.html()
    assert "<del>&lt;批评&gt;</del>" in html and "<ins>指责</ins>" in html
    assert diff.points_changed and diff.text_changed
    data = diff.as_dict()
    assert data["points_before"] == -3 and data["points_after"] == -5
    assert data["inserted"] == "指责" and data["deleted"] == "<批评>"


def test_points_only_change_and_no_change():
    same_text = rubric_diff(before_text="共情", after_text="共情", before_points=3, after_points=2)
    assert same_text.points_changed and not same_text.text_changed
    assert same_text.as_dict()["text_diff"] == ""
    nothing = rubric_diff(
        before_text="共情", after_text="共情", before_points=None, after_points=None
    )
    assert not nothing.changed


def test_frequent_characters_are_not_junked_in_long_text():
    # difflib's autojunk would drop 的 (over 1% of a 200+ token text) from the alignment.
    before = "的".join(f"第{i}条" for i in range(60))
    after = before.replace("第30条", "第三十条")
    segments = text_diff(before, after)
    changed = [s for s in segments if s.op != EQUAL]
    assert "".join(s.text for s in changed if s.op == DELETE) == "30"
    assert "".join(s.text for s in changed if s.op == INSERT) == "三十"
