"""Hardening 13: a workspace handed over with a `.reportgen/` folder of its own (verdicts,
crops, kept PDFs, template bytecode, the no-op record) cannot make a build trust it.

Its author has the same reportgen and may compute every name and checksum the code
computes, except under the user's key (`reportgen.cachekey`): each step runs in its own
process with its own REPORTGEN_KEY_FILE, as it would on two machines."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
QUOTE = '"供应商一 6,928,853,013.03 14.59%"'
ABSENT = '"独家供应商一 6,928,853,013.03 14.59%"'  # not on p.36: a miss

FORGE = """
import sys
from pathlib import Path

import pytest
from reportgen.ledger import load_ledger
from reportgen.model import Anchor, FactResult
from reportgen.pdf.files import sha256_file
from reportgen.verify.cache import VerdictCache
ledger = load_ledger([Path("claims")])
fact = ledger.claims["s2-4"]
sha = sha256_file(ledger.documents[fact.doc].path)
box = (100.0, 200.0, 300.0, 210.0)
hit = FactResult(fact.id, "hit", Anchor(36, 36, box, "exact", ((36, box),)), sha, "")
VerdictCache.for_ledger(ledger).put(sha, [(fact, hit)])
"""


def _workspace(tmp: Path, quote: str = QUOTE) -> Path:
    ws = tmp / "ws"
    shutil.copytree(ROOT / "claims", ws / "claims")
    shutil.copytree(ROOT / "samples" / "pdfs", ws / "samples" / "pdfs")
    s2 = ws / "claims" / "S2.yaml"
    s2.write_text(s2.read_text(encoding="utf-8").replace(QUOTE, quote), encoding="utf-8")
    return ws


def _run(ws: Path, key: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), REPORTGEN_KEY_FILE=str(key),
               SOURCE_DATE_EPOCH="0")
    env.pop("REPORTGEN_VERDICT_CACHE", None)
    return subprocess.run([sys.executable, *args], cwd=ws, env=env, capture_output=True,
                          text=True, timeout=120)  # a FIFO once hung the build


def test_hardening_13_a_workspace_cannot_bring_a_verdict_that_turns_a_miss_into_a_hit(tmp_path):
    ws = _workspace(tmp_path, ABSENT)
    author, user = tmp_path / "author.key", tmp_path / "user.key"
    assert _run(ws, author, "-c", FORGE).returncode == 0
    # the author's own key would take it: the key is all that stands in the way
    assert "TOTAL: facts=29 hits=29 misses=0" in _run(ws, author, "-m", "reportgen",
                                                      "verify", "claims").stdout
    got = _run(ws, user, "-m", "reportgen", "verify", "claims")
    assert got.returncode == 1
    assert "MISS s2-4 300274 p.36" in got.stdout
    assert "TOTAL: facts=29 hits=28 misses=1" in got.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The sample workspace built once under its author's key (`built/author.key`): the
    site a clean build makes, and the `.reportgen/` a workspace would arrive with."""
    tmp = tmp_path_factory.mktemp("built")
    ws = _workspace(tmp)
    got = _run(ws, tmp / "author.key", "-m", "reportgen", "build", "claims", "--out", "site")
    assert got.returncode == 0, got.stderr
    return tmp


def _copy(built: Path, tmp: Path) -> Path:
    """A copy of the built workspace (its no-op record names the original's paths, so a
    build of the copy is a full one) with the author's key beside it."""
    shutil.copytree(built / "ws", tmp / "ws", symlinks=True)
    shutil.copy2(built / "author.key", tmp / "author.key")
    return tmp / "ws"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_hardening_13_a_workspace_cannot_bring_crops_pdfs_or_a_no_op_record(tmp_path, built):
    clean = built / "ws"
    ws = _workspace(tmp_path / "handed")
    author, user = tmp_path / "author.key", tmp_path / "user.key"
    assert _run(ws, author, "-m", "reportgen", "build", "claims", "--out", "site").returncode == 0
    # the author swaps every cached crop and kept PDF for other bytes under the same
    # names, and forges the site's evidence with its size and mtime kept, so the no-op
    # record still describes the site
    cache = ws / ".reportgen" / "cache"
    forged_png = (ROOT / "samples" / "screenshot-s2.png").read_bytes()
    forged_pdf = (ROOT / "samples" / "pdfs" / "300014.pdf").read_bytes()
    for folder, data in ((cache / "crops", forged_png), (cache / "pdfs", forged_pdf)):
        for p in folder.iterdir():
            p.unlink()  # a new file: the site's hard links keep the old bytes
            p.write_bytes(data)
    evidence = ws / "site" / "evidence.jsonl"
    st = evidence.stat()
    evidence.write_bytes(b"x" * st.st_size)
    os.utime(evidence, ns=(st.st_atime_ns, st.st_mtime_ns))
    # under the author's key the record is taken: nothing checked, the forgery stays
    assert _run(ws, author, "-m", "reportgen", "build", "claims", "--out", "site").returncode == 0
    assert evidence.read_bytes() == b"x" * st.st_size
    # the user's build checks every fact and draws every crop again
    got = _run(ws, user, "-m", "reportgen", "build", "claims", "--out", "site")
    assert got.returncode == 0 and "TOTAL: facts=29 hits=29 misses=0" in got.stdout
    site, want = _files(ws / "site"), _files(clean / "site")
    assert site["evidence.jsonl"] == want["evidence.jsonl"]
    crops = [n for n in want if n.startswith("anchors/")]
    pdfs = [n for n in want if n.startswith("pdfs/")]
    assert crops and pdfs
    assert all(site[n] == want[n] for n in crops + pdfs)


def test_hardening_13_template_bytecode_a_workspace_brings_is_never_loaded(tmp_path, built):
    ws = _copy(built, tmp_path)
    user = tmp_path / "user.key"
    jinja = ws / ".reportgen" / "cache" / "jinja"
    brought = set(os.listdir(jinja))
    assert brought
    assert _run(ws, user, "-m", "reportgen", "build", "claims", "--out", "other").returncode == 0
    # the user's build compiled the templates under names of its own
    assert len(set(os.listdir(jinja)) - brought) == len(brought)


def test_hardening_13_community_summaries_a_workspace_brings_are_not_reused(tmp_path):
    """`reportgen communities` keeps summaries in `.reportgen/communities/`; global answers
    are made of their sentences. A workspace's own are never taken, nor one edited."""
    ws = _workspace(tmp_path)
    author, user = tmp_path / "author.key", tmp_path / "user.key"
    kept = ws / ".reportgen" / "communities"
    first = _run(ws, author, "-m", "reportgen", "communities", "claims")
    assert first.returncode == 0 and " 0 reused, 4 written," in first.stdout
    brought = set(kept.rglob("*.json"))
    # under the author's key they are reused, which the user's key never does
    assert " 4 reused, 0 written," in _run(ws, author, "-m", "reportgen", "communities",
                                           "claims").stdout
    got = _run(ws, user, "-m", "reportgen", "communities", "claims")
    assert got.returncode == 0 and " 0 reused, 4 written," in got.stdout
    # the user's own entries, edited, are written again rather than reused
    edited = 0
    for p in set(kept.rglob("*.json")) - brought:
        text = p.read_text(encoding="utf-8")
        if "CATL" in text:
            os.chmod(p, 0o644)
            p.write_text(text.replace("CATL", "Forged Ltd"), encoding="utf-8")
            edited += 1
    assert edited
    again = _run(ws, user, "-m", "reportgen", "communities", "claims")
    assert "Forged Ltd" not in again.stdout and f" {edited} written," in again.stdout


def test_hardening_13_a_model_response_a_workspace_brings_is_never_taken(tmp_path, monkeypatch):
    """The response cache (`.reportgen/llm/`) answers a rerun without a call; drafts and
    model-written summaries are made of its entries."""
    from reportgen.cachekey import ENV, machine_key
    from reportgen.llm.cache import ResponseCache, cache_key

    folder = tmp_path / ".reportgen" / "llm"
    key = cache_key("claude", "summary", "0" * 64, {"community": "c1"})
    entry = {"model": "claude", "prompt": "summary", "response": {"sentences": ["x [@s3-4]"]}}

    def as_(who: str) -> ResponseCache:
        monkeypatch.setenv(ENV, str(tmp_path / f"{who}.key"))
        machine_key.cache_clear()
        return ResponseCache(folder)

    try:
        as_("author").put(key, entry)
        assert as_("author").get(key) is not None  # under the author's key it is taken
        assert as_("user").get(key) is None
        mine = as_("user")
        mine.put(key, entry)
        assert mine.get(key)["response"] == entry["response"]
        for p in folder.rglob("*.json"):  # every entry edited: none is taken
            os.chmod(p, 0o644)
            p.write_text(p.read_text(encoding="utf-8").replace("x [@s3-4]", "forged [@s3-4]"),
                         encoding="utf-8")
        assert as_("user").get(key) is None
    finally:
        machine_key.cache_clear()


def _no_op_record_cases(state: Path) -> dict[str, object]:
    rec = state / "site.fingerprint.json"
    return {
        "deep": lambda: rec.write_text("[" * 200_000 + "]" * 200_000),
        "dev-zero": lambda: rec.symlink_to("/dev/zero"),
        "fifo": lambda: os.mkfifo(rec),
        "not-json": lambda: rec.write_bytes(b"\xff\xfe{"),
    }


@pytest.mark.parametrize("case", ["deep", "dev-zero", "fifo", "not-json"])
def test_hardening_13_a_no_op_record_a_workspace_brings_is_read_bounded(tmp_path, built,
                                                                          case):
    """The no-op record's name is fixed, so a workspace can put anything there: a JSON
    nested past the parser's depth was an internal error (RecursionError), a symlink to
    /dev/zero a MemoryError, a FIFO a hang. Each is now a record that is not ours."""
    ws = _copy(built, tmp_path)
    key = tmp_path / "author.key"
    state = ws / ".reportgen"
    (state / "site.fingerprint.json").unlink()
    _no_op_record_cases(state)[case]()
    got = _run(ws, key, "-m", "reportgen", "build", "claims", "--out", "site")
    assert got.returncode == 0, got.stderr
    assert got.stdout.endswith("TOTAL: facts=29 hits=29 misses=0\n") and got.stderr == ""


@pytest.mark.parametrize("case", ["symlink", "fifo"])
def test_hardening_13_a_lock_a_workspace_brings_is_neither_followed_nor_waited_on(
        tmp_path, case):
    ws = _workspace(tmp_path)
    state = ws / ".reportgen"
    state.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    if case == "symlink":
        (state / "site.lock").symlink_to(victim)
    else:
        os.mkfifo(state / "site.lock")
    got = _run(ws, tmp_path / "user.key", "-m", "reportgen", "build", "claims", "--out", "site")
    assert got.returncode != 0 and "site.lock" in got.stderr and "remove it" in got.stderr
    assert "Traceback" not in got.stderr and "internal error" not in got.stderr
    assert victim.read_text(encoding="utf-8") == "keep me"
