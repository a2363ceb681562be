"""Which run group a log belongs to: the fields that must match for case scores to be pooled
(`report/groups.py` builds the groups; documents name a group by this key)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields

from bedside_bench.logs.generation import DEFAULTS_TEXT, settings_text
from bedside_bench.logs.records import LogRecord

KeyValue = str | int | bool | None  # a group key field's value
# group-key fields added after the first release; left out of the digest at these values, so
# the file names of groups that existed before keep their digest
_DIGEST_DEFAULTS: dict[str, KeyValue] = {
    "epochs": 1,
    "release": None,
    "generation": DEFAULTS_TEXT,
    "demo": False,
}


@dataclass(frozen=True)
class GroupKey:
    answer_model: str
    judge_model: str
    protocol_version: str
    dataset_sha256: str
    severe_gate: bool
    judge_passes: int
    grading: str
    smoke: bool
    epochs: int = 1
    # the release's name, "unrecognised", or None when the logs do not record it
    release: str | None = None
    # the answer model's answer-changing generate settings, as one line (`settings_text`)
    generation: str = DEFAULTS_TEXT
    # scripted stand-ins (`bedside-bench demo`): never pooled with, nor compared to, real runs
    # of the same model and judge
    demo: bool = False

    @classmethod
    def of(cls, log: LogRecord) -> GroupKey:
        return cls(
            answer_model=log.answer_model,
            judge_model=log.judge_model,
            protocol_version=log.protocol_version,
            dataset_sha256=log.dataset_sha256,
            severe_gate=log.severe_gate,
            judge_passes=log.judge_passes,
            grading=log.grading,
            smoke=log.smoke,
            epochs=log.epochs,
            release=log.release,
            generation=settings_text(log.generation),
            demo=log.demo,
        )

    def as_json(self) -> dict[str, KeyValue]:
        return asdict(self)

    def sort_key(self) -> tuple[tuple[bool, KeyValue], ...]:
        """Field by field, with None (unknown release) after every name."""
        return tuple((v is None, v if v is not None else "") for v in asdict(self).values())

    def digest(self) -> str:
        """Short stable hash, to tell apart groups that share an answer model."""
        fields_ = {
            k: v
            for k, v in self.as_json().items()
            if k not in _DIGEST_DEFAULTS or v != _DIGEST_DEFAULTS[k]
        }
        text = json.dumps(fields_, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:8]


# Fields that must agree for two groups to be compared like for like (all but the answer model).
COMPARABLE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(GroupKey) if f.name != "answer_model"
)
