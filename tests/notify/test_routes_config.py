"""FI_NOTIFY_CHANNELS: what people write is parsed, what is wrong stops the boot naming the variable."""

from __future__ import annotations

import json

import pytest

from feedback_intelligence.notify_routes import check_against, parse_routes
from feedback_intelligence.services.notify_worker import NotifyOptions, backoff_s
from feedback_intelligence.settings import ConfigurationError, load_settings


def test_every_kind_parses_with_its_keys_and_repr_hides_secrets() -> None:
    [hook, mail] = parse_routes(
        json.dumps(
            [
                {
                    "name": "duty",
                    "kind": "webhook",
                    "url": "https://h.example/x/",
                    "secret": "k" * 20,
                    "minSeverity": "high",
                },
                {
                    "name": "mail",
                    "kind": "smtp",
                    "url": "smtp://m.example:587",
                    "from": "a@b.fi",
                    "to": "c@d.fi",
                    "password": "pw",
                    "stores": ["S1"],
                },
            ]
        )
    )
    assert hook.url == "https://h.example/x" and hook.min_severity == "high" and hook.secret == "k" * 20
    assert mail.mail_to == ("c@d.fi",) and mail.stores == ("S1",) and mail.starttls
    assert "k" * 20 not in repr(hook) and "pw" not in repr(mail)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('[{"name": "a", "kind": "fax", "url": "http://x"}]', "kind must be one of"),
        ('[{"name": "a", "kind": "webhook", "url": "ftp://x"}]', "absolute http(s) URL"),
        ('[{"name": "a", "kind": "smtp", "url": "smtp://x:25"}]', "from must be an e-mail address"),
        ('[{"name": "a", "kind": "slack", "url": "https://x", "secret": "s"}]', "unknown field 'secret'"),
        (
            '[{"name": "a", "kind": "slack", "url": "https://x"}, {"name": "a", "kind": "teams", "url": "https://y"}]',
            "used twice",
        ),
        ("{not json", "must be a JSON list"),
    ],
)
def test_a_bad_channel_list_stops_the_boot_naming_the_variable(value: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_settings(notify_channels=value)
    assert "FI_NOTIFY_CHANNELS" in str(caught.value) and message in str(caught.value)


def test_routing_keys_are_checked_against_the_domain() -> None:
    routes = parse_routes([{"name": "a", "kind": "teams", "url": "https://x", "categories": ["food_saftey"]}])
    with pytest.raises(ValueError, match="unknown alert category 'food_saftey'"):
        check_against(routes, ["food_safety"], ["low", "high"])


def test_backoff_doubles_up_to_its_cap_with_jitter_between_half_and_all() -> None:
    options = NotifyOptions(retry_base_s=2, retry_max_s=60)
    assert [backoff_s(n, options, rng=lambda: 1.0) for n in (1, 2, 3, 6, 9)] == [2, 4, 8, 60, 60]
    assert backoff_s(3, options, rng=lambda: 0.0) == 4
