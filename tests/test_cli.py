"""The CLI's contract: lazy imports, usage errors exit 2, no tracebacks."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from reportgen.cli import main


def test_help_does_not_import_pymupdf() -> None:
    code = ("import sys\nfrom click.testing import CliRunner\nfrom reportgen.cli import main\n"
            "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
            "heavy = [m for m in ('pymupdf', 'fitz', 'jinja2', 'PIL', 'yaml') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_command_has_help() -> None:
    for name, cmd in main.commands.items():
        res = CliRunner().invoke(main, [name, "--help"])
        assert res.exit_code == 0, name
        assert cmd.help, f"{name} has no help text"


def test_unknown_command_is_usage_error() -> None:
    assert CliRunner().invoke(main, ["frobnicate"]).exit_code == 2


def test_internal_errors_are_one_line(monkeypatch, capsys) -> None:
    """The console entry point turns a bug into one line on stderr, never a traceback."""
    import pytest

    import reportgen.verify.run as run_module
    from reportgen.cli import run

    def boom(*a, **k):
        raise RuntimeError("kaput")

    monkeypatch.setattr(run_module, "verify", boom)
    monkeypatch.delenv("REPORTGEN_DEBUG", raising=False)
    monkeypatch.setattr(sys, "argv", ["reportgen", "verify"])
    with pytest.raises(SystemExit) as ei:
        run()
    assert ei.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("reportgen: internal error: RuntimeError: kaput; this is a bug")