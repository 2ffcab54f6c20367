"""The structure's JSON schema: the domain's enums, and a grammar llama.cpp can build from it."""

from __future__ import annotations

import json

from feedback_intelligence.structuring.schema import structure_json_schema
from tests.prerequisites import require
from tests.structuring import domains


def test_schema_enumerates_the_domain_and_requires_the_five_fields() -> None:
    domain = domains.retail_like()
    schema = structure_json_schema(domain)
    props = schema["properties"]
    assert props["category"]["enum"] == list(domain.categories)
    assert props["severity"]["enum"] == ["low", "medium", "high", "critical"]
    assert props["type"]["enum"] == list(domain.types)
    assert props["sentiment"]["enum"] == list(domain.sentiments)
    assert props["theme"]["maxLength"] == 60
    assert schema["required"] == ["category", "theme", "severity", "type", "language"]
    assert "sentiment" not in schema["required"]
    assert schema["additionalProperties"] is False
    json.dumps(schema)  # plain JSON, ready for any backend


def test_llama_cpp_builds_a_grammar_from_the_schema() -> None:
    require("llama_cpp")
    import llama_cpp
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = json.dumps(structure_json_schema(domains.retail_like()))
    grammar = llama_cpp.LlamaGrammar.from_json_schema(schema, verbose=False)
    assert grammar is not None
    gbnf = json_schema_to_gbnf(schema)
    assert '"\\"verkkokauppa_toimitus\\""' in gbnf
    assert '"\\"critical\\""' in gbnf
    assert "language-1 ::= [a-z]" in gbnf
