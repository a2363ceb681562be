"""A small input file a user names (prices, a cost config, a batch config) is opened only when
it is a regular file and read only up to a bound: a FIFO named by mistake or by malice never
blocks the command (it hung `report --prices` and `sweep --estimate --prices`), and a huge file
is refused, not read into memory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bedside_bench.cli.main import main as cli_main
from bedside_bench.core.small_files import SmallFileError, read_small_text


def test_what_is_read_and_what_is_refused(tmp_path: Path) -> None:
    good = tmp_path / "prices.json"
    good.write_text('{"a": 1}', encoding="utf-8")
    assert read_small_text(good) == '{"a": 1}'
    fifo = tmp_path / "prices.fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 11)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b"\xff\xfe")
    cases = {
        tmp_path / "none.json": "does not exist",
        fifo: "is a FIFO, a socket or a device, not a file",
        tmp_path: "is a folder, not a file",
        latin: "is not UTF-8 text",
    }
    for path, reason in cases.items():
        with pytest.raises(SmallFileError) as refused:
            read_small_text(path)
        assert str(refused.value) == reason, path
    with pytest.raises(SmallFileError, match="^is larger than 10 bytes$"):
        read_small_text(big, limit=10)
    assert read_small_text(big, limit=11) == " " * 11


def test_report_prices_naming_a_fifo_is_one_line_not_a_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "prices.fifo"
    os.mkfifo(fifo)
    logs = tmp_path / "logs"
    logs.mkdir()
    out = tmp_path / "out"
    assert cli_main(["report", str(logs), "-o", str(out), "--prices", str(fifo)]) == 1
    err = capsys.readouterr().err
    assert f"cannot use prices file {fifo}: it is a FIFO, a socket or a device, not a file" in err
    assert "Traceback" not in err and not out.exists()


def test_a_key_given_twice_in_a_prices_file_is_refused_by_name(tmp_path: Path) -> None:
    """JSON's last value would win: which price was meant is left to chance."""
    from bedside_bench.report.run import ReportError, load_prices

    prices = tmp_path / "prices.json"
    prices.write_text('{"openai/gpt-4.1": {"input": 1, "input": 2, "output": 8}}')
    with pytest.raises(ReportError) as refused:
        load_prices(prices)
    assert str(refused.value) == (
        f"cannot use prices file {prices}: the key 'input' is given twice in one JSON object"
    )
