"""Evidence-index benchmark: indexing throughput and `find` latency, beside a pure-Python BM25.

    .venv/bin/python bench/index_bench.py [--blocks 200000] [--runs 5] [--queries 40]

1. Sample: index samples/pdfs/*.pdf from scratch `--runs` times (pages/s, median), each
   run beside the baseline (PyMuPDF's plain text of the same pages, one process) and
   beside `reportgen index` of the same PDFs in a fresh process; count
   the PDF reads of one run; then time `find` over the sample's store (p50/p95).
2. Generated corpus: `--blocks` synthetic annual-report blocks (deterministic) chunked by
   the real chunker and written straight into a store in a temporary folder outside the
   repo; then `find` latency (p50/p95) of the fused FTS5 search, and of rank-bm25's
   `BM25Okapi` over the very same n-gram tokens (the baseline), side by side.

Targets: index >= 600 pages/s (beside the bare PyMuPDF text extraction of the same
pages, measured in the same run, interleaved); find p50 < 50 ms at 200k blocks. Prints Markdown.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reportgen.index import build, finder, store  # noqa: E402
from reportgen.index.tokens import ngram_tokens, unique  # noqa: E402
from reportgen.pdf.blocks import Block, Line  # noqa: E402

QUERIES = ["前五名供应商", "Algihaz", "海博思创", "沃太能源", "沙特 储能项目", "7.8GWh",
           "研发投入", "应收账款", "营业收入 同比增长", "经营活动产生的现金流量净额", "储能系统 出货量",
           "独立董事", "关联交易", "员工人数", "毛利率", "海外收入", "动力电池", "募集资金",
           "合同负债", "存货跌价准备"]

WORDS = ("公司 报告期 营业收入 净利润 储能 系统 电池 动力 出货量 同比 增长 下降 供应商 客户 采购 "
         "金额 占比 研发 投入 项目 海外 市场 毛利率 现金流量 经营活动 投资 筹资 应收账款 存货 "
         "合同 负债 资产 减值 准备 股东 董事会 监事会 独立董事 关联交易 募集资金 员工 薪酬 "
         "光伏 逆变器 电站 并网 容量 储能电芯 框架协议 技术 专利 产能 基地 子公司 控股 "
         "风险 汇率 原材料 价格 碳酸锂 正极 负极 电解液 隔膜 产品 销售 收入 成本 费用 "
         "管理 财务 税费 利润 分配 股利 回购 股份 质押 担保 诉讼 审计 意见 会计 政策").split()
NAMES = ["Algihaz", "Sungrow", "CATL", "Fluence", "Tesla", "NextEra", "供应商一", "客户二",
         "海博思创", "沃太能源", "欣旺达", "亿纬锂能", "国轩高科", "比亚迪", "沙特", "澳大利亚"]
FUNC = "的 了 和 在 及 与 等 是".split()


def vocabulary(rnd: random.Random, size: int = 20000) -> list[str]:
    """Annual-report words first (the frequent head), then made-up two- to four-character
    words from the 3,000 most common CJK code points of our range (the long tail)."""
    chars = [chr(0x4E00 + rnd.randrange(0x51A5)) for _ in range(3000)]
    vocab = list(dict.fromkeys(WORDS))
    while len(vocab) < size:
        vocab.append("".join(rnd.choice(chars) for _ in range(rnd.randint(2, 4))))
    return vocab


def synthetic_blocks(n: int, seed: int = 7) -> list[list[Block]]:
    """`n` blocks in documents of 300 pages, 20 blocks a page. Words follow Zipf's law
    (rank^-1.07) over a 20k vocabulary, as words of real text do; names and numbers are
    sprinkled in, function characters join the words."""
    rnd = random.Random(seed)
    vocab = vocabulary(rnd)
    cum = list(itertools.accumulate(1 / (i + 1) ** 1.07 for i in range(len(vocab))))
    docs: list[list[Block]] = []
    per_doc = 300 * 20
    for d in range(0, n, per_doc):
        blocks = []
        for i in range(min(per_doc, n - d)):
            parts = []
            for _ in range(rnd.randint(6, 30)):
                r = rnd.random()
                if r < 0.005:
                    parts.append(rnd.choice(NAMES))
                elif r < 0.06:
                    parts.append(f"{rnd.uniform(0, 1e6):,.2f}")
                elif r < 0.2:
                    parts.append(rnd.choice(FUNC))
                else:
                    parts.append(rnd.choices(vocab, cum_weights=cum)[0])
            text = "".join(parts) + "。"
            page, y = 1 + i // 20, 60 + 35 * (i % 20)
            blocks.append(Block(f"gen{d // per_doc}", page, i, (72.0, y, 540.0, y + 30.0),
                                (Line((72.0, y, 540.0, y + 12.0), text),)))
        docs.append(blocks)
    return docs


def write_synthetic(db: Path, docs: list[list[Block]]) -> int:
    con, _ = store.open_for_write(db)
    df = store.DfDelta(con)
    nchunks = 0
    for blocks in docs:
        did = blocks[0].doc
        spec = build.DocSpec(did, Path(f"/nonexistent/{did}.pdf"), did)
        part = build.prepare_part(blocks, blocks[-1].page)
        build._write_doc(con, spec, "0" * 64, blocks[-1].page, [part], df=df)
        con.commit()
        nchunks += len(part.chunks)
    df.flush()
    con.execute("INSERT INTO fts_ngram(fts_ngram) VALUES('optimize')")
    con.execute("INSERT INTO fts_unigram(fts_unigram) VALUES('optimize')")
    con.commit()
    con.close()
    return nchunks


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def time_find(db: Path, queries: list[str], rounds: int, evidence: bool = True) -> list[float]:
    """Milliseconds per query: the fused search with evidence selection (what `find` does
    minus process start), or only the fused ranking when `evidence` is False."""
    out = []
    con = store.open_for_read(db)
    try:
        for _ in range(rounds):
            for q in queries:
                t = time.perf_counter()
                if evidence:
                    finder.search(db, q, k=5)
                else:
                    from reportgen.index.fusion import rrf

                    rrf(finder.rankings(con, q))[:5]
                out.append((time.perf_counter() - t) * 1000)
    finally:
        con.close()
    return out


def time_bm25(db: Path, queries: list[str], rounds: int) -> tuple[list[float], float]:
    from rank_bm25 import BM25Okapi

    con = store.open_for_read(db)
    rows = con.execute("SELECT rowid, tokens FROM fts_ngram ORDER BY rowid").fetchall()
    con.close()
    t = time.perf_counter()
    bm = BM25Okapi([r[1].split() for r in rows])
    build_s = time.perf_counter() - t
    out = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            scores = bm.get_scores(unique(ngram_tokens(q)))
            top = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)[:5]
            [rows[i][0] for i in top]
            out.append((time.perf_counter() - t) * 1000)
    return out, build_s


def cpu_split() -> tuple[float, float]:
    """CPU time of this process, and of its reaped children (the indexing workers)."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime, b.ru_utime + b.ru_stime


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the indexing workers)."""
    return sum(cpu_split())


def fresh_index(pdfs: list[Path], db: Path) -> tuple[float, float]:
    """(wall s, CPU s) of `reportgen index` in a fresh process: start-up and imports
    included, as a user runs it."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    c = cpu_split()[1]
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "reportgen", "index", *map(str, pdfs), "--db", str(db)],
                   check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - t, cpu_split()[1] - c


TARGET_PAGES_S = 600


def baseline_extract(pdfs: list[Path]) -> int:
    """The floor: PyMuPDF alone opening each PDF and extracting every page's plain text
    (the verifier's flags), in this one process; the page count."""
    import pymupdf

    from reportgen.pdf.textlayer import FLAGS

    n = 0
    for p in pdfs:
        with pymupdf.open(p) as d:
            for page in d:
                page.get_text("text", flags=FLAGS)
                n += 1
    return n


def count_reads(pdfs: list[Path], db: Path) -> int:
    """How many times one `index` run opens the sample PDFs, worker processes included
    (Python's `open` audit event; forked workers inherit the hook and log to a file)."""
    names = {str(p) for p in pdfs} | {str(p.resolve()) for p in pdfs}
    log = db.with_suffix(".opens")
    state = {"on": True}

    def hook(event: str, args: tuple) -> None:
        if state["on"] and event == "open" and isinstance(args[0], (str, os.PathLike)) \
                and os.fspath(args[0]) in names:
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.write(fd, b"x")
            os.close(fd)

    sys.addaudithook(hook)  # audit hooks stay; the flag turns this one off
    try:
        build.index_paths(pdfs, db)
    finally:
        state["on"] = False
    return log.stat().st_size if log.exists() else 0


def bench_sample(runs: int, rounds: int) -> list[str]:
    pdfs = sorted((ROOT / "samples" / "pdfs").glob("*.pdf"))
    if not pdfs:
        return ["(sample PDFs absent: samples/pdfs/*.pdf)"]
    rates, base_rates, cpus, base_cpus, pages = [], [], [], [], 0
    parent_cpus, fresh_rates, fresh_cpus = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):  # interleaved, so all see the same load
            c = cpu_seconds()
            t = time.perf_counter()
            n = baseline_extract(pdfs)
            base_rates.append(n / (time.perf_counter() - t))
            base_cpus.append(cpu_seconds() - c)
            db = Path(tmp) / f"s{i}.sqlite"
            c0, c1 = cpu_split()
            t = time.perf_counter()
            s = build.index_paths(pdfs, db)
            dt = time.perf_counter() - t
            d0, d1 = cpu_split()
            cpus.append(d0 - c0 + d1 - c1)
            parent_cpus.append(d0 - c0)
            pages = s.pages
            rates.append(pages / dt)
            wall, cpu = fresh_index(pdfs, Path(tmp) / f"f{i}.sqlite")
            fresh_rates.append(pages / wall)
            fresh_cpus.append(cpu)
        reads = count_reads(pdfs, Path(tmp) / "reads.sqlite")
        t = time.perf_counter()
        build.index_paths(pdfs, db)
        noop = (time.perf_counter() - t) * 1000
        lat = time_find(db, QUERIES, rounds)
    rate, base = statistics.median(rates), statistics.median(base_rates)
    verdict = "pass" if rate >= TARGET_PAGES_S else "FAIL"
    med = statistics.median
    return [f"| sample index ({len(pdfs)} PDFs, {pages} pages, from scratch, default workers) | "
            f"{rate:.0f} pages/s (median of {runs}; min {min(rates):.0f}, max {max(rates):.0f}); "
            f"{med(cpus):.2f} CPU s a run, all processes ({med(parent_cpus):.2f} in the "
            f"writing process) |",
            f"| the same as `reportgen index` in a fresh process (start-up and imports) | "
            f"{med(fresh_rates):.0f} pages/s (median of {runs}); {med(fresh_cpus):.2f} CPU s |",
            f"| baseline: bare PyMuPDF plain-text extraction of the same pages, one process | "
            f"{base:.0f} pages/s (median of {runs}); {statistics.median(base_cpus):.2f} CPU s |",
            f"| index / baseline | {rate / base:.2f} (pages/s); CPU per page "
            f"{statistics.median(cpus) / statistics.median(base_cpus):.2f} times the baseline's |",
            f"| target: index >= {TARGET_PAGES_S} pages/s | {verdict} |",
            f"| PDF reads in one index run | {reads} for {len(pdfs)} PDFs |",
            f"| sample re-index, nothing changed | {noop:.0f} ms |",
            f"| sample find (search + evidence), {len(lat)} queries | p50 {pct(lat, .5):.1f} ms, "
            f"p95 {pct(lat, .95):.1f} ms |"]


def bench_generated(n: int, rounds: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "gen.sqlite"
        t = time.perf_counter()
        docs = synthetic_blocks(n)
        gen_s = time.perf_counter() - t
        t = time.perf_counter()
        nchunks = write_synthetic(db, docs)
        write_s = time.perf_counter() - t
        size = db.stat().st_size / 1e6
        fused = time_find(db, QUERIES, rounds, evidence=False)
        full = time_find(db, QUERIES, rounds)
        bm, bm_build = time_bm25(db, QUERIES, max(1, rounds // 2))
    return [f"| generated corpus | {n} blocks, {nchunks} chunks, store {size:.0f} MB; "
            f"chunk+tokenise+write {write_s:.1f} s ({n / write_s:.0f} blocks/s; text made in "
            f"{gen_s:.1f} s) |",
            f"| find, FTS5 BM25 x2 + RRF (ranking only) | p50 {pct(fused, .5):.1f} ms, "
            f"p95 {pct(fused, .95):.1f} ms |",
            f"| find, ranking + evidence sentence (as the CLI) | p50 {pct(full, .5):.1f} ms, "
            f"p95 {pct(full, .95):.1f} ms |",
            f"| baseline: rank-bm25 BM25Okapi, same n-gram tokens, one channel | "
            f"p50 {pct(bm, .5):.1f} ms, p95 {pct(bm, .95):.1f} ms (build {bm_build:.1f} s) |"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="passes over the query set")
    ap.add_argument("--skip-generated", action="store_true")
    a = ap.parse_args()
    print("| measure | result |\n|---|---|")
    for line in bench_sample(a.runs, a.rounds):
        print(line, flush=True)
    if not a.skip_generated:
        for line in bench_generated(a.blocks, a.rounds):
            print(line, flush=True)


if __name__ == "__main__":
    main()
