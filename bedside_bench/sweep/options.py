"""What a sweep is asked to do: its options, their validation, and the tasks they make.

Nothing here calls a model or writes a file; `run.py` does that with what this module builds.
Past 300 lines: the options are many, and the `-T` values (YAML's number forms, the judge they
may name) are checked here, before any task is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypedDict

import yaml

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import GRADER_ROLE
from bedside_bench.core.model_names import judge_name_problem, model_name_problem
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.ranges import ABANDONED_ATTEMPTS_RETRIES
from bedside_bench.sweep.shard import Shard

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.model import BatchConfig, GenerateConfigArgs, Model
    from inspect_ai.util import DisplayType

# a `-T` value as YAML reads it (`true`, `3`, `0.5`, text, a list): the task checks its name
# and type when it is built, before any call (`task_options`), so here it is only carried
RawTaskArgs: TypeAlias = Mapping[str, object]

PROG = "bedside-bench sweep"
DEFAULT_LOG_DIR = "logs/sweep"
REPORT_SUBDIR = "report"
# eval_set re-runs a task whose log ended in error (completed cases reused). Transient faults
# are already retried per call without limit, so what is left is mostly persistent (an
# always-invalid judge, a refused request): Inspect's default of 10 re-runs would repeat those
# at full price. Two more attempts still cover a rare unlucky case.
DEFAULT_RETRY_ATTEMPTS = 2
# the judge's default connections over what keeps pace with the answers (see judge_connections)
JUDGE_HEADROOM = 2
DISPLAYS = ("full", "rich", "plain", "log", "none")
# a `-T` value that looks like a number (digits with `_` or `:`, a base prefix) is one only as a
# plain decimal, with a sign, a fraction or an exponent (`odd_number`); ASCII digits alone
NUMBER_SHAPED = re.compile(
    r"[-+]?(0[xXoObB][0-9a-fA-F_]*|[0-9][0-9_:]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?)"
)
PLAIN_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][-+]?[0-9]+)?")
YAML_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
# the task argument naming the judge: the sweep takes it as its judge (`judge_named`)
JUDGE_ARG = "judge_model"


class SweepError(RuntimeError):
    """A problem with the inputs, reported as one line before any model call."""


@dataclass(frozen=True)
class SweepOptions:
    """Everything a sweep needs; the CLI only fills this in."""

    models: Sequence[str]
    judge: str = DEFAULT_JUDGE_MODEL
    benchmarks: Sequence[str] = BENCHMARK_NAMES
    smoke: bool = False
    log_dir: str = DEFAULT_LOG_DIR
    data_dir: str | None = None
    revision: str | None = None
    judge_retries: int | None = None
    task_args: RawTaskArgs = field(default_factory=dict)
    max_connections: int | None = None
    judge_max_connections: int | None = None
    max_retries: int | None = None
    timeout: int | None = None
    attempt_timeout: int | None = None
    batch: bool | int | BatchConfig | None = None  # sweep/batch.py reads --batch
    retry_attempts: int = DEFAULT_RETRY_ATTEMPTS
    retry_on_error: int | None = None
    display: DisplayType | None = None
    report: bool = True
    report_dir: str | None = None
    prices: str | None = None
    shard: Shard = Shard(1, 1)
    # Inspect's cost options, passed to eval_set as given (sweep/cost.py)
    model_cost_config: str | None = None
    cost_limit: float | None = None

    @property
    def run_log_dir(self) -> str:
        """Where this run's eval_set writes: the log directory, or for shard K of N its
        `shard-K-of-N` folder. eval_set reads every log header under its directory, and a log
        another machine is still writing can be caught half written, so shards do not share
        one; Inspect's readers (`inspect view`, the report, a later whole sweep) recurse."""
        if self.shard.whole:
            return self.log_dir
        return f"{self.log_dir.rstrip('/')}/{self.shard.tag}"

    @property
    def report_out_dir(self) -> Path:
        """LOG_DIR/report for a local log directory; ./reports for a remote one (s3://...)."""
        if self.report_dir:
            return Path(self.report_dir)
        if "://" in self.log_dir:
            return Path("reports")
        return Path(self.log_dir) / REPORT_SUBDIR


class SweepFields(TypedDict, total=False):
    """`SweepOptions`' fields as keyword arguments of `run_sweep` (a test keeps the two the
    same, name for name and type for type)."""

    models: Sequence[str]
    judge: str
    benchmarks: Sequence[str]
    smoke: bool
    log_dir: str
    data_dir: str | None
    revision: str | None
    judge_retries: int | None
    task_args: RawTaskArgs
    max_connections: int | None
    judge_max_connections: int | None
    max_retries: int | None
    timeout: int | None
    attempt_timeout: int | None
    batch: bool | int | BatchConfig | None
    retry_attempts: int
    retry_on_error: int | None
    display: DisplayType | None
    report: bool
    report_dir: str | None
    prices: str | None
    shard: Shard
    model_cost_config: str | None
    cost_limit: float | None


NO_MODEL = "give at least one model with --model (or set $INSPECT_EVAL_MODEL)"


def split_list(values: Sequence[str] | str | None) -> list[str]:
    """Comma lists, possibly given several times, in order and without repeats."""
    if values is None:
        return []
    items = [values] if isinstance(values, str) else list(values)
    out = [part.strip() for item in items for part in item.split(",")]
    return list(dict.fromkeys(p for p in out if p))


def check_model_name(name: str, what: str) -> str:
    """`name`, if Inspect could create it as the model `what` names (a judge: one that can
    judge); else one line, before any call (Inspect's own refusal of a misspelt provider is a
    traceback)."""
    check = judge_name_problem if what == "judge" else model_name_problem
    if (problem := check(name, what)) is not None:
        raise SweepError(problem)
    return name


def check_benchmarks(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in BENCHMARK_NAMES]
    if unknown:
        raise SweepError(
            f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARK_NAMES)}"
        )
    # registry order, whatever order they were given in
    return [b for b in BENCHMARK_NAMES if b in names]


def parse_task_arg(text: str) -> tuple[str, object]:
    """`NAME=VALUE`, the value read as YAML like Inspect's `-T` (so `true`, `3` are typed),
    a number only when written as a plain decimal (`odd_number`)."""

    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise SweepError(f"task argument {text!r} is not NAME=VALUE")
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return name, value
    if parsed is None:  # nothing, `null`, `~`: the option's default, which was not typed
        said = (
            f"{name}= has no value: give one, or"
            if not value.strip()
            else f"{name}={value.strip()} is YAML's null:"
        )
        raise SweepError(f"task argument {said} leave -T {name} out for its default")
    if (odd := odd_number(yaml.compose(value))) is not None:
        token, tag = odd
        read = yaml.safe_load(token) if tag in YAML_NUMBER_TAGS else None
        reading = repr(read) if read is not None else f"the text {token!r}"
        raise SweepError(
            f"task argument {name}={value.strip()}: {token} is not a plain decimal number "
            f"(YAML reads it as {reading}); write a plain decimal such as 3, -2 or 1.5, or "
            "quote the value for text"
        )
    return name, parsed


def odd_number(node: yaml.Node | None) -> tuple[str, str] | None:
    """The first unquoted scalar of a parsed `-T` value (text and YAML tag) written as a number
    in any form but a plain decimal, else None.

    YAML 1.1, which PyYAML and so Inspect's `-T` read, takes `010` as 8 (octal), `0x5` as 5,
    `0b11` as 3, `1_5` as 15 and `1:30` as 90 (base 60), while it takes `08`, `0o7` (YAML 1.2's
    octal) and `1:75` as text: the same shape would mean a number to one value and a word to
    another, and a number the user did not write. A task is given the number alone and cannot
    tell `-T judge_passes=010` from `-T judge_passes=8`, so the sweep refuses such a value while
    it still has the text. A quoted value is text, as written."""
    seen: set[int] = set()
    stack = [] if node is None else [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:  # an alias repeats a node (`&a [*a]` holds itself)
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode):
            text = str(current.value)
            shaped = current.style is None and NUMBER_SHAPED.fullmatch(text)
            if shaped and not PLAIN_DECIMAL.fullmatch(text):
                return text, current.tag
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(reversed(current.value))
        elif isinstance(current, yaml.MappingNode):
            stack.extend(reversed([part for pair in current.value for part in pair]))
    return None


def task_arguments(options: SweepOptions) -> dict[str, object]:
    """The task arguments, identical on every run of the same command (eval_set hashes them to
    pair tasks with their logs, so a relative data dir is made absolute)."""
    args: dict[str, object] = {"smoke": options.smoke}
    if options.data_dir is not None:
        args["data_dir"] = str(Path(options.data_dir).expanduser().resolve())
    if options.revision is not None:
        args["revision"] = options.revision
    if options.judge_retries is not None:
        args["judge_retries"] = options.judge_retries
    args.update(options.task_args)
    # `task_args={"judge_model": J}` from Python is the judge as from the command line: the
    # sweep's own (`judge_named`), never a task argument beside a grader role
    named = args.get(JUDGE_ARG)
    if isinstance(named, str):
        if named != options.judge:
            raise two_judges(f"judge {options.judge}", f"task argument {JUDGE_ARG}={named}")
        del args[JUDGE_ARG]
    return args


def two_judges(judge: str, named: str) -> SweepError:
    return SweepError(f"{judge} and {named} name two judges, so nothing was run: give one of them")


def judge_named(judge: str | None, task_args: RawTaskArgs) -> tuple[str | None, dict[str, object]]:
    """(the judge, the task arguments without `judge_model`): `-T judge_model=M` is the sweep's
    judge as `--judge M` is, the grader role with its connection limits, the judge the logs
    and the report name. Left a task argument beside the role (bound to `--judge`'s default),
    it would have the scorer call M outside the role's limits while the logs named the role's
    model. A `--judge` naming another judge is refused; a value that is not text stays a task
    argument, for the task to refuse as any wrong type."""
    args = dict(task_args)
    named = args.get(JUDGE_ARG)
    if not isinstance(named, str):
        return judge, args
    if judge is not None and judge != named:
        raise two_judges(f"--judge {judge}", f"-T {JUDGE_ARG}={named}")
    del args[JUDGE_ARG]
    return named, args


def build_task(options: SweepOptions, benchmark: str) -> Task:
    """The task of one benchmark, made by its registered @task function so that eval_set and
    `inspect eval-retry` can recreate it from the log; every task a sweep runs or estimates.

    Its metadata names the sweep's judge (`judge_model`), as a task built inside `inspect
    eval` names the grader it resolved: the sweep builds its tasks before eval_set binds the
    role, when a task cannot see it (`preflight_judge`). Set as `task_with(metadata=...)` sets
    it; the metadata is no part of the task's identity in eval_set, so a resumed run pairs
    with its logs as before."""
    # lazy: the tasks import Inspect, and the sweep parses its command line without it
    from bedside_bench.task import tasks as registered

    task: Task = getattr(registered, benchmark)(**task_arguments(options))
    task.metadata = {**(task.metadata or {}), JUDGE_ARG: options.judge}
    return task


def build_tasks(options: SweepOptions) -> list[Task]:
    """`build_task` of every benchmark asked for, in registry order."""
    return [build_task(options, name) for name in check_benchmarks(options.benchmarks)]


def generate_config_args(options: SweepOptions) -> GenerateConfigArgs:
    """Generation options that change how calls are made, never what is asked (Inspect keeps
    them out of the task identity, so changing them does not restart finished work); only
    those given, so Inspect's defaults stand for the rest."""
    config: GenerateConfigArgs = {}
    if options.max_connections is not None:
        config["max_connections"] = options.max_connections
    if options.max_retries is not None:
        config["max_retries"] = options.max_retries
    elif options.attempt_timeout is not None and options.timeout is None:
        # an abandoned attempt may be paid: without a bound, a timeout below the provider's
        # latency would abandon and re-buy the call forever (core/ranges.py)
        config["max_retries"] = ABANDONED_ATTEMPTS_RETRIES
    if options.timeout is not None:
        config["timeout"] = options.timeout
    if options.attempt_timeout is not None:
        config["attempt_timeout"] = options.attempt_timeout
    if options.batch is not None:
        config["batch"] = options.batch
    return config


def eval_config_args(options: SweepOptions) -> GenerateConfigArgs:
    """The generation options given to eval_set itself: all but max_connections.

    Inspect (0.3.285) lets a role model inherit the eval's max_connections over its own
    (`Model._resolve_config`), so an eval-wide limit would also cap the judge. The answer
    models carry their limit in their own config instead (`answer_model`), and the judge
    role carries its own (`judge_role`)."""
    config = generate_config_args(options)
    config.pop("max_connections", None)
    return config


def answer_model(options: SweepOptions, name: str) -> str | Model:
    """An answer model with `--max-connections` in its own config (see `eval_config_args`)."""
    if options.max_connections is None:
        return name
    from inspect_ai.model import GenerateConfig, get_model  # lazy: as build_tasks

    return get_model(name, config=GenerateConfig(max_connections=options.max_connections))


def answer_models(options: SweepOptions, names: Sequence[str]) -> list[str] | list[Model]:
    """`answer_model` of each name: all names, or all Models (what eval_set's `model` takes)."""
    if options.max_connections is None:
        return list(names)
    from inspect_ai.model import GenerateConfig, get_model  # lazy: as build_tasks

    config = GenerateConfig(max_connections=options.max_connections)
    return [get_model(name, config=config) for name in names]


def judge_passes(options: SweepOptions) -> int:
    value = options.task_args.get("judge_passes", 1)
    return value if isinstance(value, int) and value >= 1 else 1


def judge_connections(options: SweepOptions) -> int | None:
    """The judge's own connection limit. Every answer model's cases are judged by the one
    judge pool (Inspect keys pools by API key and model), each answer by `judge_passes` calls,
    so a judge as fast as the answer models needs `--max-connections` x passes x answer models
    to keep up. The default is twice that: a judge call leaves some time after its answer
    (the one event loop is busy with the burst of answers that just came back), and a pool
    with no room to spare starts each round's judging only when the last round's has ended,
    so the lag carries over round after round and lengthens the judging after the last
    answer. The requests per second stay those of the answers (twice the connections, but
    only as many calls). None (no limit given): Inspect's adaptive limit."""
    if options.judge_max_connections is not None:
        return options.judge_max_connections
    if options.max_connections is None:
        return None
    return (
        JUDGE_HEADROOM
        * options.max_connections
        * judge_passes(options)
        * max(1, len(options.models))
    )


def max_samples(options: SweepOptions) -> int | None:
    """Samples in flight per task: one per answer connection, one per judge connection, and
    as many again as answer connections waiting their turn.

    Inspect's default is the answer model's max_connections, so a case waiting for its judge
    would hold an answer slot. With only answer + judge slots, a new case starts when an
    earlier one has been judged, and must set itself up before it can ask: in a task with
    more cases than that, each answer round then starts late and the delay adds up. The
    waiting cases have set themselves up already and take a freed answer connection at once.
    A task with fewer cases (25 per benchmark in the public release) runs them all at once
    either way."""
    judge = judge_connections(options)
    if options.max_connections is None or judge is None:
        return None
    return 2 * options.max_connections + judge


def judge_role(options: SweepOptions) -> str | Model:
    """The grader role. A role model inherits only some of the eval's generation options
    (max_connections, max_retries, timeout), so attempt_timeout and batch are given to it too,
    and its max_connections is its own (see `judge_connections`)."""
    config = generate_config_args(options)
    connections = judge_connections(options)
    if connections is not None:
        config["max_connections"] = connections
    if not config:
        return options.judge
    from inspect_ai.model import GenerateConfig, get_model  # lazy: as build_tasks

    return get_model(
        options.judge, role=GRADER_ROLE, config=GenerateConfig(**config), memoize=False
    )
