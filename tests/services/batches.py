"""Batches of import commands over the retail evaluation set and the demo corpus (Finnish, Swedish and
English texts): with a clerk's structure (some corrected), saved for later, with and without a timestamp,
and ids taken twice (next to each other and far apart, so in different parts of a split batch)."""

from __future__ import annotations

from dataclasses import replace

from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.records import Correction, Structure
from feedback_intelligence.services.ingest import IngestCommand

STORES = ("hki-1", "tre-1", "tku-1")


def eval_and_demo_batch(domain: Domain, prefix: str) -> list[IngestCommand]:
    texts = [(item.text, item.gold, item.topics) for item in load_set(domain)]
    texts += [(entry["text"], None, ()) for entry in load_corpus()]
    commands = []
    for n, (text, gold, topics) in enumerate(texts):
        command = IngestCommand(
            source="email",
            text=text,
            timestamp=None if n % 7 == 0 else "2026-11-19T14:53:00+02:00",
            id=f"{prefix}-{n:04d}",
            store=STORES[n % len(STORES)],
            author="op" if n % 5 == 0 else None,
        )
        if gold is not None and n % 2 == 0:
            structure = Structure(
                gold["category"],
                topics[0] if topics else "",
                gold["severity"],
                gold["type"],
                gold["language"],
                gold["sentiment"],
            )
            corrections = (Correction("severity", "low", gold["severity"]),) if n % 6 == 0 else None
            command = replace(command, accepted_structure=structure, corrections=corrections)
        else:
            command = replace(command, structure_later=True)
        commands.append(command)
    # an id twice in a row, and the first item's id again in the batch's second half
    commands.insert(4, replace(commands[3], text=commands[3].text + " (again)"))
    commands.insert(len(commands) - 10, replace(commands[0], text="Toinen teksti samalla tunnisteella."))
    return commands
