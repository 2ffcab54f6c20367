"""Snapshot persistence (atomic, never raising) and the script-free HTML page."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from pathlib import Path

import jinja2
import pytest

from feedback_intelligence.outputs import snapshot
from feedback_intelligence.outputs.snapshot import (
    HTML_NAME,
    JSON_NAME,
    persist_snapshot,
    read_snapshot_html,
    read_snapshot_json,
    write_snapshot,
)
from feedback_intelligence.outputs.snapshot_html import render_snapshot_html
from feedback_intelligence.report.model import Report
from tests.report.support import ScriptedBackend, full, item, make_domain, service, window

HOSTILE = '<script>alert("x")</script> & "lainaus" <img src=x onerror=alert(1)>'


def hostile_report(language: str = "fi") -> Report:
    items = [
        item("m1", 1.0, text=HOSTILE, theme="<b>teema</b>", alerts=[("injury_safety", "<loukkaantu>")]),
        item("m2", 2.0, needs_review=True),
        item("r1", 3.0, category="rasismi", theme="herjaus", text="moderoitava <i>"),
    ]
    svc, _ = service(items, None, domain=make_domain(language))
    return Report.model_validate(asyncio.run(full(svc, window())))


def test_json_is_indented_and_keeps_non_ascii(tmp_path: Path):
    report = hostile_report()
    assert write_snapshot(tmp_path, report, make_domain())
    text = read_snapshot_json(tmp_path)
    assert json.loads(text) == report.to_json()
    assert '\n  "windowFrom"' in text
    assert "aikavälillä" in text and "\\u" not in text
    assert read_snapshot_html(tmp_path).startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == [HTML_NAME, JSON_NAME]  # no temp left behind


def test_readers_return_none_when_missing_and_writes_never_raise(tmp_path: Path):
    assert read_snapshot_json(tmp_path) is None
    assert read_snapshot_html(tmp_path / "nowhere") is None
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    report = hostile_report()
    assert write_snapshot(blocker, report, make_domain()) is False
    assert write_snapshot(blocker / "sub", report, make_domain()) is False


async def test_persisting_from_the_event_loop_runs_off_it(tmp_path: Path):
    svc, _ = service([item("m1", 1.0)], None)
    report = Report.model_validate(await full(svc, window()))
    assert await persist_snapshot(tmp_path / "snap", report, make_domain()) is True
    assert (await asyncio.to_thread(read_snapshot_json, tmp_path / "snap")) is not None


def test_stale_temps_are_swept_and_young_ones_left(tmp_path: Path):
    stale = tmp_path / f"{JSON_NAME}.deadbeef.tmp"
    young = tmp_path / f"{JSON_NAME}.cafebabe.tmp"
    for path in (stale, young):
        path.write_text("{")
    old = time.time() - 120
    os.utime(stale, (old, old))
    write_snapshot(tmp_path, hostile_report(), make_domain())
    assert not stale.exists()
    assert young.exists()


def test_a_concurrent_reader_never_sees_a_torn_file(tmp_path: Path):
    report = hostile_report()
    small = report.to_json()
    big = dict(small, themes=small["themes"] * 150, totalItems=4242)
    domain = make_domain()
    write_snapshot(tmp_path, report, domain)

    stop = threading.Event()
    seen: list[int] = []
    problems: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            text = read_snapshot_json(tmp_path)
            if text is None:
                problems.append("missing")
                continue
            try:
                seen.append(json.loads(text)["totalItems"])
            except ValueError as exc:
                problems.append(f"torn: {exc}")

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(40):
            assert snapshot._atomic_write(
                tmp_path / JSON_NAME, lambda n=n: snapshot.snapshot_json(big if n % 2 else small)
            )
    finally:
        stop.set()
        thread.join()
    assert problems == []
    assert len(seen) > 10
    assert set(seen) <= {small["totalItems"], 4242}


def test_html_escapes_hostile_text_and_loads_nothing_external():
    report = hostile_report()
    page = render_snapshot_html(report, make_domain())
    assert "<script" not in page.lower()
    assert "<img" not in page and "<b>teema" not in page and "moderoitava <i>" not in page
    # markupsafe spells " as &#34;
    assert (
        "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;lainaus&#34;" in page
    )  # markupsafe spells " as &#34;
    assert "&lt;loukkaantu&gt;" in page  # the keyword origin of the alert
    tags = re.findall(r"<[^>]*>", page)
    assert not [t for t in tags if re.search(r"\b(src|href|action|srcset)=", t) or t.startswith("<link")]
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page


def test_html_sections_in_finnish_and_english():
    fi_page = render_snapshot_html(hostile_report("fi"), make_domain("fi"))
    assert '<html lang="fi">' in fi_page
    assert "Hälytykset (1)" in fi_page
    assert "Aiheet ja suunnat (1)" in fi_page
    assert "<details><summary>Moderoitavaa sisältöä (1)</summary>" in fi_page
    assert "⚠ 1 tarkistettavana" in fi_page
    assert "sanahaku: loukkaantuminen tai turvallisuus: &lt;loukkaantu&gt;" in fi_page  # no word matched: the stem
    assert 'class="pill snt-negative"' in fi_page
    assert 'property="og:title"' in fi_page and 'name="twitter:card"' in fi_page

    en_page = render_snapshot_html(hostile_report("en"), make_domain("en"))
    assert '<html lang="en">' in en_page
    assert "Alerts (1)" in en_page and "Themes and trends (1)" in en_page
    assert "Content to moderate (1)" in en_page


def test_html_names_model_alerts_and_an_empty_window():
    backend = ScriptedBackend(
        verify=lambda _p: "kyllä", nominate=lambda _p: '{"alerts": [{"id": "m1", "reason": "Hylly <kaatui>"}]}'
    )
    svc, _ = service([item("m1", 1.0)], backend)
    page = render_snapshot_html(typed(svc), make_domain())
    assert "kielimalli: Hylly &lt;kaatui&gt;" in page

    empty, _ = service([], None)
    page = render_snapshot_html(typed(empty), make_domain())
    assert "Aikavälillä ei ole hälytyksiä." in page
    assert "Aikavälillä ei ole jäsenneltyä palautetta." in page


def test_html_alerts_show_the_matched_words():
    items = [item("k1", 2.0, text="Asiakas loukkaantui kassalla", alerts=[("injury_safety", "loukkaantu")])]
    svc, _ = service(items, None)
    page = render_snapshot_html(typed(svc), make_domain())
    assert "sanahaku: loukkaantuminen tai turvallisuus: loukkaantui" in page


def test_a_field_the_template_names_but_the_report_lacks_fails_the_render_instead_of_rendering_blank():
    report = hostile_report()
    broken = report.model_copy(update={"alerts": [object()]})  # an alert row without any of its fields
    with pytest.raises(jinja2.UndefinedError):
        render_snapshot_html(broken, make_domain())


def typed(svc) -> Report:
    return Report.model_validate(asyncio.run(full(svc, window())))
