"""Argument types and subcommand registration shared by the `bedside-bench` subcommands."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from dotenv import dotenv_values, find_dotenv, load_dotenv

from bedside_bench.core.ranges import ANY_COUNT_MOST, Range, ranged
from bedside_bench.core.safe_text import printable

Subcommands = Any  # argparse's _SubParsersAction is private


class SuggestingParser(argparse.ArgumentParser):
    """A parser that refuses a flag it does not know itself, with its own usage line and the
    closest flag it has (`bedside-bench sweep --modle` names `--model`). A plain subcommand
    parser hands an unknown flag up to `bedside-bench`, whose error shows the top-level usage
    and no suggestion. Its subcommands' parsers are of this class too (argparse makes them of
    the class of the parser that holds them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # a flag is typed whole: `--smok` would otherwise be taken for `--smoke` and run
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]  # argparse's overloads, one form used
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # `--help` prints the usage as it parses: never from the pass with nothing required
        asks_help = any(a in ("-h", "--help") for a in (sys.argv[1:] if args is None else args))
        if self._is_subcommand and self._subparsers is None and not asks_help:
            # first with nothing required: a misspelt flag is named even where a required
            # argument is missing too (`rejudge --judgee x` would say only "--judge required")
            required = [action for action in self._actions if action.required]
            for action in required:
                action.required = False
            try:
                _, unknown = super().parse_known_args(args, None)
            finally:
                for action in required:
                    action.required = True
            if unknown:
                self.error(self.unrecognized(unknown))
        parsed, extras = super().parse_known_args(args, namespace)
        if self._is_subcommand and extras:
            self.error(self.unrecognized(extras))
        return parsed, extras

    @property
    def _is_subcommand(self) -> bool:
        return " " in self.prog  # `bedside-bench sweep`, `bedside-bench data path`

    def unrecognized(self, extras: Sequence[str]) -> str:
        """argparse's own words, with the closest flag of this parser for each unknown one."""
        flags = [f for f in self._option_string_actions if f.startswith("--")]
        hints = []
        for extra in extras:
            flag = extra.split("=", 1)[0]
            # a flag cut short is most like the one flag it begins
            begun = [f for f in flags if f.startswith(flag)] if flag.startswith("--") else []
            near = begun if len(begun) == 1 else difflib.get_close_matches(flag, flags, n=1)
            if flag.startswith("-") and near:
                hints.append(f"{flag}: did you mean {near[0]}?")
        said = f"unrecognized arguments: {' '.join(extras)}"
        return f"{said} ({'; '.join(hints)})" if hints else said


def add_command(
    subcommands: Subcommands,
    name: str,
    help: str,
    configure: Callable[[argparse.ArgumentParser], None],
    handler: Callable[[argparse.Namespace], int],
    description: str | None = None,
) -> None:
    """One subcommand: its parser (described by `configure`'s docstring unless a description
    is given), its options and its handler."""
    parser = subcommands.add_parser(name, help=help, description=description or configure.__doc__)
    configure(parser)
    parser.set_defaults(handler=handler)


NAME_MAX = 255  # bytes in one part of a path (Linux, macOS, Windows alike)


def output_folder(text: str) -> str:
    """A folder the command writes to, as typed, if its name can be written as UTF-8: a name
    holding a byte that is not (Python reads it as a lone surrogate, `\\udc80`) would end in a
    traceback where a log, a JSON document or a line names the folder, after calls were paid."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            f"{printable(text, 300)}: the name holds bytes that are not UTF-8; logs and "
            "reports name their folder in UTF-8, so give a folder whose name is"
        ) from None
    # a part longer than a file system allows fails at the first write, after calls were paid
    if any(len(os.fsencode(part)) > NAME_MAX for part in Path(text).parts):
        raise argparse.ArgumentTypeError(
            f"{printable(text, 300)}: a part of the path is longer than {NAME_MAX} bytes, "
            "more than a file system allows in one name"
        )
    return text


def output_path(text: str) -> Path:
    """`output_folder`, as a Path."""
    return Path(output_folder(text))


# a flag with no range of its own in core/ranges.py: a whole number in ASCII digits up to this
positive_int = ranged(Range(1, ANY_COUNT_MOST, "no count of this package needs more"))
non_negative_int = ranged(Range(0, ANY_COUNT_MOST, "no count of this package needs more"))


# --------------------------------------------------------------------------------------------
# Inspect's environment conventions: a flag wins, then the variable, then our default

LOG_DIR_ENV = "INSPECT_LOG_DIR"
MODEL_ENV = "INSPECT_EVAL_MODEL"
# `inspect eval --model-role`'s variable: whitespace-separated ROLE=MODEL bindings
MODEL_ROLE_ENV = "INSPECT_EVAL_MODEL_ROLE"


class EnvironmentSettingError(ValueError):
    """A variable that cannot serve as what a command reads it for: the one line to print."""


def _in_vscode() -> bool:
    """Inspect's test (`inspect_ai._util.platform.is_running_in_vscode`, 0.3.285): there the
    editor has already loaded `.env` once, so the file's values win (edits take effect)."""
    names = ("VSCODE_IPYTHON_KERNEL", "VSCODE_CLI_REQUIRE_TOKEN", "VSCODE_PID", "VSCODE_CWD")
    return any(os.getenv(n) is not None for n in names) or os.getenv("TERM_PROGRAM") == "vscode"


def _absolute(location: str, base: Path) -> str:
    """A local folder made absolute against `base`; a URL (`s3://...`) as it is."""
    if urlparse(location).scheme or os.path.isabs(location):
        return location
    return (base / location).resolve().as_posix()


def load_dotenv_as_inspect() -> str | None:
    """Load the nearest `.env` (from the working folder up) as Inspect's commands do when they
    start (`inspect_ai._util.dotenv.init_dotenv`, 0.3.285), so every `bedside-bench` command
    sees what `inspect eval` in the same folder sees: a variable already set wins over the
    file (in VS Code the file wins), and a relative `INSPECT_LOG_DIR` written in the file is
    relative to the file's folder, one set in the environment to the working folder. Loading
    twice changes nothing. The file loaded, or None."""
    found = find_dotenv(usecwd=True)
    if not found:
        return None
    in_environment = os.environ.get(LOG_DIR_ENV)
    in_file = dotenv_values(found).get(LOG_DIR_ENV)
    log_dir = None
    if in_environment == in_file or not in_environment:
        # only a relative folder is rewritten: an absolute one or a URL stays as loaded (and
        # loses to a variable set empty, as in Inspect)
        if in_file and _absolute(in_file, Path(found).parent) != in_file:
            log_dir = _absolute(in_file, Path(found).parent)
    else:
        log_dir = _absolute(in_environment, Path.cwd())
        log_dir = log_dir.rstrip("/") or log_dir
    load_dotenv(found, override=_in_vscode())
    if log_dir:
        os.environ[LOG_DIR_ENV] = log_dir
    return found


def inspect_log_dir(default: str = "./logs") -> str:
    """The log directory when no flag names one: `$INSPECT_LOG_DIR`, as `inspect eval` and
    `inspect view` read it, else `default`."""
    return os.environ.get(LOG_DIR_ENV) or default


def inspect_eval_models() -> list[str]:
    """The models `$INSPECT_EVAL_MODEL` names (a comma list, as Inspect reads it), or none."""
    return [m.strip() for m in os.environ.get(MODEL_ENV, "").split(",") if m.strip()]


def inspect_role_model(role: str) -> str | None:
    """The model `$INSPECT_EVAL_MODEL_ROLE` binds `role` to (`grader=openai/gpt-4.1`, the
    bindings separated by whitespace as Inspect's `--model-role` reads the variable), or None.
    A binding to a YAML config or to several models is refused (`EnvironmentSettingError`):
    a command taking one model name would drop its settings silently."""
    for binding in os.environ.get(MODEL_ROLE_ENV, "").split():
        name, equals, model = binding.partition("=")
        if name != role or not equals:
            continue
        if not model or model[0] in "{[" or "," in model:
            raise EnvironmentSettingError(
                f"${MODEL_ROLE_ENV} binds {role} to {model!r}, which is not one model name"
            )
        return model
    return None
