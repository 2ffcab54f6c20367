"""Loading and validating domain folders (docs/rules.md, "Domain folder"; ADR 0006)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from feedback_intelligence.domain.loader import (
    DOMAINS_ROOT,
    DomainError,
    available_domains,
    load_domain,
    resolve_domain_dir,
    schema_json,
)
from feedback_intelligence.domain.model import CategoryKeywordRule

from .conftest import DomainFolder


def load(folder: DomainFolder, **kwargs: bool):
    return load_domain(str(folder.path), **kwargs)


def fails(folder: DomainFolder, *fragments: str, **kwargs: bool) -> str:
    with pytest.raises(DomainError) as info:
        load(folder, **kwargs)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


# --------------------------------------------------------------------------- shipped domains


def test_both_shipped_domains_are_available_and_load() -> None:
    assert {"retail", "game"} <= set(available_domains())
    for name in ("retail", "game"):
        domain = load_domain(name)
        assert domain.name == name
        assert "desk" in domain.sources
        assert {"synthesis", "alertNomination", "alertVerify"} <= set(domain.prompts)
        assert domain.directory == DOMAINS_ROOT / name


def test_retail_descriptor() -> None:
    d = load_domain("retail")
    assert d.language == "fi"
    assert d.category_field_label == "osasto"
    assert d.catch_all_category == "muu"
    assert d.demoted_categories == ("rasismi", "asiaton")
    assert d.sources == ("google_review", "email", "web_form", "desk")
    assert len(d.categories) == 30
    assert list(d.categories)[:3] == ["maito_kylma", "hevi", "kuiva_elintarvike"]
    assert list(d.categories)[-3:] == ["rasismi", "asiaton", "muu"]
    assert d.categories["oluet_siiderit"] == "Oluet & siiderit"
    assert d.categories["tyokalut"] == "Työkalut"
    assert set(d.category_hints) == {
        "kuiva_elintarvike", "makeiset", "hevi", "juomat", "pakasteet", "einekset", "oluet_siiderit",
        "koti_taloustavara", "kodinkoneet", "kassa_palvelu", "tilat_siisteys", "rasismi", "asiaton", "muu",
    }  # fmt: skip
    assert d.severities == {"low": "Matala", "medium": "Keskitaso", "high": "Korkea", "critical": "Kriittinen"}
    assert list(d.types) == ["complaint", "praise", "suggestion", "question", "other"]
    assert d.sentiments == {"positive": "Myönteinen", "negative": "Kielteinen", "neutral": "Neutraali"}
    assert d.type_sentiment == {
        "complaint": "negative", "praise": "positive", "suggestion": "neutral", "question": "neutral",
        "other": "neutral",
    }  # fmt: skip
    assert list(d.alert_keywords) == ["injury_safety", "food_safety", "payment", "rasismi", "legal_threat"]
    assert d.vulgarity.demote_to_category == "asiaton"
    assert d.verify_words == ("kyllä", "ei")


def test_game_descriptor() -> None:
    d = load_domain("game")
    assert d.language == "en"
    assert d.category_field_label == "area"
    assert list(d.categories) == [
        "gameplay_balance", "performance_stability", "bugs_crashes", "monetization", "matchmaking", "ui_ux",
        "content_progression", "audio", "community_toxicity", "other",
    ]  # fmt: skip
    assert d.sources == ("steam_review", "support_ticket", "discord", "in_game", "desk")
    assert list(d.severities) == ["low", "medium", "high", "critical"]
    assert list(d.types) == ["complaint", "praise", "suggestion", "question", "other"]
    assert list(d.sentiments) == ["positive", "negative", "neutral"]
    assert set(d.alert_keywords) == {"data_loss", "security_account", "payment_failure", "blocking_bug"}
    assert d.category_keywords[0].category == "bugs_crashes"  # a crash outranks the area it hit
    assert d.vulgarity.empty
    assert d.verify_words == ("yes", "no")


def test_schema_json_is_camel_case_in_declaration_order() -> None:
    body = schema_json(load_domain("retail"))
    assert list(body) == [
        "language", "categoryField", "catchAllCategory", "demotedCategories", "categories", "severities", "types",
        "sources", "categoryLabels", "severityLabels", "typeLabels", "sentiments", "sentimentLabels", "typeSentiment",
        "alertCategories", "digestAlertCategories", "caseRootCauses", "issues", "issueLabels", "catchAllIssue",
    ]  # fmt: skip
    assert body["language"] == "fi"
    assert body["categoryField"] == "osasto"
    assert body["catchAllCategory"] == "muu"
    assert body["demotedCategories"] == ["rasismi", "asiaton"]
    assert body["digestAlertCategories"] == ["payment"]  # no case: the morning digest tells them
    assert body["categories"][:2] == ["maito_kylma", "hevi"]
    assert list(body["categoryLabels"]) == body["categories"]
    assert body["severities"] == ["low", "medium", "high", "critical"]
    assert body["severityLabels"]["critical"] == "Kriittinen"
    assert body["sources"] == ["google_review", "email", "web_form", "desk"]
    assert body["typeSentiment"]["complaint"] == "negative"


def test_schema_json_null_catch_all(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.pop("catchAllCategory"))
    assert schema_json(load(game_copy))["catchAllCategory"] is None


# --------------------------------------------------------------------------- a new domain is a folder


def test_new_domain_is_a_new_folder_loaded_by_path(tmp_path: Path) -> None:
    target = tmp_path / "arcade"
    shutil.copytree(DOMAINS_ROOT / "game", target)
    (target / "domain.json").write_text(
        (target / "domain.json").read_text(encoding="utf-8").replace('"name": "game",', ""), encoding="utf-8"
    )
    by_path = load_domain(str(target))
    assert by_path.name == "arcade"  # name defaults to the folder name
    by_root = load_domain("arcade", tmp_path)
    assert by_root.categories == by_path.categories
    assert available_domains(tmp_path) == ["arcade"]


def test_unknown_domain_names_the_available_ones(tmp_path: Path) -> None:
    with pytest.raises(DomainError, match="available: game, retail"):
        load_domain("garden")
    with pytest.raises(DomainError, match="does not exist"):
        load_domain(str(tmp_path / "nowhere"))
    with pytest.raises(DomainError):
        load_domain("  ")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DomainError, match=r"domain\.json"):
        resolve_domain_dir("empty", tmp_path)


# ------------------------------------------------------------ domain.json (ActiveDomainLoadDescriptor)


def test_unknown_hint_key_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["categoryHints"].update({"bakery": "leivät"}))
    fails(retail_copy, "domain.json", "categoryHints.bakery", "not a declared category")


def test_unknown_catch_all_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d.update(catchAllCategory="other"))
    fails(retail_copy, "domain.json", "catchAllCategory", "'other'")


def test_undeclared_demoted_category_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["demotedCategories"].append("spam"))
    fails(retail_copy, "domain.json", "demotedCategories", "'spam'")


def test_type_sentiment_key_must_be_a_declared_type(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["typeSentiment"].update({"rant": "negative"}))
    fails(retail_copy, "domain.json", "typeSentiment.rant", "not a declared type")


def test_type_sentiment_value_must_be_a_declared_sentiment(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["typeSentiment"].update({"complaint": "angry"}))
    fails(retail_copy, "domain.json", "typeSentiment.complaint", "'angry'")


def test_defaults_for_severities_types_sentiments(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.update(severities={}, types=None))
    d = load(game_copy)
    assert d.severities == {"low": "low", "medium": "medium", "high": "high", "critical": "critical"}
    assert list(d.types) == ["complaint", "praise", "suggestion", "question", "other"]
    assert d.sentiments == {"positive": "positive", "negative": "negative", "neutral": "neutral"}
    assert d.type_sentiment == {
        "complaint": "negative", "praise": "positive", "suggestion": "neutral", "question": "neutral",
        "other": "neutral",
    }  # fmt: skip


def test_default_type_sentiment_is_intersected_with_declared_types(game_copy: DomainFolder) -> None:
    def change(d: dict) -> None:
        d["types"] = {"complaint": "Complaint", "praise": "Praise", "bug_report": "Bug report"}

    game_copy.edit("domain.json", change)
    (game_copy.path / "prior-lexicon.json").unlink()  # its cues name the default types this test drops
    (game_copy.path / "issue-keywords.json").unlink()  # so does its byType
    d = load(game_copy)
    assert d.type_sentiment == {"complaint": "negative", "praise": "positive"}
    assert d.sentiment_for("bug_report") is None


def test_default_type_sentiment_drops_undeclared_sentiments(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.update(sentiments={"negative": "Bad", "mixed": "Mixed"}))
    assert load(game_copy).type_sentiment == {"complaint": "negative"}


def test_explicit_type_sentiment_is_taken_as_is(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.update(typeSentiment={"question": "negative"}))
    assert load(game_copy).type_sentiment == {"question": "negative"}


def test_non_string_label_falls_back_to_key(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d["categories"].update(audio=None, ui_ux=3))
    d = load(game_copy)
    assert d.categories["audio"] == "audio"
    assert d.categories["ui_ux"] == "ui_ux"


def test_name_language_and_label_defaults(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: [d.pop(k) for k in ("name", "language", "categoryFieldLabel")])
    d = load(game_copy)
    assert (d.name, d.language, d.category_field_label) == ("game", "en", "category")


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (lambda d: d.pop("categories"), ("categories", "required")),
        (lambda d: d.update(categories={}), ("categories", "at least one")),
        (lambda d: d.update(categories=["a", "b"]), ("categories", "JSON object")),
        (lambda d: d.pop("sources"), ("sources", "required")),
        (lambda d: d.update(sources=[]), ("sources", "at least one")),
        (lambda d: d.update(sources=["steam_review", ""]), ("sources[1]", "non-blank")),
        (lambda d: d.update(categoryHints=["x"]), ("categoryHints", "JSON object")),
        (lambda d: d.update(demotedCategories="audio"), ("demotedCategories", "JSON array")),
        (lambda d: d.update(categoryHints={"audio": ""}), ("categoryHints.audio", "non-blank")),
        (lambda d: d.update(language=""), ("language", "non-blank")),
        (lambda d: d.update(categoryHint={}), ("categoryHint", "is not a field here", "categoryHints")),
    ],
)
def test_domain_json_shape_errors(game_copy: DomainFolder, change, fragments: tuple[str, ...]) -> None:
    game_copy.edit("domain.json", change)
    fails(game_copy, "domain.json", *fragments)


def test_documentation_keys_are_tolerated(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.update(description="x", _note="y"))
    assert load(game_copy).name == "game"


# --------------------------------------------------------------------------- boot checks


def test_missing_desk_source_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["sources"].remove("desk"))
    fails(retail_copy, "domain.json", "sources", "desk")


@pytest.mark.parametrize("role", ["synthesis", "alertNomination", "alertVerify"])
def test_required_prompt_roles_must_be_declared(retail_copy: DomainFolder, role: str) -> None:
    retail_copy.edit("domain.json", lambda d: d["prompts"].pop(role))
    fails(retail_copy, "domain.json", f"prompts.{role}", "required")


def test_alert_prompts_not_required_when_the_screen_is_off(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: [d["prompts"].pop(r) for r in ("alertNomination", "alertVerify")])
    assert set(load(retail_copy, alert_nomination=False).prompts) == {"synthesis"}
    fails(retail_copy, "prompts.alertNomination")
    retail_copy.edit("domain.json", lambda d: d["prompts"].pop("synthesis"))
    fails(retail_copy, "prompts.synthesis", alert_nomination=False)


def test_missing_prompt_file_fails(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "prompts" / "alert-verify-v0.txt").unlink()
    fails(retail_copy, "domain.json", "prompts.alertVerify", "alert-verify-v0.txt", "does not exist")


def test_prompt_outside_the_module_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d["prompts"].update(synthesis="../../etc/passwd"))
    fails(retail_copy, "prompts.synthesis", "outside")
    retail_copy.edit("domain.json", lambda d: d["prompts"].update(synthesis="/etc/passwd"))
    fails(retail_copy, "prompts.synthesis", "relative")


def test_prompt_must_contain_its_placeholder(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "prompts" / "alert-verify-v0.txt").write_text("Vastaa kyllä tai ei.", encoding="utf-8")
    fails(retail_copy, "prompts.alertVerify", "{{text}}")
    (retail_copy.path / "prompts" / "synthesis-v0.txt").write_text("  \n", encoding="utf-8")
    fails(retail_copy, "prompts.synthesis", "empty")


def test_alert_screen_needs_fi_or_en(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: d.update(language="sv"))
    fails(game_copy, "domain.json", "language", "'sv'")
    assert load(game_copy, alert_nomination=False).language == "sv"


def test_prompts_are_read_with_lf_newlines(game_copy: DomainFolder) -> None:
    path = game_copy.path / "prompts" / "alert-verify-v0.txt"
    path.write_bytes(b'\xef\xbb\xbfLine one\r\nLine two\rFeedback: "{{text}}"\r\nAnswer:\r\n')
    text = load(game_copy).prompts["alertVerify"]
    assert text == 'Line one\nLine two\nFeedback: "{{text}}"\nAnswer:\n'


def test_broken_json_fails_with_position(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "domain.json").write_text('{"categories": {"a": "A",}', encoding="utf-8")
    fails(retail_copy, "domain.json", "not valid JSON", "line 1")


def test_top_level_must_be_an_object(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "alert-keywords.json").write_text("[1, 2]", encoding="utf-8")
    fails(retail_copy, "alert-keywords.json", "JSON object")


def test_duplicate_keys_fail(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "category-keywords.json").write_text(
        '{"categories": {"hevi": {"terms": ["omena"]}, "hevi": {"terms": ["banaani"]}}}', encoding="utf-8"
    )
    fails(retail_copy, "category-keywords.json", "'hevi'", "twice")


# --------------------------------------------------------------------------- alert-keywords.json


def test_alert_keywords_required(game_copy: DomainFolder) -> None:
    (game_copy.path / "alert-keywords.json").unlink()
    fails(game_copy, "alert-keywords.json", "not found")


def test_alert_keywords_drop_blank_and_non_string_patterns(game_copy: DomainFolder) -> None:
    game_copy.write("alert-keywords.json", {"categories": {"data_loss": ["", "  ", 7, None, "lost my save"]}})
    (game_copy.path / "prior-lexicon.json").unlink()  # its severities name the alert categories dropped here
    (game_copy.path / "issue-keywords.json").unlink()  # so does its byAlert
    assert load(game_copy).alert_keywords == {"data_loss": ("lost my save",)}


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ({"description": "no categories"}, ("'categories'", "required")),
        ({"categories": {}}, ("'categories'", "at least one")),
        ({"categories": {"data_loss": "lost"}}, ("categories.data_loss", "JSON array")),
        ({"categories": {"data_loss": ["", None]}}, ("categories.data_loss", "at least one")),
    ],
)
def test_alert_keywords_errors(game_copy: DomainFolder, data: dict, fragments: tuple[str, ...]) -> None:
    game_copy.write("alert-keywords.json", data)
    fails(game_copy, "alert-keywords.json", *fragments)


# ------------------------------------------------------------ category-keywords.json (CategoryKeywordSet)


def test_real_category_lexicon_loads_its_rules_in_file_order() -> None:
    rules = load_domain("retail").category_keywords
    order = [r.category for r in rules]
    assert order[:2] == ["verkkokauppa_toimitus", "varasto_nouto"]  # the order channel first
    assert order[2:9] == ["hevi", "makeiset", "maito_kylma", "liha_kala", "juomat", "pakasteet", "leipa"]
    assert order[-2:] == ["kassa_palvelu", "tilat_siisteys"]  # service and premises last
    assert len(order) == len(set(order)) == 27
    by_category = {r.category: r for r in rules}
    hevi = by_category["hevi"]
    assert len(hevi.terms) >= 55
    assert {"jogurt", "mehu", "suklaa", "jäätelö", "pakaste", "kakku"} <= set(hevi.exclude_if_contains)
    service = by_category["kassa_palvelu"]
    assert set(service.exclude_if_contains) == {"siivo", "likai"}
    assert {"myyjä", "henkilökun", "palvelu"} <= set(service.weak_terms)
    assert not {"myyjä", "henkilökun", "palvelu"} & set(service.terms)
    assert {"henkilökunnalle", "asiakaspalveluun", "myyjälle"} <= set(service.not_evidence)


def test_category_keyword_weak_terms_alone_make_a_rule(retail_copy: DomainFolder) -> None:
    retail_copy.write(
        "category-keywords.json", {"categories": {"kassa_palvelu": {"weakTerms": ["myyjä"], "notEvidence": ["x"]}}}
    )
    (rule,) = load(retail_copy).category_keywords
    assert (rule.terms, rule.weak_terms, rule.not_evidence) == ((), ("myyjä",), ("x",))


def test_missing_category_lexicon_is_empty(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "category-keywords.json").unlink()
    assert load(retail_copy).category_keywords == ()


def test_category_keyword_undeclared_category_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d["categories"].update(bakery={"terms": ["leipä"]}))
    fails(retail_copy, "category-keywords.json", "categories.bakery", "not a declared category")


@pytest.mark.parametrize("rule", [{"terms": []}, {"terms": ["", "  "]}, {"excludeIfContains": ["x"]}])
def test_category_keyword_rule_needs_a_term(retail_copy: DomainFolder, rule: dict) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d["categories"].update(hevi=rule))
    fails(retail_copy, "category-keywords.json", "categories.hevi.terms", "at least one")


def test_category_keyword_rule_must_be_an_object(retail_copy: DomainFolder) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d["categories"].update(hevi=["omena"]))
    fails(retail_copy, "category-keywords.json", "categories.hevi", "JSON object")


def test_category_keyword_blank_entries_dropped_and_exclusions_optional(retail_copy: DomainFolder) -> None:
    retail_copy.write("category-keywords.json", {"categories": {"hevi": {"terms": ["omena", ""]}}})
    assert load(retail_copy).category_keywords == (CategoryKeywordRule("hevi", ("omena",), ()),)


# ------------------------------------------------------------ vulgarity-lexicon.json (VulgarityLexiconSet)


def test_real_vulgarity_lexicon_loads() -> None:
    lexicon = load_domain("retail").vulgarity
    assert lexicon.mild == ("paska", "perse", "hitto", "helvetti", "jumalauta")
    assert lexicon.strong == ("vittu", "kyrpä", "mulkku", "pillu", "runkkari")
    assert (lexicon.demote_to_category, lexicon.demote_ratio, lexicon.demote_min_distinct_stems) == ("asiaton", 0.4, 2)


def test_missing_vulgarity_lexicon_is_empty(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "vulgarity-lexicon.json").unlink()
    lexicon = load(retail_copy).vulgarity
    assert lexicon.empty
    assert lexicon.demote_to_category is None


def test_demote_target_must_be_demoted(retail_copy: DomainFolder) -> None:
    retail_copy.edit("vulgarity-lexicon.json", lambda d: d.update(demoteToCategory="muu"))
    fails(retail_copy, "vulgarity-lexicon.json", "demoteToCategory", "demotedCategories")


def test_demote_target_must_be_declared(retail_copy: DomainFolder) -> None:
    retail_copy.edit("vulgarity-lexicon.json", lambda d: d.update(demoteToCategory="roskaposti"))
    fails(retail_copy, "vulgarity-lexicon.json", "demoteToCategory", "not a declared category")


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("demoteRatio", "0.4", "must be a number"),
        ("demoteRatio", None, "must be a number"),
        ("demoteRatio", True, "must be a number"),
        ("demoteRatio", 0, "(0, 1]"),
        ("demoteRatio", 1.5, "(0, 1]"),
        ("demoteMinDistinctStems", "2", "must be a number"),
        ("demoteMinDistinctStems", 0, ">= 1"),
        ("demoteMinDistinctStems", 1.5, "whole number"),
    ],
)
def test_vulgarity_thresholds(retail_copy: DomainFolder, key: str, value: object, problem: str) -> None:
    retail_copy.edit("vulgarity-lexicon.json", lambda d: d.update({key: value}))
    fails(retail_copy, "vulgarity-lexicon.json", key, problem)


def test_vulgarity_thresholds_default_when_absent(retail_copy: DomainFolder) -> None:
    retail_copy.edit("vulgarity-lexicon.json", lambda d: [d.pop("demoteRatio"), d.pop("demoteMinDistinctStems")])
    lexicon = load(retail_copy).vulgarity
    assert (lexicon.demote_ratio, lexicon.demote_min_distinct_stems) == (0.4, 2)


@pytest.mark.parametrize(
    ("tiers", "fragments"),
    [
        ({"mild": [], "strong": [""]}, ("tiers", "at least one stem")),
        ({"medium": ["paska"]}, ("tiers.medium", "is not a field here", "mild, strong")),
        ({"mild": "paska"}, ("tiers.mild", "JSON array")),
    ],
)
def test_vulgarity_tiers(retail_copy: DomainFolder, tiers: dict, fragments: tuple[str, ...]) -> None:
    retail_copy.edit("vulgarity-lexicon.json", lambda d: d.update(tiers=tiers))
    fails(retail_copy, "vulgarity-lexicon.json", *fragments)


# ------------------------------------------------- prior-lexicon.json, priorFields, alert exceptions


def test_real_prior_lexicons_load() -> None:
    retail = load_domain("retail")
    assert retail.detection_languages == ("fi", "sv", "en")
    assert list(retail.prior.type_cues) == ["complaint", "suggestion", "question", "praise"]
    assert "?" in retail.prior.type_cues["question"] and "toivoisin" in retail.prior.type_cues["suggestion"]
    assert retail.prior.default_type == "complaint"
    assert retail.prior.severity_by_alert["injury_safety"] == "critical"
    # measured on the eval set: see docs/benchmarks.md
    assert retail.prior_fields == ("category", "severity", "type", "sentiment", "language")
    game = load_domain("game")
    assert game.detection_languages[0] == "en" and game.prior.type_cues["praise"]
    assert game.prior_fields == retail.prior_fields  # measured on its own set too (docs/benchmarks.md)


def test_missing_prior_lexicon_is_empty(retail_copy: DomainFolder) -> None:
    (retail_copy.path / "prior-lexicon.json").unlink()
    d = load(retail_copy)
    assert d.prior.type_cues == {} and d.detection_languages == ("fi",)


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (lambda d: d.update(typeCues={"rant": ["x"]}), ("typeCues.rant", "not a declared type")),
        (lambda d: d.update(defaultType="rant"), ("defaultType", "not a declared type")),
        (lambda d: d.update(severityByAlert={"fire": "high"}), ("severityByAlert.fire", "not an alert category")),
        (lambda d: d.update(severityByAlert={"payment": "huge"}), ("severityByAlert.payment", "not a declared")),
        (lambda d: d.update(severityByType={"praise": "huge"}), ("severityByType.praise", "not a declared severity")),
        (lambda d: d.update(languages=["fin"]), ("languages", "two-letter")),
        (lambda d: d.update(languages="fi"), ("languages", "JSON array")),
        (lambda d: d.update(typo=1), ("typo", "is not a field here", "typeCues")),
    ],
)
def test_prior_lexicon_errors(retail_copy: DomainFolder, change, fragments: tuple[str, ...]) -> None:
    retail_copy.edit("prior-lexicon.json", change)
    fails(retail_copy, "prior-lexicon.json", *fragments)


def test_prior_fields(retail_copy: DomainFolder) -> None:
    retail_copy.edit("domain.json", lambda d: d.update(priorFields=["severity", "sentiment"]))
    assert load(retail_copy).prior_fields == ("severity", "sentiment")
    retail_copy.edit("domain.json", lambda d: d.update(priorFields=["mood"]))
    fails(retail_copy, "domain.json", "priorFields", "'mood' is not a structure field")


def test_alert_exceptions(game_copy: DomainFolder) -> None:
    game_copy.edit("alert-keywords.json", lambda d: d.update(exceptions={"data_loss": ["rolled back the price"]}))
    assert load(game_copy).alert_exceptions == {"data_loss": ("rolled back the price",)}
    game_copy.edit("alert-keywords.json", lambda d: d.update(exceptions={"fire": ["x"]}))
    fails(game_copy, "alert-keywords.json", "exceptions.fire", "not an alert category")


# ------------------------------------------------------------ incidentPlaces and co-occurrence alert patterns


def test_real_incident_places_load() -> None:
    places = load_domain("retail").incident_places
    assert "kaatui" in places.incident_words
    assert "edessä" in places.postpositions and "osasto" in places.place_stems
    assert load_domain("game").incident_places.incident_words == ()  # optional: the game domain has none


def test_incident_places_need_incident_words(retail_copy: DomainFolder) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d.update(incidentPlaces={"postpositions": ["edessä"]}))
    fails(retail_copy, "category-keywords.json", "incidentPlaces.incidentWords", "at least one")


def test_incident_places_unknown_field_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d["incidentPlaces"].update(prepositions=["near"]))
    fails(retail_copy, "category-keywords.json", "incidentPlaces.prepositions", "not a field")


def test_category_keywords_unknown_top_level_key_fails(retail_copy: DomainFolder) -> None:
    retail_copy.edit("category-keywords.json", lambda d: d.update(rules={}))
    fails(retail_copy, "category-keywords.json", "rules", "is not a field here", "categories, incidentPlaces")


@pytest.mark.parametrize("pattern", ["kuum & ", "kuum||läikky", "& läikky", "kuum | & x"])
def test_co_occurrence_alert_pattern_with_an_empty_part_fails(retail_copy: DomainFolder, pattern: str) -> None:
    retail_copy.edit("alert-keywords.json", lambda d: d["categories"]["payment"].append(pattern))
    fails(retail_copy, "alert-keywords.json", "categories.payment", "empty part")


# ------------------------------------------------------------ issues (domain.json) and issue-keywords.json


def test_issues_load_with_their_labels_and_rules_in_file_order() -> None:
    domain = load_domain("retail")
    assert list(domain.issues)[:3] == ["price", "availability", "freshness_quality"]
    assert domain.issue_labels()["availability"] == "Saatavuus"
    assert domain.catch_all_issue == "other"
    assert domain.issue_rules.by_alert["food_safety"] == "safety"
    assert [r.category for r in domain.issue_rules.keywords][:2] == ["safety", "price"]


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ({"issues": {"nope": {"terms": ["x"]}}}, ("issues.nope", "not a declared issue")),
        ({"issues": {}, "byAlert": {"nope": "bug"}}, ("byAlert.nope", "not an alert category")),
        ({"issues": {}, "byType": {"praise": "nope"}}, ("byType.praise", "'nope' is not a declared issue")),
        ({"issues": {}, "byCategory": {"nope": "bug"}}, ("byCategory.nope", "not a declared category")),
    ],
)
def test_issue_keywords_name_only_what_is_declared(
    game_copy: DomainFolder, data: dict, fragments: tuple[str, ...]
) -> None:
    game_copy.write("issue-keywords.json", data)
    fails(game_copy, "issue-keywords.json", *fragments)


def test_issue_keywords_need_the_issue_list(game_copy: DomainFolder) -> None:
    game_copy.edit("domain.json", lambda d: (d.pop("issues"), d.pop("catchAllIssue")))
    fails(game_copy, "issue-keywords.json", "issues")
    (game_copy.path / "issue-keywords.json").unlink()
    assert load(game_copy).issues == {}
