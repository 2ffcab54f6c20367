"""FI_NOTIFY_CHANNELS: what people write is parsed, what is wrong stops the boot naming the variable."""

from __future__ import annotations

import base64
import json

import pytest

from feedback_intelligence.config import ConfigurationError, NotifySettings, load_settings
from feedback_intelligence.config.notify_routes import check_against, parse_routes
from feedback_intelligence.workers.notify_worker import backoff_s
from tests.notify.support import SECRET


def test_every_kind_parses_with_its_keys_and_repr_hides_secrets() -> None:
    [hook, mail] = parse_routes(
        json.dumps(
            [
                {
                    "name": "duty",
                    "kind": "webhook",
                    "url": "https://h.example/x/",
                    "secret": SECRET,
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
    assert hook.url == "https://h.example/x" and hook.min_severity == "high" and hook.secret == SECRET
    assert mail.mail_to == ("c@d.fi",) and mail.stores == ("S1",) and mail.starttls
    assert SECRET not in repr(hook) and "pw" not in repr(mail)


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
        ('[{"name": "a", "kind": "webhook", "url": "https://x", "unsigned": "yes"}]', "unsigned must be true or false"),
        ('[{"name": "a", "kind": "teams", "url": "https://x", "unsigned": true}]', "unknown field 'unsigned'"),
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
    options = NotifySettings(retry_base_s=2, retry_max_s=60)
    assert [backoff_s(n, options, rng=lambda: 1.0) for n in (1, 2, 3, 6, 9)] == [2, 4, 8, 60, 60]
    assert backoff_s(3, options, rng=lambda: 0.0) == 4


def test_a_webhook_without_a_secret_stops_the_boot_saying_how_to_sign_or_to_opt_out() -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_settings(notify_channels='[{"name": "duty", "kind": "webhook", "url": "https://h.example/fi"}]')
    message = str(caught.value)
    assert message.startswith("invalid configuration: FI_NOTIFY_CHANNELS: channel 'duty':")
    assert "needs a secret" in message and "whsec_" in message and '"unsigned": true' in message


def test_a_webhook_marked_unsigned_is_accepted_and_sends_no_signature() -> None:
    value = '[{"name": "duty", "kind": "webhook", "url": "https://h.example/fi", "unsigned": true}]'
    [route] = load_settings(notify_channels=value).notify.channels
    assert route.kind == "webhook" and route.secret is None


def test_chat_routes_need_no_secret_but_their_url() -> None:
    value = json.dumps(
        [
            {"name": "chat", "kind": "slack", "url": "https://hooks.slack.example/services/T0/B0/xyz"},
            {"name": "room", "kind": "teams", "url": "https://teams.example/workflows/1?sig=xyz"},
        ]
    )
    assert [r.secret for r in load_settings(notify_channels=value).notify.channels] == [None, None]


@pytest.mark.parametrize(
    ("secret", "message"),
    [
        ("a-plain-secret-of-thirty-chars!", "must be a Standard Webhooks secret 'whsec_…'"),
        ("whsec_not base64!", "must be base64"),
        ("whsec_" + base64.b64encode(b"x" * 23).decode(), "at least 24 bytes"),
    ],
)
def test_a_webhook_secret_not_of_the_standard_form_stops_the_boot_without_echoing_it(secret: str, message: str) -> None:
    value = json.dumps([{"name": "duty", "kind": "webhook", "url": "https://h.example/fi", "secret": secret}])
    with pytest.raises(ConfigurationError) as caught:
        load_settings(notify_channels=value)
    assert message in str(caught.value) and secret not in str(caught.value)


def test_a_secret_and_unsigned_together_are_refused() -> None:
    value = json.dumps(
        [{"name": "duty", "kind": "webhook", "url": "https://h.example/fi", "secret": SECRET, "unsigned": True}]
    )
    with pytest.raises(ConfigurationError, match="drop"):
        load_settings(notify_channels=value)
