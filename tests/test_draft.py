"""`reportgen draft` through recorded responses replayed to the real anthropic client: an
undeclared relation (rejected by vocabulary), a quote that is not on its page (anchor), a
value that is not in its quote (values) and correct records (kept, written with
`draft: true`, verified by `reportgen verify`, marked on the site); a rerun is answered
from the cache. The drafting tests share one workspace and run as one test (`check_*`,
each reported by name when it fails), so pytest-xdist builds the workspace once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from llmkit import Replay, make_model, tool_response
from mcpkit import ROOT, indexed_sample_workspace

from reportgen.cli import main
from reportgen.draft.pages import batches
from reportgen.draft.run import draft

SUMMARY = ("draft 300274 p.36-36 (1 batch): emitted=6 rejected: vocabulary=1 anchor=1 "
           "values=1 ledger=0; kept=3 (50% verified)")


@pytest.fixture(scope="module")
def ws(tmp_path_factory, run_once) -> Path:
    return indexed_sample_workspace(tmp_path_factory.mktemp("draft"), run_once)


@pytest.fixture(scope="module")
def drafted(ws: Path):
    replay = Replay("draft/p36")
    model = make_model(replay, ws / ".reportgen" / "llm")
    res = draft([ws / "claims"], "300274", model, pages=(36, 36))
    return res, replay, model, ws


def check_summary_counts_each_check(drafted) -> None:
    res, _, _, _ = drafted
    assert res.summary() == SUMMARY
    assert res.out.name == "300274.yaml" and res.out.parent.name == "drafts"


def check_the_model_is_forced_to_the_tool_with_the_vocabulary_and_the_page(drafted) -> None:
    _, replay, model, _ = drafted
    (body,) = replay.bodies()
    assert body["tool_choice"] == {"type": "tool", "name": "record_draft"}
    payload = json.loads(body["messages"][0]["content"])
    assert payload["document"]["id"] == "300274"
    assert "buys_from" in payload["vocabulary"]["relations"]
    assert payload["vocabulary"]["entity_types"] == ["Company", "Project"]
    (page,) = payload["pages"]
    assert page["page"] == 36 and "前五名供应商" in page["text"]
    assert (model.usage.calls, model.usage.input_tokens) == (1, 9412)


def check_each_rejection_says_why(drafted) -> None:
    res, _, _, _ = drafted
    why = {(r.kind, r.n): (r.stage, r.reason) for r in res.records if not r.kept}
    stage, reason = why[("relation", 2)]
    assert stage == "vocabulary" and "purchases_cells_from" in reason
    stage, reason = why[("fact", 1)]  # 14.95% for the page's 14.59%
    assert stage == "anchor" and "closest text on p.36" in reason
    stage, reason = why[("fact", 2)]  # quote right, share=15.49 nowhere in it
    assert stage == "values" and "share=15.49" in reason
    assert {(r.kind, r.n) for r in res.records if r.kept} == {
        ("entity", 1), ("relation", 1), ("fact", 3)}


def check_written_file_marks_every_record_and_verifies(drafted) -> None:
    res, _, _, ws = drafted
    data = yaml.safe_load(res.out.read_text(encoding="utf-8"))
    records = data["claims"] + data["edges"] + data["entities"]
    assert len(data["claims"]) == 2 and len(data["edges"]) == 1
    assert all(r["draft"] is True for r in records)
    assert data["edges"][0] == {"from": "阳光电源", "relation": "buys_from", "to": "欣旺达",
                                "anchors": ["draft-300274-r1"], "draft": True}
    r = CliRunner().invoke(main, ["verify", str(ws / "claims"), str(res.out)])
    assert r.exit_code == 0, r.output
    assert "draft-300274: facts=2 hits=2 misses=0" in r.output.splitlines()
    assert r.output.splitlines()[-1] == "TOTAL: facts=31 hits=31 misses=0"


def check_a_rerun_is_answered_from_the_cache(drafted) -> None:
    ws = drafted[3]
    replay = Replay()  # no recorded response: a request would fail the run
    model = make_model(replay, ws / ".reportgen" / "llm")
    res = draft([ws / "claims"], "300274", model, pages=(36, 36),
                out=ws / "drafts" / "again.yaml")
    assert not replay.requests and (model.usage.calls, model.usage.cached) == (0, 1)
    assert res.summary() == SUMMARY


def check_the_site_shows_drafts_as_unreviewed(drafted) -> None:
    from reportgen.site.build import build

    res, _, _, ws = drafted
    r = build([ws / "claims", res.out], ws / "site")
    assert r.ok, r.text
    page = (ws / "site" / "draft-300274.html").read_text(encoding="utf-8")
    assert page.count("Draft, unreviewed") == 3  # two claims and the edge
    assert "Draft, unreviewed" not in (ws / "site" / "S2.html").read_text(encoding="utf-8")
    recs = [json.loads(x) for x in (ws / "site" / "evidence.jsonl").read_text(
        encoding="utf-8").splitlines()]
    drafts = [x for x in recs if x.get("draft")]
    assert {x["id"] for x in drafts if x.get("type") != "edge"} == {"draft-300274-r1",
                                                                     "draft-300274-f3"}
    (edge,) = [x for x in drafts if x.get("type") == "edge"]
    assert edge["anchors"] == ["draft-300274-r1"] and edge["report"] == "draft-300274"


def check_what_the_ledger_refuses_is_dropped_and_counted(drafted) -> None:
    """The quote stands on its page, but it does not name 瑞浦兰钧: the graph rule (edge
    evidence names its ends) refuses the edge when the file is verified with the ledger."""
    wrong = {"entities": [], "facts": [], "relations": [
        {"from": "阳光电源", "relation": "buys_from", "to": "瑞浦兰钧", "page": 36,
         "quote": "4 欣旺达 1,210,902,177.36 2.55%", "values": {"share": 2.55}}]}
    ws = drafted[3]
    model = make_model(Replay(tool_response("record_draft", wrong)))
    res = draft([ws / "claims"], "300274", model, pages=(36, 36),
                out=ws / "drafts" / "refused.yaml")
    (rec,) = res.records
    assert rec.stage == "ledger" and "瑞浦兰钧" in rec.reason
    assert res.counts()["ledger"] == 1 and res.counts()["kept"] == 0
    assert "edges:" not in res.out.read_text(encoding="utf-8")


def check_long_ranges_go_in_page_batches_one_call_each(drafted) -> None:
    ws = drafted[3]
    replay = Replay("draft/empty", "draft/p36")
    res = draft([ws / "claims"], "300274", make_model(replay), pages=(35, 36),
                out=ws / "drafts" / "two.yaml", batch_chars=100)
    assert [[p["page"] for p in json.loads(b["messages"][0]["content"])["pages"]]
            for b in replay.bodies()] == [[35], [36]]
    assert res.summary() == SUMMARY.replace("p.36-36 (1 batch)", "p.35-36 (2 batches)")


def test_draft_session(drafted) -> None:
    failed = []
    for name, check in sorted(globals().items()):
        if name.startswith("check_"):
            try:
                check(drafted)
            except AssertionError as e:
                failed.append(f"{name}: {e}")
    assert not failed, "\n".join(failed)


def test_pages_are_batched_within_the_limit() -> None:
    pages = [(1, "a" * 50), (2, "b" * 50), (3, "c" * 120), (4, ""), (5, "e" * 10)]
    assert [[p for p, _ in b] for b in batches(pages, 100)] == [[1, 2], [3], [4, 5]]


def test_without_a_key_the_command_says_so(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # refused before anything is read or written
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    r = CliRunner().invoke(main, ["draft", "300274", "claims"])
    assert r.exit_code == 1 and "ANTHROPIC_API_KEY is not set" in r.output


@pytest.mark.parametrize("args, code, words", [
    (["draft", "300274", "--pages", "9-3"], 2, "A is at most B"),
    (["draft", "300274", "--pages", "x"], 2, "not a page range"),
    (["draft", "nope", "claims"], 1, "unknown document 'nope'"),
])
def test_bad_input_is_refused(monkeypatch, args, code, words) -> None:
    monkeypatch.chdir(ROOT)  # each is refused before the model is called or a file written
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    r = CliRunner().invoke(main, args)
    assert r.exit_code == code and words in r.output, r.output


@pytest.mark.parametrize("text", ["a\u2028b", "x\u0085y", "p\u2029q", 'say "hi"\\', "3.50"])
def test_drafted_quote_with_a_line_separator_reads_back_unchanged(text: str) -> None:
    """A quote the model copied with a line separator is written so YAML reads it back
    as the same characters, which the anchor rule then checks."""
    import yaml
    from reportgen.draft.write import q

    assert yaml.safe_load(f"quote: {q(text)}")["quote"] == text
