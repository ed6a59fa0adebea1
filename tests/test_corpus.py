"""Claims against real public PDFs in ../shared/corpus (see its README), each with the verdict
a careful human reader gives. The PDFs are never copied into the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.model import Document, Fact, Loc
from reportgen.pdf.documents import DocumentSet
from reportgen.verify.fact import verify_fact

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"

pytestmark = pytest.mark.corpus

HIT, MISS = "hit", "miss"

# (case id, document, page, quote, verdict, expectation)
# expectation: for a hit, (anchorMethod, pageEnd); for a miss, the exact message.
CASES = [
    # -- tables: row order, right-aligned numbers, $ cells --------------------------------
    ("alphabet-repurchase-row", "alphabet-10k-2022", 3,
     "October 1 - 31 8,585 46,059 $ 98.92 $ 99.16 54,644 $ 38,069", HIT, ("exact", 3)),
    ("alphabet-total-row", "alphabet-10k-2022", 3, "Total 15,240 146,082 161,322", HIT, ("exact", 3)),
    ("alphabet-holders", "alphabet-10k-2022", 3,
     "As of December 31, 2022, there were approximately 6,670 and 1,657 stockholders of record "
     "of our Class A stock and Class C stock, respectively.", HIT, ("exact", 3)),
    ("alphabet-nbsp-heading", "alphabet-10k-2022", 4,
     "ITEM 5 MARKET FOR REGISTRANT’S COMMON EQUITY", HIT, ("space", 4)),
    ("nics-rotated-row", "nics-rotated", 1, "Texas 21,550 56,941 51,670 2,532 3,048", HIT, ("exact", 1)),
    ("cn-bond-credit-row", "cn-bond-tables", 1, "3 兴业银行盐城分行 302,600.00 110,600.00 192,000.00",
     HIT, ("exact", 1)),
    ("cn-bond-rating-row-wrapped-cells", "cn-bond-tables", 1,
     "2021 AA+ 偿还债务的能力很强，受不利经济环境的影响不大，违约风险很低 联合资信评估有限公司 稳定",
     HIT, ("exact", 1)),
    ("gaoce-side-by-side-left", "gaoce-research-cn", 3, "营业总收入 1,567 3,684 5,056 5,752",
     HIT, ("exact", 3)),
    ("gaoce-side-by-side-right", "gaoce-research-cn", 3, "每股收益 1.07 2.91 4.43 5.77",
     HIT, ("exact", 3)),
    ("nedc-shareholder-row", "nedc-2018q1", 4,
     "泰达宏利基金－民生银行－泰达宏利策略分级31 号资产管理计划 10,739,518 人民币普通股 10,739,518",
     HIT, ("exact", 4)),
    # -- CJK prose, full-width forms -------------------------------------------------------
    ("cn-bond-credit-prose", "cn-bond-tables", 1,
     "截至2023 年3 月末，发行人各类授信额度总额达372.53 亿元，其中已使用额度252.06 亿元，"
     "尚未使用的授信额度为120.47 亿元。", HIT, ("exact", 1)),
    ("cn-bond-ascii-comma-typed", "cn-bond-tables", 1,
     "截至2023年3月末，发行人各类授信额度总额达372.53亿元,其中已使用额度252.06亿元", HIT, ("nfkc", 1)),
    ("nedc-fullwidth-hyphen-typed-ascii", "nedc-2018q1", 4,
     "泰达宏利基金-民生银行-泰达宏利策略分级31号资产管理计划", HIT, ("nfkc", 4)),
    ("nedc-margin-trading", "nedc-2018q1", 5,
     "股东\"史宇波\"通过光大证券股份有限公司客户信用交易担保证券账户持有3,100,000 股", HIT, ("exact", 5)),
    # -- ligatures and hyphenation -------------------------------------------------------
    ("naacl-hyphenation", "naacl06-shinyama", 2,
     "We implemented a preliminary system for this technique and obtained reasonably good "
     "performance.", HIT, ("hyphenation", 2)),
    ("naacl-hyphenation-2", "naacl06-shinyama", 2,
     "The headers of the table and its keywords were also extracted automatically.",
     HIT, ("hyphenation", 2)),
    ("naacl-ligature-fi-typed", "naacl06-shinyama", 3,
     "In this example, the obtained table is just what an IE system (whose task is to find a "
     "hurricane name and the affected place) would create.", HIT, ("nfkc", 3)),
    ("dpr-ligature-and-hyphen", "dpr-two-column", 3,
     "FAISS is an extremely efficient, open-source library for similarity search and clustering "
     "of dense vectors", HIT, ("hyphenation", 3)),
    ("mupdf-two-letter-fi", "mupdf-explored", 14,
     "Often the first place that people will encounter MuPDF is as a Linux or Android desktop "
     "viewer", HIT, ("exact", 14)),
    # -- across a page break -------------------------------------------------------------
    ("naacl-cross-page-ligature", "naacl06-shinyama", 2,
     "We can extend this table by ﬁnding another article in the same manner.", HIT, ("exact", 3)),
    ("naacl-cross-page-fi-typed", "naacl06-shinyama", 2,
     "We can extend this table by finding another article in the same manner.", HIT, ("nfkc", 3)),
    ("dpr-cross-page-minus", "dpr-two-column", 3,
     "This creates B training instances in each batch, where there are B −1 negative passages "
     "for each question.", HIT, ("hyphenation", 4)),
    ("mupdf-cross-page-folio-and-head", "mupdf-explored", 14,
     "This is a complex license worthy of careful study and more words than we have space for "
     "here.", HIT, ("exact", 15)),
    ("fedreg-cross-page-three-columns", "fedreg-2020-17221", 1,
     "after takeoff from Soekarno-Hatta International Airport in Jakarta, Indonesia, resulting "
     "in 189 fatalities.", HIT, ("exact+columns", 2)),
    ("fedreg-cross-page-2", "fedreg-2020-17221", 14,
     "identified in paragraph (q)(1) of this AD. Information may be emailed to",
     HIT, ("exact+columns", 15)),
    # -- three columns, compound hyphens, en dashes ----------------------------------------
    ("fedreg-en-dash-docket", "fedreg-2020-17221", 1, "Docket No. FAA–2020–0686", HIT, ("exact", 1)),
    ("fedreg-compound-hyphen-typed", "fedreg-2020-17221", 3,
     "An undesired MCAS activation could prompt the flightcrew to perform a non-normal procedure.",
     HIT, ("exact", 3)),
    ("fedreg-column-to-column", "fedreg-2020-17221", 3,
     "The updated FCC software would also limit 12 the magnitude of any MCAS command to move the "
     "horizontal stabilizer, such that the final horizontal stabilizer position", HIT, ("exact", 3)),
    ("da-619p-deep-page", "da-619p", 300,
     "When the Carta crime boss Beraht fell, his lover Jarvia fought off rivals", HIT, ("exact", 300)),
    # -- misses a careful reader also calls -------------------------------------------------
    ("fedreg-hyphen-for-en-dash", "fedreg-2020-17221", 1, "Docket No. FAA-2020-0686", MISS,
     'quote not found on p.1; closest text on p.1 (similarity 0.91): "Docket No. FAA–2020– 0686" '
     "— first difference at char 15: page has '–' (U+2013 EN DASH) where the quote has '-' "
     "(U+002D HYPHEN-MINUS)"),
    ("fedreg-compound-hyphen-dropped", "fedreg-2020-17221", 3,
     "An undesired MCAS activation could prompt the flightcrew to perform a nonnormal procedure.",
     MISS, 'quote not found on p.3; closest text on p.3 (similarity 0.99): "An undesired MCAS '
     'activation could prompt the flightcrew to perform a non- normal procedure." — first '
     "difference at char 74: page has '-' (U+002D HYPHEN-MINUS) that the quote lacks"),
    ("dpr-hyphen-for-minus-cross-page", "dpr-two-column", 3,
     "This creates B training instances in each batch, where there are B -1 negative passages "
     "for each question.", MISS,
     'quote not found on p.3; closest text on p.3\u20134 (similarity 0.99): "This creates B '
     "train- ing instances in each batch, where there are B −1 negative passages for each "
     "question.\" — first difference at char 68: page has '−' (U+2212 MINUS SIGN) where the "
     "quote has '-' (U+002D HYPHEN-MINUS)"),
    ("alphabet-wrong-digit", "alphabet-10k-2022", 3,
     "As of December 31, 2022, there were approximately 6,760 and 1,657 stockholders", MISS, None),
    ("nics-transposed-digits", "nics-rotated", 1, "Texas 21,550 56,941 51,670 2,532 3,084", MISS, None),
    ("naacl-wrong-page-cross", "naacl06-shinyama", 3,
     "We can extend this table by finding another article in the same manner.", MISS,
     "quote not found on p.3; it occurs on p.2 running onto p.3"),
    ("nedc-wrong-page", "nedc-2018q1", 5, "香港中央结算(代理人)有限公司 257,055,899", MISS,
     "quote not found on p.5; it occurs on p.4"),
    ("da-619p-wrong-page", "da-619p", 301,
     "When the Carta crime boss Beraht fell, his lover Jarvia fought off rivals", MISS,
     "quote not found on p.301; it occurs on p.300"),
    ("fedreg-misremembered-wording", "fedreg-2020-17221", 13,
     "in accordance with the operator’s existing FAA-approved MEL.", MISS, None),
    ("scan-no-text-layer", "scan-cn-book", 1, "第一章", MISS,
     "p.1 has no text layer (a scan?); quote from a page with text or OCR the PDF first"),
]

@pytest.fixture(scope="module")
def docs():
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus absent (fresh clone); runs in CI")
    loc = Loc("tests/test_corpus.py", 1)
    found = {p.stem: Document(p.stem, p, p.stem, None, loc) for p in CORPUS.glob("*.pdf")}
    with DocumentSet(found) as ds:
        yield ds


@pytest.mark.parametrize("cid,doc,page,quote,verdict,expect", CASES, ids=[c[0] for c in CASES])
def test_claim(docs, cid, doc, page, quote, verdict, expect):
    if doc not in docs.documents:
        pytest.skip(f"{doc}.pdf absent from ../shared/corpus")
    fact = Fact(id=cid, report="CORPUS", statement="-", confidence=None, note=None,
                loc=Loc("tests/test_corpus.py", 1), doc=doc, page=page, quote=quote)
    r = verify_fact(fact, docs)
    assert r.status == verdict, r.message
    assert r.sha256 and len(r.sha256) == 64
    if verdict == HIT:
        method, page_end = expect
        assert (r.anchor.method, r.anchor.page, r.anchor.page_end) == (method, page, page_end)
        x0, y0, x1, y1 = r.anchor.bbox
        assert x0 < x1 and y0 < y1
        assert {p for p, _ in r.anchor.rects} == set(range(page, page_end + 1))
    else:
        assert r.anchor is None
        if expect is None:
            assert r.message.startswith(f"quote not found on p.{page}; closest text on p.{page}")
            assert "first difference at char" in r.message
        else:
            assert r.message == expect


def test_rotated_box_is_displayed(docs):
    """NICS is stored with /Rotate 90; its displayed page is 612 x 1008, rows run down it."""
    fact = Fact(id="r", report="C", statement="-", confidence=None, note=None,
                loc=Loc("t", 1), doc="nics-rotated", page=1,
                quote="Texas 21,550 56,941 51,670 2,532 3,048")
    a = verify_fact(fact, docs).anchor
    x0, y0, x1, y1 = a.bbox
    assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 1008
    assert (y1 - y0) > 5 * (x1 - x0)
