"""The worked sample: the generated PDFs (samples/) and the claim ledger over them (claims/).

The PDF checks read the committed files back with PyMuPDF. The `verify` checks run the CLI on a
copy of claims/ and samples/pdfs/ in tmp_path (same relative layout), so they can break the copy
without touching the repository.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pymupdf
import pytest
import yaml
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
PDFS = ROOT / "samples" / "pdfs"
CLAIMS = ROOT / "claims"
DISCLAIMER = "合成样本 Synthetic sample modelled on publicly quoted figures; not the issuer's filing"
PAGES = {"300750": 232, "300014": 222, "300274": 230}
GENERATED_WITH = "1.28.2"  # the PyMuPDF the committed PDFs were written with

EXPECTED_LINES = [
    "S1: facts=8 hits=8 misses=0",
    "S2: facts=10 hits=10 misses=0",
    "S3: facts=11 hits=11 misses=0",
    "TOTAL: facts=29 hits=29 misses=0",
]
EXPECTED_KINDS = {
    "S1": {"fact": 8, "calc": 1, "inference": 2},
    "S2": {"fact": 10, "calc": 1, "inference": 1},
    "S3": {"fact": 11, "calc": 0, "inference": 2},
}
EXPECTED_DOCS = {"S1": {"300750", "300014"}, "S2": {"300274"}, "S3": {"300750", "300014", "300274"}}


def squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def page_text(code: str, page: int) -> str:
    with pymupdf.open(PDFS / f"{code}.pdf") as doc:
        return doc[page - 1].get_text()


def report_files() -> list[Path]:
    return sorted(p for p in CLAIMS.glob("*.yaml")
                  if p.name not in ("documents.yaml", "schema.yaml", "entities.yaml"))


def load_reports() -> dict[str, dict]:
    out = {}
    for p in report_files():
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
        out[data["report"]["id"]] = data
    return out


def all_facts() -> list[dict]:
    return [c for r in load_reports().values() for c in r["claims"] if c["kind"] == "fact"]


# ---- the PDFs ---------------------------------------------------------------------------


# One company per test, so the three regenerations (each a few seconds) run side by side
# under pytest-xdist. Each runs samples/generate.py's own build() in a fresh interpreter,
# as `samples/generate.py` does, so no state of this process can change the bytes.
REGENERATE = """
import sys
sys.path.insert(0, sys.argv[1])
import generate
company = next(c for c in generate.COMPANIES if c.code == sys.argv[2])
with open(sys.argv[3], "wb") as f:
    f.write(generate.build(company))
"""


@pytest.mark.slow
@pytest.mark.parametrize("code", sorted(PAGES))
def test_regenerating_gives_identical_bytes(tmp_path: Path, code: str) -> None:
    if pymupdf.VersionBind != GENERATED_WITH:
        pytest.skip(f"committed PDFs were written with PyMuPDF {GENERATED_WITH}, "
                    f"not {pymupdf.VersionBind}")
    out = tmp_path / f"{code}.pdf"
    subprocess.run([sys.executable, "-c", REGENERATE, str(ROOT / "samples"), code, str(out)],
                   check=True, capture_output=True)
    new = out.read_bytes()
    old = (PDFS / f"{code}.pdf").read_bytes()
    assert new == old, f"{code}.pdf differs from a fresh run of samples/generate.py"


def test_generator_writes_every_sample_pdf() -> None:
    """The per-company regeneration above covers every PDF the generator writes."""
    sys.path.insert(0, str(ROOT / "samples"))
    try:
        import generate
    finally:
        sys.path.remove(str(ROOT / "samples"))
    assert {c.code: c.pages for c in generate.COMPANIES} == PAGES
    assert sorted(p.stem for p in PDFS.glob("*.pdf")) == sorted(PAGES)


@pytest.mark.parametrize("code,pages", sorted(PAGES.items()))
def test_page_counts_and_size(code: str, pages: int) -> None:
    path = PDFS / f"{code}.pdf"
    with pymupdf.open(path) as doc:
        assert doc.page_count == pages
    assert path.stat().st_size < 1.6 * 1024 * 1024


@pytest.mark.parametrize("code", sorted(PAGES))
def test_disclaimer_in_every_footer_and_in_metadata(code: str) -> None:
    with pymupdf.open(PDFS / f"{code}.pdf") as doc:
        meta = doc.metadata
        for field in ("subject", "keywords"):
            assert "not the issuer's filing" in meta[field]
        assert "Synthetic sample modelled on publicly quoted figures" in meta["subject"]
        assert "合成样本" in meta["title"]
        assert meta["creationDate"] == meta["modDate"] == "D:20260401000000Z"
        for page in doc:
            # a line of the page's bottom 60 points: the footer (only that band is read)
            r = page.rect
            footer = page.get_text(clip=pymupdf.Rect(r.x0, r.y1 - 60, r.x1, r.y1))
            assert DISCLAIMER in footer.splitlines(), \
                f"{code} p.{page.number + 1}: no disclaimer line in the footer"


@pytest.mark.parametrize("code", sorted(PAGES))
def test_running_header(code: str) -> None:
    with pymupdf.open(PDFS / f"{code}.pdf") as doc:
        name = doc[0].get_text().splitlines()[0]
        for pno in (2, 20, doc.page_count):
            lines = doc[pno - 1].get_text().splitlines()
            assert lines[:2] == [name, "2025年年度报告"]


KEY_FIGURES = [
    ("300274", 36, ["前五名供应商", "供应商一6,928,853,013.0314.59%", "明阳新能源", "2.83%",
                    "供应商二", "2.60%", "欣旺达", "2.55%", "瑞浦兰钧", "2.54%",
                    "合计--11,923,973,315.0025.12%", "前五名客户",
                    "AlgihazContracting4,010,035,531.924.50%"]),
    ("300274", 35, ["营业成本构成", "占营业成本比重",
                    "储能行业原材料20,216,949,877.1133.25%13,907,695,693.2425.50%"]),
    ("300274", 28, ["沙特7.8GWh储能项目", "全容量并网"]),
    ("300014", 16, ["Wärtsilä、ABB、台达电子、中国移动、南方电网、沃太能源"]),
    ("300750", 22, ["长期战略合作", "海博思创、中车株洲所、思源电气"]),
]


@pytest.mark.parametrize("code,page,needles", KEY_FIGURES, ids=[f"{c}-p{p}" for c, p, _ in
                                                                KEY_FIGURES])
def test_named_pages_hold_their_figures(code: str, page: int, needles: list[str]) -> None:
    text = squash(page_text(code, page))
    for needle in needles:
        assert squash(needle) in text, f"{code} p.{page}: {needle!r} missing"


def test_supplier_rows_two_to_five_sum_to_the_stated_amount() -> None:
    text = page_text("300274", 36)
    amounts = {}
    for name in ("供应商一", "明阳新能源", "供应商二", "欣旺达", "瑞浦兰钧"):
        m = re.search(re.escape(name) + r"\s+([\d,]+\.\d\d)\s+([\d.]+)%", text)
        assert m, name
        amounts[name] = float(m.group(1).replace(",", ""))
    rest = sum(v for k, v in amounts.items() if k != "供应商一")
    assert round(rest, 2) == 4995120301.97
    assert round(amounts["供应商一"] + rest, 2) == 11923973315.00
    assert round(amounts["供应商一"] / rest, 2) == 1.39


def test_latin_names_hold_real_characters() -> None:
    text = page_text("300014", 16)
    assert "W\u00e4rtsil\u00e4" in text  # precomposed ä, not a + combining diaeresis or a glyph id
    assert "\ufffd" not in text


def test_printed_folio_is_not_the_physical_page() -> None:
    lines = page_text("300274", 36).splitlines()
    assert lines[-2:] == ["34", DISCLAIMER]


# ---- the ledger -------------------------------------------------------------------------


def test_claim_counts_per_report() -> None:
    reports = load_reports()
    assert sorted(reports) == ["S1", "S2", "S3"]
    for rid, want in EXPECTED_KINDS.items():
        got = Counter(c["kind"] for c in reports[rid]["claims"])
        assert dict(got) == {k: v for k, v in want.items() if v}, rid
    assert sum(len(r["claims"]) for r in reports.values()) == 36
    assert len(all_facts()) == 29


def test_each_report_draws_on_its_documents() -> None:
    for rid, data in load_reports().items():
        docs = {c["doc"] for c in data["claims"] if c["kind"] == "fact"}
        assert docs == EXPECTED_DOCS[rid], rid


def test_documents_are_pinned_to_the_committed_pdfs() -> None:
    docs = yaml.safe_load((CLAIMS / "documents.yaml").read_text(encoding="utf-8"))["documents"]
    assert sorted(docs) == sorted(PAGES)
    for code, d in docs.items():
        path = (CLAIMS / d["file"]).resolve()
        assert path == (PDFS / f"{code}.pdf").resolve()
        assert d["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), code


def test_worked_case_claims() -> None:
    claims = {c["id"]: c for r in load_reports().values() for c in r["claims"]}
    s24 = claims["s2-4"]
    assert (s24["kind"], s24["doc"], s24["page"], s24["confidence"]) == ("fact", "300274", 36, 0.98)
    assert s24["values"] == {"amount": 6928853013.03, "share": 14.59}
    assert claims["s2-5"]["values"] == {"share": 2.55}
    assert claims["s2-6"]["values"] == {"share": 2.54}
    s211 = claims["s2-11"]
    assert s211["formula"] == "s2-4.share / (s2-5.share + s2-6.share)"
    assert (s211["result"], s211["tolerance"]) == (2.87, 0.02)
    assert s211["basis"] == ["s2-4", "s2-5", "s2-6"]
    assert claims["s2-12"]["kind"] == "inference" and claims["s2-12"]["confidence"] == 0.4


def test_edges_have_anchors_or_a_gap() -> None:
    reports = load_reports()
    facts = {c["id"] for c in all_facts()}
    edges = reports["S3"]["edges"]
    for e in edges:
        assert ("anchors" in e) != ("gap" in e), e
        for a in e.get("anchors", []):
            assert a in facts, e
    # CATL's partners are never upgraded to supply by an anchored edge
    for e in edges:
        if e["from"] == "宁德时代" and "anchors" in e:
            assert e["relation"] == "strategic_cooperation"
    gaps = {(e["from"], e["relation"], e["to"]) for e in edges if "gap" in e}
    assert ("阳光电源", "buys_cells_from", "供应商一") in gaps


@pytest.mark.parametrize("fact", all_facts(), ids=lambda c: c["id"])
def test_quote_is_on_the_named_page(fact: dict) -> None:
    """The anchor rule at its plainest: whitespace-stripped substring of the named page."""
    assert squash(fact["quote"]) in squash(page_text(fact["doc"], fact["page"]))


# ---- verify on a copy of the ledger -----------------------------------------------------


@pytest.fixture
def ledger_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(CLAIMS, tmp_path / "claims")
    shutil.copytree(PDFS, tmp_path / "samples" / "pdfs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_verify(*args: str):
    from reportgen.cli import main

    return CliRunner().invoke(main, ["verify", *args], catch_exceptions=False)


def test_verify_prints_the_totals(ledger_copy: Path) -> None:
    result = run_verify("claims")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == EXPECTED_LINES


def _mutate(quote: str, page_squashed: str) -> tuple[str, str | None, str | None]:
    """Change one digit of the quote (or, without digits, one letter) so that the result is
    not on the page. Returns the new quote and, if a number changed, its old and new text."""
    for m in re.finditer(r"\d", quote):
        new_digit = str((int(m.group()) + 1) % 10)
        new = quote[:m.start()] + new_digit + quote[m.end():]
        if squash(new) in page_squashed:
            continue
        num = next(n for n in re.finditer(r"\d[\d,]*(?:\.\d+)?", quote)
                   if n.start() <= m.start() < n.end())
        old_num = num.group().replace(",", "")
        new_num = (quote[num.start():m.start()] + new_digit + quote[m.end():num.end()]
                   ).replace(",", "")
        return new, old_num, new_num
    for i, ch in enumerate(quote):
        if ch.isascii() and ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            repl = chr((ord(ch) - base + 1) % 26 + base)
        elif "\u4e00" <= ch <= "\u9fff":
            repl = "乙" if ch != "乙" else "甲"
        else:
            continue
        new = quote[:i] + repl + quote[i + 1:]
        if squash(new) not in page_squashed:
            return new, None, None
    raise AssertionError(f"no mutation of {quote!r} is absent from its page")


@pytest.fixture(scope="module")
def mutation_ws(tmp_path_factory: pytest.TempPathFactory):
    """Copies of the sample PDFs at samples/pdfs, where documents.yaml's `../samples/pdfs/`
    finds them from any ledger folder directly inside the root, and one DocumentSet over
    them that every mutation test checks its facts with, as one verify run does for all of
    its facts: a miss scans every page of its document for the hint, and this way each
    page's text is read once per module rather than once per test."""
    from reportgen.ledger import load_ledger
    from reportgen.pdf.documents import DocumentSet

    root = tmp_path_factory.mktemp("mutations")
    shutil.copytree(PDFS, root / "samples" / "pdfs")
    shutil.copytree(CLAIMS, root / "claims")
    with DocumentSet(load_ledger([root / "claims"]).documents) as docs:
        yield root, docs


@pytest.mark.parametrize("fact_id", [c["id"] for c in all_facts()])
def test_changing_one_character_of_a_quote_is_a_miss(mutation_ws, fact_id: str) -> None:
    """The mutated ledger is loaded whole (so it must stay valid), then every fact of the
    report holding the mutated one is verified by the library: one MISS, the mutated fact's."""
    from reportgen.ledger import load_ledger
    from reportgen.model import Fact, Verification
    from reportgen.verify.fact import verify_fact
    from reportgen.verify.records import verdict_lines

    root, docs = mutation_ws
    claims = root / f"claims-{fact_id}"
    shutil.copytree(CLAIMS, claims)
    path = next(p for p in sorted(claims.glob("S*.yaml"))
                if re.search(rf"^  - id: {re.escape(fact_id)}$", p.read_text(encoding="utf-8"),
                             re.M))
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.rstrip("\n") == f"  - id: {fact_id}")
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith("  - id:") or not lines[i].startswith("  ")), len(lines))
    block = yaml.safe_load("".join(lines[start:end]))[0]
    new_quote, old_num, new_num = _mutate(block["quote"],
                                          squash(page_text(block["doc"], block["page"])))
    for i in range(start, end):
        if lines[i].lstrip().startswith("quote:"):
            lines[i] = lines[i].replace(block["quote"], new_quote)
            assert new_quote in lines[i]
        elif lines[i].lstrip().startswith("values:") and old_num is not None:
            # keep the ledger valid: a value that was the changed number follows it
            lines[i] = re.sub(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])",
                              lambda m: new_num if float(m.group()) == float(old_num)
                              else m.group(), lines[i])
    path.write_text("".join(lines), encoding="utf-8")

    ledger = load_ledger([claims])  # raises on an invalid ledger
    assert {d.path for d in ledger.documents.values()} == {
        d.path for d in docs.documents.values()}  # the very files the shared set reads
    report = next(r for r in ledger.reports if fact_id in r.claims)
    facts = {c: ledger.claims[c] for c in report.claims if isinstance(ledger.claims[c], Fact)}
    results = {c: verify_fact(f, docs) for c, f in facts.items()}
    v = Verification(dataclasses.replace(ledger, reports=(report,), claims=facts), results,
                     "2026-01-01T00:00:00Z")
    assert not v.ok
    out = verdict_lines(v)
    misses = [ln for ln in out if ln.startswith("MISS ")]
    assert [ln.split()[1] for ln in misses] == [fact_id], out
    n = len(facts)
    assert out[1:] == [f"{report.id}: facts={n} hits={n - 1} misses=1",
                       f"TOTAL: facts={n} hits={n - 1} misses=1"], out


def test_calc_result_beyond_tolerance_fails(ledger_copy: Path) -> None:
    path = ledger_copy / "claims" / "S2.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("result: 2.87\n") == 1
    path.write_text(text.replace("result: 2.87\n", "result: 2.92\n"), encoding="utf-8")
    result = run_verify("claims")
    assert result.exit_code == 1, result.output
    assert any("s2-11" in ln for ln in result.output.splitlines()), result.output


def test_edge_without_anchors_or_gap_is_a_ledger_error(ledger_copy: Path) -> None:
    path = ledger_copy / "claims" / "S3.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if "anchors: [s3-1], " in ln and "from:" in ln)
    lines[at] = lines[at].replace("anchors: [s3-1], ", "")
    assert "gap" not in lines[at]
    path.write_text("".join(lines), encoding="utf-8")
    result = run_verify("claims")
    assert result.exit_code == 1, result.output
    located = re.findall(r"^(\S*S3\.yaml):(\d+): ", result.output, re.M)
    assert located, result.output
    assert str(at + 1) in {line for _, line in located}, result.output
