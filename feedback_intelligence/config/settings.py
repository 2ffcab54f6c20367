"""Settings: the groups composed, the rules across them, and :func:`load_settings`, the one way in.

Every knob is an ``FI_*`` environment variable (a ``.env`` file may supply it), declared once, by the
group that owns it (ADR 0048). A group's defaults that depend on another group (the worker's tasks on
the gate's slots, the report's prose on the model) are resolved here, while composing, so code reads
every group as it is: ``settings.worker``, ``settings.gate``, ``settings.report``.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_settings import SettingsError

from feedback_intelligence.config.auth import AuthSettings
from feedback_intelligence.config.backends import BackendSettings
from feedback_intelligence.config.chain import ChainSettings
from feedback_intelligence.config.domain import DomainSettings
from feedback_intelligence.config.edge import EdgeSettings
from feedback_intelligence.config.environment import read_variables
from feedback_intelligence.config.errors import PREFIX, ConfigurationError, lines_of
from feedback_intelligence.config.fields import ENV_PREFIX, Composition, Group
from feedback_intelligence.config.gate import GateSettings
from feedback_intelligence.config.notify import NotifySettings
from feedback_intelligence.config.report import ReportSettings
from feedback_intelligence.config.server import ServerSettings
from feedback_intelligence.config.storage import StorageSettings
from feedback_intelligence.config.worker import WorkerSettings


class Settings(BaseModel):
    """Every group of the service's configuration. Built by :func:`load_settings`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    server: ServerSettings
    backends: BackendSettings
    gate: GateSettings
    edge: EdgeSettings
    auth: AuthSettings
    storage: StorageSettings
    domain: DomainSettings
    report: ReportSettings
    chain: ChainSettings
    worker: WorkerSettings
    notify: NotifySettings

    @model_validator(mode="after")
    def _across_groups(self) -> Self:
        # Each message starts with the variable to change, as the per-field messages do. The sizes nest:
        # what the model reads ≤ what is stored ≤ a request's body ≤ a batch's body.
        text, edge = self.domain, self.edge
        if edge.max_body_bytes < text.input_max_chars:
            raise ValueError(f"FI_MAX_BODY_BYTES: must be at least FI_INPUT_MAX_CHARS ({text.input_max_chars})")
        if text.text_store_max_chars < text.input_max_chars:
            raise ValueError(
                f"FI_TEXT_STORE_MAX_CHARS: must be at least FI_INPUT_MAX_CHARS ({text.input_max_chars}): "
                "a text the model may read can always be stored"
            )
        if edge.max_body_bytes < text.text_store_max_chars:
            raise ValueError(
                f"FI_MAX_BODY_BYTES: must be at least FI_TEXT_STORE_MAX_CHARS ({text.text_store_max_chars})"
            )
        if self.chain.batch_max_body_bytes < edge.max_body_bytes:
            raise ValueError(f"FI_BATCH_MAX_BODY_BYTES: must be at least FI_MAX_BODY_BYTES ({edge.max_body_bytes})")
        if self.auth.mode == "proxy" and not edge.trusted_proxies:
            raise ValueError("FI_AUTH: proxy needs FI_TRUSTED_PROXIES (the identity header is believed from them only)")
        return self


#: The groups in the order they are read: the server and the backends first, whose values other groups'
#: defaults read (:class:`Composition`).
GROUPS: dict[str, type[Group]] = {name: info.annotation for name, info in Settings.model_fields.items()}  # type: ignore[misc]


def variables() -> dict[str, tuple[str, str]]:
    """Every ``FI_`` variable → (its group, its field)."""
    return {var: (group, field) for group, cls in GROUPS.items() for field, var in cls.variables().items()}


def load_settings(**overrides: Any) -> Settings:
    """The settings from the environment (and a ``.env`` file), each of ``overrides`` standing for its
    variable (``llm_slots=3`` for ``FI_LLM_SLOTS=3``). Raises ConfigurationError, one line per fault."""
    known = variables()
    try:
        values: dict[str, Any] = read_variables(known)
    except SettingsError as exc:  # a value pydantic-settings could not even decode (e.g. a .env it cannot read)
        raise ConfigurationError(f"{PREFIX}{exc}") from exc
    for name, value in overrides.items():
        variable = ENV_PREFIX + name.upper()
        if variable not in known:
            raise TypeError(f"load_settings: no setting {variable}")
        values[variable] = value
    return compose(values)


def compose(values: dict[str, Any]) -> Settings:
    """Each group from its own variables of ``values``, then the rules across groups."""
    by_group: dict[str, dict[str, Any]] = {name: {} for name in GROUPS}
    for variable, (owner, _field) in variables().items():
        if variable in values:
            by_group[owner][variable] = values[variable]
    faults: list[str] = []
    groups: dict[str, Group] = {}
    context = {"composition": Composition()}
    for name, group in GROUPS.items():
        try:
            groups[name] = group.model_validate(by_group[name], context=context)
        except ValidationError as exc:
            faults.extend(lines_of(exc, by_group[name]))
        if name == "backends" and name in groups:
            context = {"composition": _composition(groups)}
    if faults:
        raise ConfigurationError("\n".join(faults))
    try:
        return Settings.model_validate(groups)
    except ValidationError as exc:
        raise ConfigurationError("\n".join(lines_of(exc))) from exc


def _composition(groups: dict[str, Group]) -> Composition:
    server, backends = groups.get("server"), groups["backends"]
    assert isinstance(backends, BackendSettings)
    return Composition(
        total_slots=backends.total_slots,
        packaged_model=backends.packaged_model,
        listen_host=server.host if isinstance(server, ServerSettings) else Composition().listen_host,
    )
