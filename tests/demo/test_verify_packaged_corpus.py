"""`feedctl verify` on the packaged demo corpus, end to end on a real app: load, snapshot, verify.

The fields are the prior's, as on the packaged default model (the domain's ``priorFields``); the
simulated backend writes only themes and prose, which the verifier does not read. With ADR 0029 the
planted safety story (demo-0095, a rack about to collapse) is an alert by the lexicon now.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from feedback_intelligence.devtools.processes import app_server, sim_ollama

pytestmark = pytest.mark.process

FEEDCTL = [sys.executable, "-m", "feedback_intelligence"]


def test_the_packaged_corpus_passes_feedctl_verify() -> None:
    with (
        sim_ollama(parallel=2, service_ms=5) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_PRIOR_FIELDS": "category,severity,type,sentiment,language",
            }
        ) as app,
    ):
        env = {**os.environ, "FEEDCTL_URL": app.url}
        for command in (["load"], ["report", "--snapshot"]):
            done = subprocess.run([*FEEDCTL, *command], env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr
        verified = subprocess.run([*FEEDCTL, "verify"], env=env, capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout
    assert "PASS  safety-no-keyword" in verified.stdout and "3/3 stories" in verified.stdout
