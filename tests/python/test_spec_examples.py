"""Every example in the committed OpenAPI document is accepted by the schema it illustrates.

A stale example (a PIN of the old shape, a field renamed since) misleads whoever copies it, and
schemathesis sends the examples as they are. Checked with jsonschema_rs (JSON Schema 2020-12,
formats included), each schema resolved against the whole document's components.

Environment:
    CATAN_SPEC       the OpenAPI document (default: the committed one)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema_rs

REPO = Path(__file__).resolve().parents[2]
SPEC = Path(os.environ.get("CATAN_SPEC", REPO / "openapi" / "openapi.json"))
METHODS = {"get", "put", "post", "delete", "patch"}


def _examples(spec: dict):
    """(where, schema, example) for every example of the document."""
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        where = f"#/components/schemas/{name}"
        if "example" in schema:
            yield where, {"$ref": where}, schema["example"]
        for prop, prop_schema in schema.get("properties", {}).items():
            if "example" in prop_schema:
                yield f"{where}.{prop}", prop_schema, prop_schema["example"]
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            for parameter in operation.get("parameters", []):
                if "example" in parameter:
                    where = f"{method.upper()} {path} {parameter['name']}"
                    yield where, parameter["schema"], parameter["example"]
            bodies = [("body", operation.get("requestBody", {}))] + list(
                operation.get("responses", {}).items()
            )
            for status, body in bodies:
                for media, content in body.get("content", {}).items():
                    if "example" in content:
                        where = f"{method.upper()} {path} {status} {media}"
                        yield where, content["schema"], content["example"]


def test_every_example_fits_its_schema():
    spec = json.loads(SPEC.read_text())
    components = spec.get("components", {})
    examples = list(_examples(spec))
    assert len(examples) > 20, f"only {len(examples)} examples found"
    refused = {}
    for where, schema, example in examples:
        validator = jsonschema_rs.validator_for(
            {**schema, "components": components}, validate_formats=True
        )
        errors = [error.message for error in validator.iter_errors(example)]
        if errors:
            refused[where] = errors
    assert not refused, f"examples their schemas refuse: {json.dumps(refused, indent=2)}"
