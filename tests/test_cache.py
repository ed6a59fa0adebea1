"""The verdict cache: never changes a verdict, survives a corrupted or foreign cache, and
serves a run after a build without opening (or even importing the reader of) a PDF."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.verify.cache import ENV, VerdictCache, default_folder
from reportgen.verify.records import verdict_records
from reportgen.verify.run import verify

REPO = Path(__file__).resolve().parent.parent


def _copy(tmp: Path) -> Path:
    shutil.copytree(REPO / "claims", tmp / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", tmp / "samples" / "pdfs")
    return tmp / "claims"


def _json(claims: Path) -> str:
    """`verify --json` as text (the library call behind it)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n"
                   for r in verdict_records(verify([claims])))


def _uncached(claims: Path, monkeypatch) -> str:
    with monkeypatch.context() as m:
        m.setenv(ENV, "off")
        return _json(claims)


def _keys(claims: Path, doc: str | None = None) -> int:
    """How many entries the ledger's facts make: one per (document, page, quote)."""
    from reportgen.ledger import load_ledger
    from reportgen.model import Fact

    return len({(c.doc, c.page, c.quote) for c in load_ledger([claims]).claims.values()
                if isinstance(c, Fact) and doc in (None, c.doc)})


def _packs(claims: Path) -> list[Path]:
    """The cache's files: one pack per document's bytes."""
    return sorted((claims.parent / ".reportgen" / "cache" / "verdicts").rglob("*.json"))


def _entries(claims: Path) -> int:
    """How many verdicts the packs hold."""
    return sum(len(json.loads(p.read_text(encoding="utf-8"))["entries"])
               for p in _packs(claims))


@pytest.fixture()
def sample(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv(ENV, raising=False)
    return _copy(tmp_path)


def test_cached_and_uncached_verdicts_are_identical(sample, monkeypatch):
    plain = _uncached(sample, monkeypatch)
    assert not _packs(sample)  # `off` writes nothing
    first = _json(sample)  # fills the cache
    assert _entries(sample) == _keys(sample) > 20
    assert _json(sample) == first == plain


def test_a_changed_quote_is_checked_again(sample, monkeypatch):
    _json(sample)
    before = _entries(sample)
    s2 = sample / "S2.yaml"
    text = s2.read_text(encoding="utf-8")
    assert '"供应商一 6,928,853,013.03 14.59%"' in text
    s2.write_text(text.replace('"供应商一 6,928,853,013.03 14.59%"',
                               '"供应商二 6,928,853,013.03 14.59%"'), encoding="utf-8")
    got = _json(sample)
    assert got == _uncached(sample, monkeypatch)
    assert '"id": "s2-4", "report": "S2", "kind": "fact", "status": "miss"' in got
    assert _entries(sample) == before + 1  # the new quote's verdict, the old kept


def test_a_changed_pdf_is_checked_again(sample, monkeypatch):
    _json(sample)
    pdf = sample.parent / "samples" / "pdfs" / "300274.pdf"
    docs = sample / "documents.yaml"
    # another file under the same name: the pin fails, whatever the cache holds
    pdf.write_bytes(pdf.read_bytes() + b"\n%junk\n")
    cached = verify([sample]).problems
    with monkeypatch.context() as m:
        m.setenv(ENV, "off")
        plain = verify([sample]).problems
    assert [str(p) for p in cached] == [str(p) for p in plain]
    assert len(cached) == 1 and "SHA-256" in str(cached[0]).upper()
    assert _json(sample) == _uncached(sample, monkeypatch)
    # unpinned, the new bytes are checked (no entry of the old bytes is used)
    docs.write_text("\n".join(line for line in docs.read_text(encoding="utf-8").splitlines()
                              if "5b2325c2" not in line) + "\n", encoding="utf-8")
    before = _entries(sample)
    assert _json(sample) == _uncached(sample, monkeypatch)
    assert _entries(sample) == before + _keys(sample, "300274")
    assert len(_packs(sample)) == 4  # the new bytes have a pack of their own


def _rewrite(pack: Path, change) -> None:
    """Edit a pack's entries in place (packs are written read-only)."""
    os.chmod(pack, 0o644)
    data = json.loads(pack.read_text(encoding="utf-8"))
    change(data["entries"])
    pack.write_text(json.dumps(data), encoding="utf-8")


def test_corrupted_and_foreign_entries_are_ignored(sample, monkeypatch):
    plain = _uncached(sample, monkeypatch)
    _json(sample)
    a, b, c = _packs(sample)

    def forge(entries: dict) -> None:
        # a verdict edited without its checksum, another key's entry under this key's
        # name, an entry of the wrong shape
        names = sorted(entries)
        rec = entries[names[0]]
        if rec["verdict"]["anchor"]:
            rec["verdict"]["anchor"]["bbox"][0] += 10
        rec["verdict"]["message"] = "forged"
        entries[names[1]] = entries[names[2]]
        entries[names[3]] = {"key": 1, "verdict": {"status": "hit"}}

    _rewrite(a, forge)
    os.chmod(b, 0o644)
    b.write_bytes(b.read_bytes()[:40])  # truncated
    c.unlink()
    c.symlink_to(a)  # a symlink in a pack's place
    assert _json(sample) == plain
    # the packs written again, then: not JSON, a FIFO, entries that are not a mapping
    shutil.rmtree(sample.parent / ".reportgen")
    _json(sample)
    a, b, c = _packs(sample)
    os.chmod(a, 0o644)
    a.write_bytes(b"\xff\xfe not json")
    b.unlink()
    os.mkfifo(b)
    os.chmod(c, 0o644)
    c.write_text(json.dumps({"format": 2, "entries": [1, 2]}), encoding="utf-8")
    assert _json(sample) == plain


def test_a_cold_run_writes_one_cache_file_per_document_not_one_per_fact(sample, monkeypatch):
    """Each fact's verdict was a file of its own: 26 new files for the sample, 1,000 for
    the scale bench, each costing more than its bytes. Now one pack per document."""
    plain = _uncached(sample, monkeypatch)
    assert _json(sample) == plain
    assert len(_packs(sample)) == 3 and _entries(sample) == _keys(sample)


def test_a_full_pack_keeps_the_verdicts_the_run_used(sample, monkeypatch):
    """A pack past MAX_KEPT entries drops the verdicts no fact of the run asked for."""
    from reportgen.verify import cache

    _json(sample)
    monkeypatch.setattr(cache, "MAX_KEPT", _keys(sample, "300274"))
    s2 = sample / "S2.yaml"
    text = s2.read_text(encoding="utf-8")
    s2.write_text(text.replace('"供应商一 6,928,853,013.03 14.59%"',
                               '"供应商二 6,928,853,013.03 14.59%"'), encoding="utf-8")
    got = _json(sample)
    assert got == _uncached(sample, monkeypatch)
    # the old quote's verdict went, the new one's came: as many entries as facts
    assert _entries(sample) == _keys(sample)
    assert _json(sample) == got


def test_a_run_after_a_build_opens_no_pdf(sample):
    """Served from the cache, verify does not even import PyMuPDF."""
    _json(sample)
    code = ("import sys; from reportgen.verify.run import verify; "
            f"v = verify([__import__('pathlib').Path({str(sample)!r})]); "
            "print(v.ok, 'pymupdf' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop(ENV, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.split() == ["True", "False"]


def test_build_output_is_byte_identical_with_the_cache(sample, tmp_path, monkeypatch):
    from reportgen.site.build import build

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")

    def tree(out: Path) -> dict[str, bytes]:
        return {str(p.relative_to(out)): p.read_bytes()
                for p in sorted(out.rglob("*")) if p.is_file()}

    with monkeypatch.context() as m:
        m.setenv(ENV, "off")
        assert build([sample], tmp_path / "a").ok
    assert build([sample], tmp_path / "b").ok  # fills the cache
    assert build([sample], tmp_path / "c").ok  # served from it
    a, c = tree(tmp_path / "a"), tree(tmp_path / "c")
    assert a == c


def test_cache_location(tmp_path, monkeypatch):
    from reportgen.ledger import load_ledger

    monkeypatch.delenv(ENV, raising=False)
    ledger = load_ledger([_copy(tmp_path)])
    assert default_folder(ledger) == tmp_path.resolve() / ".reportgen" / "cache" / "verdicts"
    monkeypatch.setenv(ENV, "off")
    assert VerdictCache.for_ledger(ledger).folder is None
    monkeypatch.setenv(ENV, str(tmp_path / "elsewhere"))
    assert default_folder(ledger) == tmp_path / "elsewhere"


def test_hardening_cache_never_hashes_what_the_reader_refuses(tmp_path):
    """Regression: the cache's hash ran before the reader's header and size checks, so a
    64 GB sparse file named as a document was read to its end."""
    from reportgen.verify.cache import MAX_HASHED, file_sha256

    big = tmp_path / "big.pdf"
    with open(big, "wb") as f:
        f.write(b"%PDF-1.7\n")
        f.truncate(MAX_HASHED + 1)
    assert file_sha256(big) is None
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"\0" * 4096)
    assert file_sha256(junk) is None
    os.mkfifo(tmp_path / "fifo.pdf")
    assert file_sha256(tmp_path / "fifo.pdf") is None  # never blocks
    ok = tmp_path / "ok.pdf"
    ok.write_bytes(b"%PDF-1.7\nhello")
    import hashlib

    assert file_sha256(ok) == hashlib.sha256(ok.read_bytes()).hexdigest()


def test_jobs_share_the_cache(sample, monkeypatch):
    """Forked workers fill and read the same entries; the verdicts are those of one process."""
    plain = _uncached(sample, monkeypatch)

    def run(jobs: int) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n"
                       for r in verdict_records(verify([sample], jobs=jobs)))

    assert run(2) == plain  # fills the cache from two processes
    assert _entries(sample) == _keys(sample)
    assert run(2) == run(1) == plain


def test_a_query_after_a_build_opens_no_pdf(sample):
    """graph.md section 3: hop evidence is verified at query time, from the verdict cache
    when the PDFs are unchanged, so a query after a build does not even import PyMuPDF."""
    _json(sample)
    code = ("import sys, json; from pathlib import Path; "
            "from reportgen.ledger import load_ledger; "
            "from reportgen.graph.query import Options, query_ledger; "
            f"a = query_ledger(load_ledger([Path({str(sample)!r})]), '阳光电源 欣旺达', Options()); "
            "hops = [h for p in a.json['paths'] for h in p['hops']]; "
            "ev = [e['status'] for h in hops for e in h['evidence']]; "
            "print(a.json['status'], len(ev) > 0 and set(ev) == {'hit'}, 'pymupdf' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop(ENV, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.split() == ["ok", "True", "False"]


def _pdf_reads(claims: Path) -> int:
    """How many times one `verify` opens the ledger's PDFs (Python's `open` audit event, in
    a fresh process: audit hooks cannot be removed)."""
    code = ("import os, sys; from pathlib import Path; "
            "from reportgen.verify.run import verify; n = [0]; "
            "sys.addaudithook(lambda e, a: n.__setitem__(0, n[0] + 1) if e == 'open' "
            "and isinstance(a[0], (str, os.PathLike)) and os.fspath(a[0]).endswith('.pdf') "
            "else None); "
            f"v = verify([Path({str(claims)!r})]); print(v.ok, n[0])")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop(ENV, None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True).stdout.split()


def test_a_first_run_reads_each_pdf_once(sample):
    """An empty verdict cache finds nothing, so the reader's own hash serves: each of the
    three PDFs is read once, not hashed for the cache and then read again."""
    assert _pdf_reads(sample) == ["True", "3"]
    assert _pdf_reads(sample) == ["True", "3"]  # the second run: hashed only, never parsed


def test_a_partly_cached_document_is_read_once_not_hashed_then_read_again(sample):
    """A warm cache after an edit: the edited fact's document misses the verdict cache for
    one fact, and the bytes hashed for the lookup are the ones opened for that fact (it
    was hashed, then read again: 4 reads of the three PDFs, now 3)."""
    assert _pdf_reads(sample) == ["True", "3"]  # fills the cache
    s1 = sample / "S1.yaml"
    text = s1.read_text(encoding="utf-8")
    quote = "公司与海博思创、中车株洲所、思源电气等达成长期战略合作"
    assert text.count(quote) == 1
    s1.write_text(text.replace(quote, quote.removesuffix("长期战略合作")), encoding="utf-8")
    assert _pdf_reads(sample) == ["True", "3"]  # 300750: one fact to check, one read
    assert _pdf_reads(sample) == ["True", "3"]  # every verdict cached again

