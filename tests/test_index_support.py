"""Fixture PDFs and ledgers for the evidence-index tests (no tests here)."""

from __future__ import annotations

import hashlib
import math
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pymupdf

ALPHA_PAGES = [
    # page 1: prose, Chinese
    ["第一节 重要提示",
     "本公司董事会保证年度报告内容的真实、准确、完整。",
     "公司前五名供应商合计采购金额为6,928,853,013.03元，占年度采购总额比例为14.59%。",
     "报告期内公司与沃太能源签订储能电芯采购框架协议。"],
    # page 2: a table, cells drawn as separate items on one baseline
    ["第二节 主要供应商情况",
     ("序号", "供应商名称", "采购额（元）", "占比"),
     ("1", "供应商一", "6,928,853,013.03", "14.59%"),
     ("2", "Algihaz Holding", "1,204,553,110.00", "2.54%"),
     ("3", "欣旺达电子", "998,120,000.50", "2.10%")],
    # page 3: English prose
    ["Item 7. Management discussion",
     "The Company signed a 7.8GWh battery storage project in Saudi Arabia with Algihaz.",
     "Revenue from energy storage systems grew by 40.1% compared with the prior year.",
     "We repurchased 12,000 Class A shares during the fourth quarter."],
]

BETA_PAGES = [
    ["第三节 管理层讨论与分析",
     "报告期内，公司储能系统出货量同比增长，海博思创成为重要客户。",
     "公司在沙特的储能项目顺利并网，容量为7.8GWh。"],
    ["第四节 公司治理",
     "公司董事会由九名董事组成，其中独立董事三名。",
     "The board met eleven times during the year."],
]


def make_pdf(path: Path, pages: Sequence[Sequence], extra_text: str | None = None) -> Path:
    """A PDF whose pages hold lines (str) and table rows (tuples of cells)."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        y = 72.0
        for item in lines:
            if isinstance(item, tuple):
                for i, cell in enumerate(item):
                    page.insert_text((72 + i * 120, y), cell, fontname="china-s", fontsize=10)
                y += 18
            else:
                parts = (textwrap.wrap(item, 90) if item.isascii()
                         else [item[k:k + 48] for k in range(0, len(item), 48)])
                font = "helv" if item.isascii() else "china-s"
                for part in parts:  # wrap long lines
                    page.insert_text((72, y), part, fontname=font, fontsize=9)
                    y += 13
                y += 10
        if extra_text:
            page.insert_text((72, 760), extra_text, fontname="china-s", fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def make_scan(path: Path, pages: int = 2) -> Path:
    """A PDF without a text layer: only vector drawings."""
    doc = pymupdf.open()
    for _ in range(pages):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(72, 72, 300, 200), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def write_ledger(root: Path, docs: dict[str, str], claims_yaml: str = "claims: []\n",
                 report_id: str = "T1") -> Path:
    """root/claims/report.yaml naming `docs` (id -> path relative to root)."""
    folder = root / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["report:", f"  id: {report_id}", "  title: Test report", "documents:"]
    for did, rel in docs.items():
        lines += [f'  "{did}":', f"    file: ../{rel}", f"    title: {did}"]
    (folder / "report.yaml").write_text("\n".join(lines) + "\n" + claims_yaml, encoding="utf-8")
    return folder


def ledger_with_two_docs(root: Path) -> Path:
    make_pdf(root / "docs" / "alpha.pdf", ALPHA_PAGES)
    make_pdf(root / "docs" / "beta.pdf", BETA_PAGES)
    return write_ledger(root, {"alpha": "docs/alpha.pdf", "beta": "docs/beta.pdf"})


class HashingEmbedder:
    """A tiny deterministic embedder: character bigrams hashed into 64 buckets, L2-normed."""

    name = "hash-bigram"
    dim = 64

    def embed(self, texts):
        out = []
        for t in texts:
            v = [0.0] * self.dim
            s = re.sub(r"\s+", "", t.lower())
            for i in range(len(s) - 1):
                h = int.from_bytes(hashlib.blake2b(s[i:i + 2].encode(), digest_size=4).digest(), "big")
                v[h % self.dim] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out


def hashing_embedder():
    return HashingEmbedder()


def two_doc_workspace(tmp_path: Path, monkeypatch) -> Path:
    """A workspace with the two-document ledger, made the working folder (the CLI tests'
    `ws` fixture)."""
    ledger_with_two_docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    """`reportgen ARGS` through click's CliRunner."""
    from click.testing import CliRunner

    from reportgen.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)
