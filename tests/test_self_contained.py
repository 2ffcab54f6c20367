"""The repository stands on its own: code, tests and docs cite only documents it contains.

Rules and invariants live in docs/rules.md and docs/invariants.md; a comment that sends the reader to a
document outside the repository (a design note, a numbered section of another system's spec, a sibling
folder) cannot be followed by someone who cloned this repository.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ["feedback_intelligence", "tests", "bench", "docs", "deploy", "scripts", ".ci", "README.md", "Makefile"]
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".yml", ".yaml", ".toml", ".conf", ".sh", ".txt", ".json", ""}

# Spelled in pieces so this file does not match itself.
FOREIGN_CITATIONS = [
    re.compile("design" + r"\.md", re.IGNORECASE),
    re.compile("design" + r" invariant", re.IGNORECASE),
    re.compile("reference" + r"-system", re.IGNORECASE),
    re.compile("reference" + r" §", re.IGNORECASE),
    re.compile(r"§\s*" + r"\d"),
    re.compile(r"\.\./" + "shared"),
]
DOC_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md\b")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix in TEXT_SUFFIXES
                and "__pycache__" not in p.parts
                and "node_modules" not in p.parts
            )
    return found


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    return list(enumerate(text.splitlines(), start=1))


def test_nothing_cites_a_document_outside_the_repository() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _files()
        for number, line in _lines(path)
        if any(pattern.search(line) for pattern in FOREIGN_CITATIONS)
    ]
    assert offences == [], "cite docs/invariants.md, docs/rules.md or an ADR instead:\n" + "\n".join(offences)


def test_every_cited_doc_path_exists() -> None:
    missing = [
        f"{path.relative_to(ROOT)}:{number}: {cited}"
        for path in _files()
        for number, line in _lines(path)
        for cited in DOC_PATH.findall(line)
        if not (ROOT / cited).is_file()
    ]
    assert missing == []


def test_every_markdown_link_between_docs_resolves() -> None:
    docs = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    broken = [
        f"{doc.relative_to(ROOT)}: {target}"
        for doc in docs
        for target in MARKDOWN_LINK.findall(doc.read_text(encoding="utf-8"))
        if "://" not in target and not (doc.parent / target).resolve().is_file()
    ]
    assert broken == []


def test_the_invariants_cited_by_number_are_documented() -> None:
    documented = {int(n) for n in re.findall(r"^## (\d+)\. ", (ROOT / "docs/invariants.md").read_text(), re.MULTILINE)}
    cited = {
        int(n)
        for path in _files()
        for _, line in _lines(path)
        for n in re.findall(r"invariants\.md[^)\n]*?invariant (\d+)", line)
    }
    assert cited, "the code cites the invariants by number"
    assert cited <= documented
