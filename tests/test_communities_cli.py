"""`reportgen communities` and the global query's command function on the sample."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def ledger(tmp_path):
    shutil.copytree(ROOT / "claims", tmp_path / "claims")
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    return tmp_path / "claims"


def test_communities_prints_levels_summaries_and_counts(ledger):
    r = CliRunner().invoke(main, ["communities", str(ledger)])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("level 0: ")
    assert "[@s3-5]" in r.output
    assert "summaries: 0 reused, " in r.output and "0 removed; 0 sentences dropped" in r.output
    again = CliRunner().invoke(main, ["communities", str(ledger)])
    n = r.output.count("\n  c")
    assert f"summaries: {n} reused, 0 written, 0 removed" in again.output


def test_json_is_the_same_bytes_in_two_processes(ledger, monkeypatch):
    """This process (through the CLI), then a fresh one with a hash seed other than this
    process's: the same bytes."""
    monkeypatch.chdir(ledger.parent)
    r = CliRunner().invoke(main, ["communities", str(ledger), "--json"])
    assert r.exit_code == 0, r.output
    seed = "2" if os.environ.get("PYTHONHASHSEED") != "2" else "3"
    p = subprocess.run([sys.executable, "-m", "reportgen", "communities", str(ledger),
                        "--json"], capture_output=True, cwd=ledger.parent,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed))
    assert p.returncode == 0, p.stderr
    assert r.stdout_bytes == p.stdout
    data = json.loads(p.stdout)
    c = data["levels"][0]["communities"][0]
    assert set(c) >= {"id", "members", "edges", "gaps", "fingerprint", "parent", "summary"}
    assert all(s["citations"] for lv in data["levels"] for c in lv["communities"]
               for s in c["summary"])
    assert b"summaries:" not in p.stdout and b"summaries:" in p.stderr
    assert "summaries:" not in r.stdout and "summaries:" in r.stderr


def test_model_summaries_without_a_key_exit_1_with_the_fix(ledger, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    r = CliRunner().invoke(main, ["communities", str(ledger), "--model"])
    assert r.exit_code == 1
    assert "ANTHROPIC_API_KEY is not set" in r.output


def test_an_invalid_ledger_is_a_message_not_a_traceback(tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "R.yaml").write_text("report: [\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["communities", str(tmp_path / "bad")])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "R.yaml" in r.output


def test_global_query_without_a_key_answers_extractively(ledger, monkeypatch):
    from reportgen.cli.communities import global_query

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    import click

    @click.command()
    def cmd():
        global_query("Which suppliers does Sungrow buy from?", str(ledger))

    r = CliRunner().invoke(cmd, [])
    assert r.exit_code == 0, r.output
    assert "extractive" in r.output and "[@s3-5]" in r.output
    assert "calls: 0 (0 from cache)" in r.output


def test_query_global_answers_with_cited_sentences_without_a_key(ledger, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    r = CliRunner().invoke(main, ["query", "--global", "Which suppliers does Sungrow buy from?",
                                  str(ledger)])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("plan: 3 communities at level 0, 0 map calls and 0 reduce calls")
    cited = [ln for ln in lines if ln.startswith("  ")]
    assert cited and all(ln.rstrip().endswith("]") and "[@s3-" in ln for ln in cited)
    assert "communities used: c" in r.output


def test_query_global_dry_run_with_a_key_plans_the_model_calls(ledger, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-never-sent")
    r = CliRunner().invoke(main, ["query", "--global", "storage customers", str(ledger),
                                  "--dry-run", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output.splitlines()[0])
    assert out["dry_run"] and out["mode"] == "model" and out["answer"] == []
    assert out["plan"]["map_calls"] == 1 and out["usage"]["calls"] == 0
