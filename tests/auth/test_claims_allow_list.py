"""Single sign-on claims → grants by allow-lists: the role map, this deployment's stores, the chain's value.
(The same through a real provider's ID tokens: tests/api/test_oidc_allow_list.py.)"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from limits.aio.storage import MemoryStorage

from feedback_intelligence.auth.people import People
from feedback_intelligence.auth.principal import Grant
from feedback_intelligence.config import ConfigurationError
from tests.support.people import people_settings

ENTRA_MAP = {"FI.Clerk": "clerk", "FI.Manager": "manager"}


def people(tmp_path: Path, **overrides: Any) -> People:
    settings = people_settings(
        tmp_path,
        "oidc",
        oidc_issuer="https://login.example.test/tenant/v2.0",
        oidc_client_id="fi",
        oidc_client_secret="secret",
        **overrides,
    )
    return People(settings.auth, settings.chain.stores, MemoryStorage())


def test_once_the_map_is_set_a_raw_operator_role_grants_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    p = people(tmp_path, oidc_role_map=json.dumps(ENTRA_MAP))
    with caplog.at_level(logging.DEBUG, logger="feedback_intelligence.auth.people"):
        assert p.grants_from_claims(["operator"], ["s1"]) == ()
        assert p.grants_from_claims(["manager", "clerk"], ["s1"]) == ()  # our own names too: only the map's keys
    assert "not in FI_OIDC_ROLE_MAP" in caplog.text and "'operator'" in caplog.text
    assert p.grants_from_claims(["FI.Clerk", "operator"], ["s1"]) == (Grant("clerk", "s1"),)
    assert p.grants_from_claims("FI.Manager", "s1 s2") == (Grant("manager", "s1"), Grant("manager", "s2"))


def test_without_a_map_our_own_names_map_to_themselves(tmp_path: Path) -> None:
    p = people(tmp_path)
    assert p.grants_from_claims(["clerk"], ["s1"]) == (Grant("clerk", "s1"),)
    assert p.grants_from_claims(["FI.Manager"], ["s1"]) == ()


def test_a_star_store_grants_the_chain_only_with_the_chain_value(tmp_path: Path) -> None:
    unset = people(tmp_path / "unset", oidc_role_map=json.dumps(ENTRA_MAP))
    assert unset.grants_from_claims(["FI.Manager"], ["*"]) == ()
    assert unset.grants_from_claims(["FI.Manager"], ["*", "s1"]) == (Grant("manager", "s1"),)
    star = people(tmp_path / "star", oidc_role_map=json.dumps(ENTRA_MAP), oidc_chain_value="*")
    assert star.grants_from_claims(["FI.Manager"], ["*"]) == (Grant("manager", "*"),)
    named = people(tmp_path / "named", oidc_role_map=json.dumps(ENTRA_MAP), oidc_chain_value="ALL-STORES")
    assert named.grants_from_claims(["FI.Manager"], ["ALL-STORES"]) == (Grant("manager", "*"),)
    assert named.grants_from_claims(["FI.Manager"], ["*"]) == ()  # only the named value


def test_a_store_outside_fi_stores_grants_nothing(tmp_path: Path) -> None:
    stores = json.dumps([{"id": "s1", "name": "Keskusta"}])
    p = people(tmp_path, oidc_role_map=json.dumps(ENTRA_MAP), stores=stores)
    assert p.grants_from_claims(["FI.Clerk"], ["s1", "s9"]) == (Grant("clerk", "s1"),)
    assert p.grants_from_claims(["FI.Clerk"], ["s9"]) == ()
    patterned = people(tmp_path / "pattern", oidc_role_map=json.dumps(ENTRA_MAP))
    assert patterned.grants_from_claims(["FI.Clerk"], ["no such store!"]) == ()


def test_the_settings_say_what_they_mean(tmp_path: Path) -> None:
    defaults = people(tmp_path).settings
    assert (defaults.oidc_name_claim, defaults.oidc_chain_value) == ("name", None)
    assert people(tmp_path, oidc_chain_value="  ").settings.oidc_chain_value is None  # blank is unset
    assert people(tmp_path, oidc_chain_value=" * ").settings.oidc_chain_value == "*"
    with pytest.raises(ConfigurationError, match="FI_OIDC_NAME_CLAIM"):
        people(tmp_path, oidc_name_claim="")
