"""The JSON Schemas of the documents the package writes, generated from their models.

A document's model is its one definition: the report and `review score` build the models
(pydantic validates them as they are built) and the shipped schema file is generated from the
model, for readers outside the package. `DOCUMENT_SCHEMAS` lists every (schema file, model)
pair; a new document is one line there. The other files in `schemas/` are written by hand
(`HAND_WRITTEN`): the case files' formats (`release/case.py` validates cases with them), the judge's
reply (`judge_reply.parse_decisions` is the strict parser, the schema describes its structure)
and any document whose model is not listed yet.

    python -m bedside_bench.documents.schemas --write   # regenerate schemas/*.schema.json
    python -m bedside_bench.documents.schemas --check   # exit 1 naming each stale file

The output is deterministic (keys sorted, two-space indent, a trailing newline), so a committed
schema either equals the generated one or `tests/test_document_schemas.py` fails. Pydantic
releases may word a schema differently: regenerate after raising pydantic.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue

from bedside_bench.core.entry import entry_point
from bedside_bench.documents.comparison import Comparison
from bedside_bench.documents.estimate import EstimateDocument
from bedside_bench.documents.judges import JudgesDocument
from bedside_bench.documents.review import ReviewDocument
from bedside_bench.documents.summary import RunSummary

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://bedside-bench.invalid/schemas/{file}"
COMMAND = "python -m bedside_bench.documents.schemas --write"

# (schema file in schemas/, the model of the document it describes)
DOCUMENT_SCHEMAS: tuple[tuple[str, type[BaseModel]], ...] = (
    ("comparison.schema.json", Comparison),
    ("estimate.schema.json", EstimateDocument),
    ("judges.schema.json", JudgesDocument),
    ("review.schema.json", ReviewDocument),
    ("summary.schema.json", RunSummary),
)

# schema files written by hand; a file listed in DOCUMENT_SCHEMAS as well is generated
HAND_WRITTEN = frozenset(
    {
        "case.f1_weighted_rubric.schema.json",
        "case.points_rubric.schema.json",
        "judge_decisions.schema.json",
    }
)


class _DocumentJsonSchema(GenerateJsonSchema):
    """Pydantic's generator without a title on every property (the key says it)."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False


def _one_line(node: object) -> object:
    """Descriptions (docstrings) as one line each; every other value as it is."""
    if isinstance(node, dict):
        return {
            k: " ".join(v.split()) if k == "description" and isinstance(v, str) else _one_line(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_one_line(v) for v in node]
    return node


def schema_of(file: str, model: type[BaseModel]) -> JsonSchemaValue:
    """The JSON Schema of the document `model` as written: serialization mode, unless the
    model says its schema is its validation mode's (`SCHEMA_MODE`: the summary, whose keys
    written only when set make its serialization schema any object)."""
    mode: JsonSchemaMode = getattr(model, "SCHEMA_MODE", "serialization")
    generated = model.model_json_schema(mode=mode, schema_generator=_DocumentJsonSchema)
    schema = _one_line(generated)
    assert isinstance(schema, dict)
    return {"$schema": DRAFT, "$id": SCHEMA_ID.format(file=file), **schema}


def schema_text(file: str, model: type[BaseModel]) -> str:
    """The schema file's text: sorted keys, two-space indent, a trailing newline."""
    return json.dumps(schema_of(file, model), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def generated_schemas() -> dict[str, str]:
    """Every generated schema file's name and text."""
    return {file: schema_text(file, model) for file, model in DOCUMENT_SCHEMAS}


def schemas_dir() -> Path:
    """`schemas/` of the source tree the package is installed from (an editable install)."""
    return Path(str(files("bedside_bench.schemas")))


def stale_files(directory: Path) -> dict[str, str]:
    """What is wrong in `directory`, by file: generated files missing or differing from
    their model's schema, and files that are neither generated nor hand-written."""
    found = {}
    generated = generated_schemas()
    for file, text in generated.items():
        path = directory / file
        if not path.is_file():
            found[file] = "missing"
        elif path.read_text(encoding="utf-8") != text:
            found[file] = "differs from the schema its model generates"
    for path in sorted(directory.glob("*.schema.json")):
        if path.name not in generated and path.name not in HAND_WRITTEN:
            found[path.name] = (
                "neither generated (DOCUMENT_SCHEMAS) nor listed as hand-written (HAND_WRITTEN)"
            )
    return found


def write_schemas(directory: Path) -> list[str]:
    """Write every generated schema into `directory`; the files whose text changed."""
    changed = []
    for file, text in generated_schemas().items():
        path = directory / file
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(file)
    return changed


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bedside_bench.documents.schemas",
        description="Write or check the JSON Schemas generated from the document models.",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate the schema files")
    action.add_argument("--check", action="store_true", help="exit 1 if any file is stale")
    parser.add_argument(
        "--dir", type=Path, default=None, help="the schemas folder (default: the package's)"
    )
    args = parser.parse_args(argv)
    directory: Path = args.dir if args.dir is not None else schemas_dir()
    if args.write:
        for file in write_schemas(directory):
            print(f"wrote {directory / file}")
        return 0
    stale = stale_files(directory)
    for file, reason in stale.items():
        print(f"{directory / file}: {reason}", file=sys.stderr)
    if stale:
        print(f"run `{COMMAND}` (and commit the result)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
