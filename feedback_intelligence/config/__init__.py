"""Configuration as a package of groups (ADR 0048): one module per concern owns its ``FI_`` variables,
their defaults and bounds; :mod:`feedback_intelligence.config.settings` composes them.

``from feedback_intelligence.config import Settings, load_settings`` is the way in; code that needs one
group takes that group (``settings.worker``) and imports its class from here too.
"""

from feedback_intelligence.config.auth import AuthSettings
from feedback_intelligence.config.backends import BackendSettings, BackendSpec
from feedback_intelligence.config.chain import ChainSettings
from feedback_intelligence.config.domain import DomainSettings
from feedback_intelligence.config.edge import EdgeSettings
from feedback_intelligence.config.errors import PREFIX, ConfigurationError
from feedback_intelligence.config.gate import GateSettings
from feedback_intelligence.config.notify import NotifySettings
from feedback_intelligence.config.report import ReportSettings
from feedback_intelligence.config.server import ServerSettings
from feedback_intelligence.config.settings import Settings, load_settings
from feedback_intelligence.config.storage import StorageSettings
from feedback_intelligence.config.worker import WorkerSettings

__all__ = [
    "PREFIX",
    "AuthSettings",
    "BackendSettings",
    "BackendSpec",
    "ChainSettings",
    "ConfigurationError",
    "DomainSettings",
    "EdgeSettings",
    "GateSettings",
    "NotifySettings",
    "ReportSettings",
    "ServerSettings",
    "Settings",
    "StorageSettings",
    "WorkerSettings",
    "load_settings",
]
