"""Two interface languages: the product default, the switch, the catalogues' completeness.

Tests run in English by default (tests/conftest.py); these ask for Chinese explicitly.
"""

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.template import Context, Template
from django.test import Client, override_settings
from django.utils import translation

from benchmark import taxonomy
from tests.conftest import require
from tests.frontend.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "config" / "locale" / "zh_Hans" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
# The project's Python packages (pyproject.toml's packages.find) hold every translatable
# string; tests, benchmarks, docs and fixtures are not user interface.
SOURCES = ("config", "benchmark", "annotation", "validation", "frontend")


# --- the product default and the switch -------------------------------------------------


def test_the_product_default_is_chinese_and_english_is_the_other_language():
    from config import settings as product

    assert product.LANGUAGE_CODE == "zh-hans"
    assert [code for code, _ in product.LANGUAGES] == ["zh-hans", "en"]
    assert "django.middleware.locale.LocaleMiddleware" in product.MIDDLEWARE
    # After sessions (it may read them), before CommonMiddleware (which may redirect).
    order = product.MIDDLEWARE
    locale = order.index("django.middleware.locale.LocaleMiddleware")
    assert order.index("django.contrib.sessions.middleware.SessionMiddleware") < locale
    assert locale < order.index("django.middleware.common.CommonMiddleware")


@pytest.mark.django_db
def test_a_visitor_who_asks_for_nothing_gets_chinese(settings):
    settings.LANGUAGE_CODE = "zh-hans"  # the product default, undoing the tests' English
    response = Client().get("/login/")
    assert response["Content-Language"] == "zh-hans"
    assert '<html lang="zh-hans">' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "language"),
    [("en-US,en;q=0.9", "en"), ("zh-CN,zh;q=0.9", "zh-hans"), ("zh-Hans", "zh-hans")],
)
def test_accept_language_chooses_the_language(settings, header, language):
    settings.LANGUAGE_CODE = "zh-hans"
    response = Client().get("/login/", HTTP_ACCEPT_LANGUAGE=header)
    assert response["Content-Language"] == language


@pytest.mark.django_db
def test_the_cookie_wins_over_accept_language(settings):
    settings.LANGUAGE_CODE = "zh-hans"
    client = Client()
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    assert client.get("/login/", HTTP_ACCEPT_LANGUAGE="zh-CN")["Content-Language"] == "en"
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    assert client.get("/login/", HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "zh-hans"


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/login/", "/admin/login/"])
def test_the_switch_names_both_languages_in_their_own_and_posts_back_here(url):
    page = Client().get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="lang-switch"' in page
    assert 'action="/i18n/setlang/"' in page
    assert f'name="next" value="{url}"' in page
    assert ">简体中文</button>" in page and ">English</button>" in page


@pytest.mark.django_db
def test_switching_sets_the_cookie_and_returns_to_the_page(settings):
    settings.LANGUAGE_CODE = "zh-hans"
    client = Client(enforce_csrf_checks=True)
    client.get("/login/")
    token = client.cookies[django_settings.CSRF_COOKIE_NAME].value
    response = client.post(
        "/i18n/setlang/",
        {"language": "en", "next": "/login/?next=/done/", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302 and response["Location"] == "/login/?next=/done/"
    assert client.cookies[django_settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert client.get("/login/")["Content-Language"] == "en"
    client.post(
        "/i18n/setlang/", {"language": "zh-hans", "next": "/", "csrfmiddlewaretoken": token}
    )
    assert client.get("/login/")["Content-Language"] == "zh-hans"


@pytest.mark.django_db
def test_the_switch_refuses_to_send_anyone_to_another_site():
    response = Client().post("/i18n/setlang/", {"language": "en", "next": "https://evil.example/"})
    assert response.status_code == 302 and "evil.example" not in response["Location"]


def test_the_javascript_catalogue_serves_the_chosen_language(client):
    en = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="en")
    zh = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert en.status_code == zh.status_code == 200
    assert "django.gettext" in en.content.decode()
    assert zh["Content-Language"] == "zh-hans"


# --- ability and category names -----------------------------------------------------------


def test_ability_and_category_names_follow_the_language():
    assert taxonomy.ability_name("warmth", language="zh-hans") == "温暖"
    assert taxonomy.ability_name("warmth", language="en") == "Warmth"
    assert taxonomy.category_name("emotion", language="zh-hans") == "情绪"
    assert taxonomy.category_name("emotion", language="en") == "Emotion"
    assert taxonomy.ability_name("not-a-code", language="zh-hans") == "not-a-code"
    for ability in taxonomy.ABILITIES:
        assert taxonomy.ability_name(ability.code, language="zh-hans") == ability.zh
        assert taxonomy.ability_name(ability.code, language="en") == ability.en


def test_template_filters_use_the_active_language():
    template = Template("{% load heartbench_taxonomy %}{{ a|ability_name }}/{{ c|category_name }}")
    context = Context({"a": "relationship_building", "c": "social"})
    with translation.override("zh-hans"):
        assert template.render(context) == "关系构建/社交"
    with translation.override("en"):
        assert template.render(context) == "Relationship building/Social"


# --- the catalogues -------------------------------------------------------------------------


def _extract(tmp_path: Path, monkeypatch) -> Path:
    """Run makemessages on a copy of the sources; return the fresh catalogue folder.

    On a copy, because makemessages writes temporary files next to each template.
    """
    require(bool(shutil.which("xgettext")), "needs GNU gettext (Debian package gettext)")
    tree = tmp_path / "tree"
    for name in SOURCES:
        shutil.copytree(
            ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__", "locale")
        )
    monkeypatch.chdir(tree)
    fresh = tree / "locale"
    with override_settings(LOCALE_PATHS=[fresh]):
        for domain in DOMAINS:
            call_command("makemessages", locale=["zh_Hans"], domain=domain, verbosity=0)
    return fresh / "zh_Hans" / "LC_MESSAGES"


def test_every_marked_string_has_a_chinese_translation(tmp_path, monkeypatch):
    fresh = _extract(tmp_path, monkeypatch)
    problems = []
    for domain in DOMAINS:
        extracted = fresh / f"{domain}.po"
        if not extracted.exists():  # makemessages writes nothing for a domain with no strings
            continue
        committed_path = CATALOGUE / f"{domain}.po"
        committed = read_po(committed_path) if committed_path.exists() else {}
        for key, entry in read_po(extracted).items():
            where = ", ".join(sorted(_locations(extracted, entry.msgid))) or "?"
            found = committed.get(key)
            if found is None:
                problems.append(f"{domain}: not in the catalogue: {entry.msgid!r} ({where})")
            elif not found.translated:
                problems.append(f"{domain}: untranslated or fuzzy: {entry.msgid!r} ({where})")
            elif entry.msgid_plural and not found.msgid_plural:
                problems.append(f"{domain}: plural forms missing: {entry.msgid!r}")
    assert not problems, "run `make messages` and translate:\n" + "\n".join(problems)


def _locations(po: Path, msgid: str) -> set[str]:
    # The `#:` lines of the block that holds msgid, for a failure message that says where.
    from tests.frontend.pofile import blocks, parse_block

    for block in blocks(po.read_text(encoding="utf-8")):
        entry = parse_block(block)
        if entry is not None and entry.msgid == msgid:
            return {p for line in block if line.startswith("#:") for p in line[2:].split()}
    return set()


def _catalog(mo: Path) -> dict:
    with mo.open("rb") as handle:
        return dict(gettext.GNUTranslations(handle)._catalog)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_compiled_catalogue_matches_its_source(domain, tmp_path):
    po = CATALOGUE / f"{domain}.po"
    if domain == "djangojs" and not po.exists():
        pytest.fail("no djangojs catalogue: the workbench script's strings are not extracted")
    require(bool(shutil.which("msgfmt")), "needs GNU gettext (Debian package gettext)")
    compiled = tmp_path / f"{domain}.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(compiled), str(po)], check=True)
    committed = CATALOGUE / f"{domain}.mo"
    assert committed.exists(), f"{committed} is missing: run `make messages`"
    assert _catalog(committed) == _catalog(compiled), f"{committed} is stale: `make messages`"


def test_a_translated_string_reaches_a_page():
    page = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'aria-label="界面语言"' in page
    page = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'aria-label="Interface language"' in page
