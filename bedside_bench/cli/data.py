"""`bedside-bench data`: the release files and the results, without a model or an API key.

One module past 300 lines because its four subcommands share one parser and one error type,
and each is a short handler over work done elsewhere (`sources`, `dataset`, `export`).

- `check [PATH]` validates a release tree as a run would (every case of the ten benchmarks)
  and says whether its digest is a known release;
- `pull [--revision R]` puts the pinned Hugging Face snapshot in the normal cache, so later
  runs (and `check`) work offline;
- `path` says which source a run would use, and why;
- `export LOG_PATH... -o DIR` writes per-item results as a Parquet `datasets.Dataset`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bedside_bench import logs, release
from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import Subcommands, add_command, inspect_log_dir, output_path
from bedside_bench.core.extras import MissingExtra, require
from bedside_bench.core.owned_output import OutputError
from bedside_bench.core.protocol import HF_DATASET_REPO, HF_DATASET_REVISION
from bedside_bench.core.safe_text import printable
from bedside_bench.release.hub import DATA_ENV_VAR, cached_snapshot
from bedside_bench.release.known import KNOWN_RELEASES

PROG = "bedside-bench data"
EXIT_OK = exit_codes.OK
EXIT_INVALID = exit_codes.ERROR


def known_release_description(name: str) -> str | None:
    """`name (description)` of a recognised release, None for an unrecognised tree."""
    for known in KNOWN_RELEASES:
        if known.name == name:
            return f"{known.name} ({known.description})"
    return None


class DataCommandError(RuntimeError):
    """A problem reported as one line (exit 1)."""


# --------------------------------------------------------------------------------------------
# where the data comes from


@dataclass(frozen=True)
class Resolution:
    """Which source a run would use, and why; `root` is None when nothing is there yet."""

    origin: str  # data_dir | BEDSIDE_BENCH_DATA | hugging_face
    reason: str
    root: Path | None
    label: str


def resolve(data_dir: str | None, revision: str | None) -> Resolution:
    """The same order as `bedside_bench.release.sources.resolve_source`, but never downloads."""
    revision = revision or HF_DATASET_REVISION
    if data_dir:
        root = Path(data_dir).expanduser().resolve()
        return Resolution("data_dir", "-T data_dir (--data-dir) was given", root, str(root))
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        root = Path(env).expanduser().resolve()
        return Resolution(DATA_ENV_VAR, f"${DATA_ENV_VAR} is set", root, str(root))
    label = f"hf://{HF_DATASET_REPO}@{revision}"
    snapshot = cached_snapshot(revision)
    if snapshot is not None:
        reason = (
            f"neither -T data_dir nor ${DATA_ENV_VAR} is set; revision {revision} is in the "
            "Hugging Face cache (runs work offline)"
        )
    else:
        offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
        then = (
            "HF_HUB_OFFLINE is set, so a run would fail"
            if offline
            else "a run would download it first"
        )
        reason = (
            f"neither -T data_dir nor ${DATA_ENV_VAR} is set; revision {revision} is not in "
            f"the Hugging Face cache: {then} (`{PROG} pull` fetches it)"
        )
    return Resolution("hugging_face", reason, snapshot, label)


def shown(value: object) -> str:
    """A path, a variable's value or a message as one printable line (it may hold anything)."""
    return printable(str(value), 500)


def run_path(args: argparse.Namespace) -> int:
    found = resolve(args.data_dir, args.revision)
    if args.json:
        print(
            json.dumps(
                {
                    "origin": found.origin,
                    "reason": found.reason,
                    "path": str(found.root) if found.root else None,
                    "label": found.label,
                },
                indent=2,
            )
        )
    else:
        # a path or a variable may hold anything: each line printable
        print(f"source: {found.origin}")
        print(f"path: {shown(found.root) if found.root else '(not downloaded)'}")
        print(f"why: {shown(found.reason)}")
    if found.root is not None and not found.root.is_dir():
        print(f"{PROG} path: error: {shown(found.root)} is not a directory", file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# check


def check_document(source: release.DataSource, origin: str) -> tuple[dict[str, Any], bool]:
    """What `check` reports, and whether the tree is valid."""

    document: dict[str, Any] = {"path": str(source.root), "source": source.label, "origin": origin}
    try:
        loaded = release.load_release(source)
    except release.DatasetError as ex:
        document["valid"] = False
        document["violations"] = [
            {
                "file": v.file,
                "case_id": v.case_id,
                "item_id": v.item_id,
                "field": v.field,
                "message": v.message,
            }
            for v in ex.violations
        ]
        return document, False
    digest = loaded.dataset_sha256
    document["valid"] = True
    document["benchmarks"] = {
        name: {"cases": len(cases), "rubric_items": sum(len(c.rubric_items) for c in cases)}
        for name, cases in loaded.cases.items()
    }
    document["cases"] = len(loaded.all_cases)
    document["dataset_sha256"] = digest
    document["release"] = loaded.name
    document["release_case_counts"] = loaded.case_counts
    document["known_release"] = known_release_description(loaded.name)
    return document, True


def print_check(document: dict[str, Any]) -> None:
    if not document["valid"]:
        violations = [release.Violation(**v) for v in document["violations"]]
        print(
            f"{PROG} check: {shown(document['path'])} is not a valid release "
            f"({len(violations)} problem{'s' if len(violations) != 1 else ''}):",
            file=sys.stderr,
        )
        for violation in violations:
            print(f"  - {shown(violation)}", file=sys.stderr)
        return
    width = max(len(name) for name in document["benchmarks"])
    print(f"release: {shown(document['source'])}")
    for name, counts in document["benchmarks"].items():
        print(f"  {name:<{width}}  {counts['cases']:>4} cases  {counts['rubric_items']:>5} items")
    print(f"  {'total':<{width}}  {document['cases']:>4} cases")
    print(f"dataset_sha256: {document['dataset_sha256']}")
    known = document["known_release"]
    said = known if known else "no (unrecognised: not the content of any known release)"
    print(f"known release: {said}")


def run_check(args: argparse.Namespace) -> int:

    if args.path is not None:
        root = Path(args.path).expanduser().resolve()
        if not root.is_dir():
            raise DataCommandError(f"{args.path} is not a directory")
        origin = "argument"
        source = release.DataSource(root=root, label=str(root))
    else:
        found = resolve(None, args.revision)
        if found.root is None:
            raise DataCommandError(found.reason)
        origin = found.origin
        source = release.DataSource(root=found.root, label=found.label)
    document, valid = check_document(source, origin)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print_check(document)
    return EXIT_OK if valid else EXIT_INVALID


# --------------------------------------------------------------------------------------------
# pull


def run_pull(args: argparse.Namespace) -> int:

    revision = args.revision or HF_DATASET_REVISION
    try:
        source = release.hugging_face_source(revision)
    except RuntimeError as ex:
        raise DataCommandError(str(ex)) from None
    print(f"{shown(source.label)} is in the Hugging Face cache at {shown(source.root)}")
    print(f"runs without -T data_dir or ${DATA_ENV_VAR} use it, offline too (HF_HUB_OFFLINE=1)")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# export


def run_export(args: argparse.Namespace) -> int:

    args.log_paths = args.log_paths or [inspect_log_dir()]
    try:
        require("datasets", "export", "the Parquet export")  # before any log is read
        logs.check_out_dir(args.out_dir)
        export = logs.collect(args.log_paths)
    except (logs.ExportError, OutputError, MissingExtra) as ex:
        raise DataCommandError(str(ex)) from None
    for location, reason in export.skipped:
        print(f"{PROG} export: skipped {shown(location)}: {shown(reason)}", file=sys.stderr)
    if not export.rows:
        raise DataCommandError(f"no scored BedsideBench cases in {', '.join(args.log_paths)}")
    try:
        path = logs.write_parquet(export.rows, args.out_dir)
    except OutputError as ex:
        raise DataCommandError(str(ex)) from None
    print(
        f"wrote {len(export.rows)} rows ({export.cases} scored cases from {export.logs} logs) "
        f"to {shown(path)}"
    )
    if export.unscored:
        print(
            f"{PROG} export: {len(export.unscored)} cases have no score in any log and are not "
            "in the export:",
            file=sys.stderr,
        )
        for case in export.unscored:
            print(f"  - {shown(case)}", file=sys.stderr)
    print(f'load it with datasets.load_dataset("parquet", data_files="{shown(path)}")')
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# command line


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Check, fetch and locate the release files; export results. No model, no API key."""
    actions = parser.add_subparsers(dest="data_command", metavar="ACTION", required=True)

    check = actions.add_parser(
        "check",
        help="validate a release tree offline; counts, digest, known release",
        description="Validate every case of the ten benchmarks, as a run does before any "
        "call. Without PATH, the tree a run would use (see `path`). Exit 1 with every "
        "problem listed when the tree is invalid.",
    )
    check.add_argument("path", nargs="?", metavar="PATH", help="a release tree")
    check.add_argument("--revision", help="with no PATH: the Hugging Face revision to check")
    check.add_argument("--json", action="store_true", help="one JSON document on stdout")
    check.set_defaults(data_handler=run_check)

    pull = actions.add_parser(
        "pull",
        help="fetch the pinned Hugging Face snapshot into the cache, for offline runs",
        description=f"Download {HF_DATASET_REPO} at the pinned revision (or --revision) "
        "into the normal Hugging Face cache and print where it is.",
    )
    pull.add_argument("--revision", help=f"default: the pinned {HF_DATASET_REVISION}")
    pull.set_defaults(data_handler=run_pull)

    path = actions.add_parser(
        "path",
        help="which source a run would use, and why",
        description=f"First match wins: -T data_dir, ${DATA_ENV_VAR}, the Hugging Face cache.",
    )
    path.add_argument("--data-dir", metavar="PATH", help="as a run's -T data_dir=PATH")
    path.add_argument("--revision", help="as a run's -T revision=R")
    path.add_argument("--json", action="store_true", help="one JSON document on stdout")
    path.set_defaults(data_handler=run_path)

    export = actions.add_parser(
        "export",
        help="per-item results of Inspect logs as a Parquet dataset",
        description="One row per (answer model, case, epoch, rubric item) with the judge's "
        "decision and the case score, as a Hugging Face datasets.Dataset saved as "
        "DIR/results.parquet.",
    )
    export.add_argument(
        "log_paths",
        nargs="*",
        metavar="LOG_PATH",
        help="an Inspect log directory or log file (local, s3://, ...); "
        "default $INSPECT_LOG_DIR, else ./logs",
    )
    export.add_argument(
        "-o",
        "--out-dir",
        type=output_path,
        required=True,
        metavar="DIR",
        help="the folder for the Parquet file",
    )
    export.set_defaults(data_handler=run_export)


def run_data_command(args: argparse.Namespace) -> int:
    try:
        code: int = args.data_handler(args)
    except (DataCommandError, FileNotFoundError) as ex:
        print(f"{PROG} {args.data_command}: error: {shown(ex)}", file=sys.stderr)
        return EXIT_INVALID
    except (OSError, RuntimeError) as ex:  # a name too long, a symlink loop (`Path.resolve`)
        reason = ex.strerror if isinstance(ex, OSError) and ex.strerror else ex
        where = getattr(ex, "filename", None) or getattr(args, "path", None) or ""
        print(
            f"{PROG} {args.data_command}: error: {shown(where)}: {shown(reason)}", file=sys.stderr
        )
        return EXIT_INVALID
    return code


def register(subcommands: Subcommands) -> None:
    """Add `data` to `bedside-bench` (listed in cli/main.py's COMMANDS)."""
    add_command(
        subcommands,
        "data",
        "check, pull and locate the release; export results",
        configure_parser,
        run_data_command,
    )
