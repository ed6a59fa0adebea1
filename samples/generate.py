"""Write the three synthetic annual-report replicas of the worked sample, byte for byte the same
on every run.

    .venv/bin/python samples/generate.py [--out DIR]     # default: samples/pdfs/

The files are replicas, not the issuers' filings: every page's footer and the PDF metadata say
so. The pages the claim ledger (claims/) quotes are laid out by hand below (KEY PAGES); every
other page is filler drawn from a fixed seed. See samples/README.md for which figures are
modelled on publicly quoted ones and which are invented.

Determinism: no clock, no random ids. Metadata dates are fixed, the filler comes from
`random.Random(<code>-<page>)` (string seeds hash with SHA-512, independent of
PYTHONHASHSEED), the font subset is derived from the glyphs used, and the file is saved with
`garbage=4, deflate=True, no_new_id=True` so no trailer /ID is written. Tested in
tests/test_sample.py against the committed files (with PyMuPDF 1.28.2).

Text-layer order: every string is inserted in reading order (header, body top to bottom, a
table row by row with the cells of a row left to right, a left column before the right one,
footer), so a quote of a table row is the row's cells in order once whitespace is stripped.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent

DISCLAIMER = "合成样本 Synthetic sample modelled on publicly quoted figures; not the issuer's filing"
META_DATE = "D:20260401000000Z"
PAGE_W, PAGE_H = 595, 842
LEFT, RIGHT = 56.0, 539.0
WIDTH = RIGHT - LEFT
BODY_TOP, BODY_BOTTOM = 82.0, 770.0
FONT = "F0"

_FONT = pymupdf.Font("cjk")  # Droid Sans Fallback, shipped with PyMuPDF; has CJK and Latin-1
_FONT_BUFFER = _FONT.buffer


@dataclass(frozen=True)
class Company:
    code: str
    name: str  # registered Chinese name
    short: str  # 证券简称
    english: str
    pages: int
    sections: tuple[tuple[str, int], ...]  # (title, first physical page); ends at the next one


def _sections(gov: int, env: int, imp: int, shares: int, pref: int, bonds: int,
              fin: int) -> tuple[tuple[str, int], ...]:
    return (
        ("第一节 重要提示、目录和释义", 3),
        ("第二节 公司简介和主要财务指标", 7),
        ("第三节 管理层讨论与分析", 13),
        ("第四节 公司治理", gov),
        ("第五节 环境和社会责任", env),
        ("第六节 重要事项", imp),
        ("第七节 股份变动及股东情况", shares),
        ("第八节 优先股相关情况", pref),
        ("第九节 债券相关情况", bonds),
        ("第十节 财务报告", fin),
    )


COMPANIES = (
    Company("300750", "宁德时代新能源科技股份有限公司", "宁德时代",
            "Contemporary Amperex Technology Co., Limited", 232,
            _sections(61, 89, 101, 127, 139, 140, 146)),
    Company("300014", "惠州亿纬锂能股份有限公司", "亿纬锂能", "EVE Energy Co., Ltd.", 222,
            _sections(55, 81, 93, 117, 129, 130, 135)),
    Company("300274", "阳光电源股份有限公司", "阳光电源", "Sungrow Power Supply Co., Ltd.", 230,
            _sections(59, 87, 99, 123, 135, 136, 141)),
)


def folio(pno: int) -> int | None:
    """The page number printed in the footer: cover and contents carry none, so the printed
    folio is the physical page index minus 2 (claims always name the physical index)."""
    return pno - 2 if pno >= 3 else None


def money(x: float) -> str:
    return f"{x:,.2f}"


def pct(x: float) -> str:
    return f"{x * 100:.2f}%"


# ---- drawing ----------------------------------------------------------------------------


class _Advances(dict):
    """Each character's advance at 1000 pt, measured once."""

    def __missing__(self, ch: str) -> float:
        self[ch] = w = _FONT.text_length(ch, fontsize=1000.0)
        return w


_ADVANCE = _Advances()


def text_width(s: str, size: float) -> float:
    return sum(map(_ADVANCE.__getitem__, s)) * size / 1000.0


_TOKEN = re.compile(r"[A-Za-z0-9À-ÿ.,%()\-/']+|\s+|.", re.S)


def wrap(text: str, width: float, size: float, indent: float = 0.0) -> list[str]:
    """Break text into lines no wider than `width`: CJK breaks anywhere, a Latin or numeric run
    stays whole, closing punctuation never starts a line."""
    lines: list[str] = []
    cur, w, limit = "", 0.0, width - indent
    for tok in _TOKEN.findall(text):
        if tok.isspace():
            tok = " "
            if not cur:
                continue
        tw = text_width(tok, size)
        if cur and w + tw > limit and not (len(tok) == 1 and tok in "，。、；：）」%"):
            lines.append(cur.rstrip())
            cur, w, limit = "", 0.0, width
            if tok == " ":
                continue
        cur += tok
        w += tw
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


class Canvas:
    """One page: text and rules collected in one Shape, committed once, in insertion order."""

    def __init__(self, doc: pymupdf.Document, company: Company, pno: int,
                 font_xref: int = 0) -> None:
        self.page = doc.new_page(width=PAGE_W, height=PAGE_H)
        if font_xref:
            # The font is already in the document: name it in this page's resources, as
            # page.insert_font would after loading the 3.5 MB font again to find it there.
            resources = int(doc.xref_get_key(self.page.xref, "Resources")[1].split()[0])
            doc.xref_set_key(resources, "Font", f"<</{FONT} {font_xref} 0 R>>")
            xref = font_xref
        else:
            xref = self.page.insert_font(fontname=FONT, fontbuffer=_FONT_BUFFER)
        self.font_xref = xref
        # Shape.insert_text asks page.insert_font for the font on every string, which scans
        # the page's resources each time (40% of the run); on this page the answer is fixed.
        self.page.insert_font = lambda fontname, **kw: xref  # type: ignore[method-assign]
        self.shape = self.page.new_shape()
        self.company = company
        self.pno = pno
        self.y = BODY_TOP

    # primitives
    def text(self, x: float, y: float, s: str, size: float = 9.0, gray: float = 0.0) -> None:
        if s:
            self.shape.insert_text((x, y), s, fontname=FONT, fontsize=size,
                                   color=(gray, gray, gray))

    def text_right(self, xr: float, y: float, s: str, size: float = 9.0) -> None:
        self.text(xr - text_width(s, size), y, s, size)

    def text_center(self, x0: float, x1: float, y: float, s: str, size: float = 9.0,
                    gray: float = 0.0) -> None:
        self.text((x0 + x1 - text_width(s, size)) / 2, y, s, size, gray)

    def line(self, x0: float, y0: float, x1: float, y1: float, width: float = 0.5) -> None:
        self.shape.draw_line((x0, y0), (x1, y1))
        self.shape.finish(width=width, color=(0, 0, 0))

    def rect_fill(self, x0: float, y0: float, x1: float, y1: float, gray: float) -> None:
        self.shape.draw_rect(pymupdf.Rect(x0, y0, x1, y1))
        self.shape.finish(width=0, color=None, fill=(gray, gray, gray))

    # furniture
    def header(self) -> None:
        self.text(LEFT, 48, self.company.name, 8.5, 0.25)
        self.text_right(RIGHT, 48, "2025年年度报告", 8.5)
        self.line(LEFT, 54, RIGHT, 54, 0.8)

    def footer(self) -> None:
        self.line(LEFT, 790, RIGHT, 790, 0.5)
        f = folio(self.pno)
        if f is not None:
            self.text_center(LEFT, RIGHT, 805, str(f), 8.5)
        self.text_center(LEFT, RIGHT, 820, DISCLAIMER, 6.5, 0.3)

    def commit(self) -> None:
        self.shape.commit()

    # flow
    def room(self, h: float) -> bool:
        return self.y + h <= BODY_BOTTOM

    def heading(self, s: str, size: float = 12.0, gap: float = 8.0) -> None:
        self.y += size + gap / 2
        self.text(LEFT, self.y, s, size)
        self.y += gap

    def para(self, s: str, size: float = 9.5, lead: float = 1.65, x0: float = LEFT,
             x1: float = RIGHT, indent: bool = True, limit: float = BODY_BOTTOM) -> bool:
        """A paragraph; returns False (and draws nothing) if it does not fit."""
        ind = 2 * size if indent else 0.0
        lines = wrap(s, x1 - x0, size, ind)
        if self.y + len(lines) * size * lead > limit:
            return False
        for i, ln in enumerate(lines):
            self.y += size * lead
            self.text(x0 + (ind if i == 0 else 0.0), self.y, ln, size)
        self.y += size * 0.5
        return True

    def table(self, widths: list[float], header: list[list[tuple[str, int, int]]],
              rows: list[list[str]], align: str, size: float = 7.8, row_h: float = 15.0,
              caption: str | None = None, unit: str | None = None) -> None:
        """A ruled table. `header` rows hold (text, colspan, rowspan) cells in grid order;
        `align` has one letter per column (l, c, r); body cells are single lines. Text goes in
        row by row, cells left to right."""
        if caption:
            self.y += 14
            self.text(LEFT, self.y, caption, 9.5)
        if unit:
            self.text_right(LEFT + sum(widths), self.y, unit, 8)
        self.y += 5
        xs = [LEFT]
        for w in widths:
            xs.append(xs[-1] + w)
        top = self.y
        nh = len(header)
        # header grid: which (row, col) slots each cell covers
        taken: set[tuple[int, int]] = set()
        placed: list[tuple[str, int, int, int, int]] = []  # text, r, c, rs, cs
        for r, cells in enumerate(header):
            c = 0
            for txt, cs, rs in cells:
                while (r, c) in taken:
                    c += 1
                for dr in range(rs):
                    for dc in range(cs):
                        taken.add((r + dr, c + dc))
                placed.append((txt, r, c, rs, cs))
                c += cs
        hbottom = top + nh * row_h
        if nh:
            self.rect_fill(xs[0], top, xs[-1], hbottom, 0.9)
        for txt, r, c, rs, cs in placed:
            y0, y1 = top + r * row_h, top + (r + rs) * row_h
            base = (y0 + y1) / 2 + size * 0.35
            self.text_center(xs[c], xs[c + cs], base, txt, size)
        # header rules: a horizontal rule under a cell, a vertical rule at each cell edge
        for txt, r, c, rs, cs in placed:
            yb = top + (r + rs) * row_h
            if r + rs < nh:
                self.line(xs[c], yb, xs[c + cs], yb, 0.4)
            if c > 0:
                self.line(xs[c], top + r * row_h, xs[c], yb, 0.4)
        y = hbottom
        for row in rows:
            base = y + row_h / 2 + size * 0.35
            for c, cell in enumerate(row):
                a = align[c]
                if a == "r":
                    self.text_right(xs[c + 1] - 3, base, cell, size)
                elif a == "c":
                    self.text_center(xs[c], xs[c + 1], base, cell, size)
                else:
                    self.text(xs[c] + 3, base, cell, size)
            y += row_h
            self.line(xs[0], y, xs[-1], y, 0.3)
        for x in xs[1:-1]:
            self.line(x, hbottom, x, y, 0.3)
        self.line(xs[0], top, xs[-1], top, 1.0)
        self.line(xs[0], hbottom, xs[-1], hbottom, 0.6)
        self.line(xs[0], y, xs[-1], y, 1.0)
        self.line(xs[0], top, xs[0], y, 0.6)
        self.line(xs[-1], top, xs[-1], y, 0.6)
        self.y = y + 6

    def table_height(self, n_header: int, n_rows: int, row_h: float = 15.0,
                     caption: bool = True) -> float:
        return (14 if caption else 0) + 5 + (n_header + n_rows) * row_h + 6


# ---- filler -----------------------------------------------------------------------------

PRODUCTS = {
    "300750": ["动力电池系统", "储能电池系统", "电池材料及回收", "电池矿产资源"],
    "300014": ["消费电池", "动力电池", "储能电池", "电池材料"],
    "300274": ["光伏逆变器", "储能系统", "新能源投资开发", "电动汽车驱动系统"],
}
REGIONS = ["华东地区", "华南地区", "华北地区", "西南地区", "欧洲", "北美", "亚太地区", "中东及非洲",
           "拉丁美洲"]
TOPICS = {
    "第一节": ["公司董事会、监事会及董事、监事、高级管理人员保证年度报告内容的真实、准确、完整，"
              "不存在虚假记载、误导性陈述或重大遗漏，并承担个别和连带的法律责任。",
              "本报告中涉及的未来计划、发展战略等前瞻性陈述不构成公司对投资者的实质承诺，"
              "投资者及相关人士均应对此保持足够的风险认识。",
              "公司经本次董事会审议通过的利润分配预案为：以{n}股为基数，向全体股东每10股派发现金红利"
              "{d}元（含税），不以公积金转增股本。"],
    "第二节": ["公司不存在需追溯调整或重述以前年度会计数据的情况，主要会计数据和财务指标以合并报表口径列示。",
              "公司注册地址、办公地址、信息披露媒体及备置地点于报告期内未发生变化。",
              "公司年度报告备置于公司董事会办公室，投资者可在工作时间查阅。",
              "报告期内，公司不存在境内外会计准则下会计数据差异的情况。",
              "公司聘请的会计师事务所对公司年度财务报告出具了标准无保留意见的审计报告。",
              "公司聘请的报告期内履行持续督导职责的保荐机构按规定履行了督导义务。",
              "非经常性损益项目按照《公开发行证券的公司信息披露解释性公告第1号》的规定界定。",
              "公司第{d}届董事会第{d2}次会议审议通过了本年度报告全文及摘要。",
              "报告期内，公司股票未发生暂停上市或终止上市的情形。",
              "公司已在指定信息披露媒体披露了报告期内的临时公告共{d2}份。"],
    "第三节": ["{prod}产品持续迭代，产品竞争力进一步提升，在{reg}的客户覆盖持续扩大。",
              "{reg}市场需求保持增长，公司在该区域持续完善渠道与服务体系。",
              "公司持续加大研发投入，围绕材料体系、结构设计与智能制造开展技术攻关。",
              "公司坚持以客户为中心，完善全球销售与服务网络，在{reg}新设服务网点{d}个。",
              "公司推进智能制造与精益生产，持续降低单位产品能耗，提升产品一次合格率。",
              "公司面临的主要风险包括行业竞争加剧风险、原材料价格波动风险、汇率波动风险及国际贸易"
              "政策变化风险，公司已制定相应的应对措施。",
              "公司依托数字化管理平台，提升供应链协同效率与订单交付能力。",
              "公司重视知识产权保护，持续完善专利布局，报告期内在{reg}新增专利申请{d2}项。"],
    "第四节": ["公司严格按照《公司法》《证券法》等法律法规的要求，不断完善法人治理结构，"
              "规范公司运作。",
              "报告期内，公司共召开董事会会议{d}次、监事会会议{d2}次、股东大会{d3}次，"
              "会议的召集、召开和表决程序符合有关规定。",
              "公司独立董事勤勉尽责，对关联交易、对外担保、利润分配等事项发表了独立意见。",
              "公司建立了覆盖各业务环节的内部控制体系，报告期内未发现内部控制重大缺陷。",
              "公司董事会下设战略委员会、审计委员会、提名委员会及薪酬与考核委员会，各委员会按照工作细则履行职责。",
              "审计委员会报告期内召开会议{d}次，审议了定期报告、内部审计工作计划及续聘会计师事务所等事项。",
              "公司与控股股东在业务、人员、资产、机构、财务等方面相互独立，具有独立完整的业务及自主经营能力。",
              "公司按照相关规定建立了信息披露管理制度，确保信息披露的真实、准确、完整、及时、公平。",
              "公司董事、监事和高级管理人员的报酬依据公司薪酬制度及考核结果确定。",
              "报告期内，公司不存在同业竞争的情况，亦未发生控股股东干预公司经营决策的情形。"],
    "第五节": ["公司及下属子公司严格遵守环境保护相关法律法规，报告期内未发生重大环境污染事故。",
              "报告期内，公司可再生能源使用比例提升至{p}，单位产值碳排放强度同比下降{p2}。",
              "公司持续开展公益活动，报告期内对外捐赠{amt3}万元，覆盖教育、乡村振兴等领域。",
              "公司建立了职业健康安全管理体系，报告期内员工培训覆盖率达到{p}。",
              "公司推进绿色工厂建设，{reg}生产基地完成光伏屋顶与余热回收改造。",
              "公司开展产品全生命周期碳足迹核算，并将核算结果应用于产品设计与供应商管理。",
              "公司建立了危险废物分类收集与合规处置流程，报告期内危险废物合规处置率为100%。",
              "公司依法保障员工合法权益，建立了多层次的培训与职业发展通道。",
              "公司要求主要供应商签署社会责任承诺书，并定期开展供应商环境与社会责任审核。",
              "公司按照相关规定编制并披露年度可持续发展报告。"],
    "第六节": ["报告期内，公司不存在控股股东及其关联方非经营性占用资金的情况。",
              "报告期内，公司未发生重大诉讼、仲裁事项。",
              "公司及其控股股东、实际控制人诚信状况良好，不存在未履行法院生效判决的情况。",
              "报告期内，公司与关联方发生的日常关联交易金额为{amt3}万元，未超过审议额度。",
              "报告期内，公司不存在违反规定决策程序对外提供担保的情况。",
              "报告期内，公司未发生破产重整相关事项，亦不存在面临退市的情况。",
              "报告期内，公司及控股股东、实际控制人未受到中国证监会的行政处罚。",
              "公司重大合同均按照合同约定正常履行，未发生重大违约情形。",
              "报告期内，公司会计政策变更系根据财政部发布的企业会计准则解释进行的调整，对财务报表无重大影响。",
              "公司聘任的会计师事务所已连续为公司提供审计服务{d}年。"],
    "第七节": ["报告期内，公司股份总数及股本结构未发生重大变化。",
              "报告期末普通股股东总数为{n}户，年度报告披露日前上一月末普通股股东总数为{n2}户。",
              "公司控股股东、实际控制人在报告期内未发生变更。"],
    "第八节": ["报告期公司不存在优先股。"],
    "第九节": ["报告期内，公司存续债券按期足额付息，未出现违约情形。",
              "报告期末，公司EBITDA利息保障倍数为{x}倍，贷款偿还率和利息偿付率均为100%。"],
    "第十节": ["公司财务报表在所有重大方面按照企业会计准则的规定编制，公允反映了公司{yr}年12月31日的"
              "合并及母公司财务状况以及{yr}年度的合并及母公司经营成果和现金流量。",
              "本公司以持续经营为基础，根据实际发生的交易和事项，按照企业会计准则进行确认和计量。",
              "对于应收账款，本公司按照整个存续期内预期信用损失的金额计量其损失准备。",
              "存货按照成本与可变现净值孰低计量，可变现净值低于成本的差额计提存货跌价准备。",
              "固定资产折旧采用年限平均法计提，房屋及建筑物折旧年限为{d}至{d2}年。",
              "本公司对外币交易按交易发生日的即期汇率折算为记账本位币金额。",
              "无形资产按照成本进行初始计量，使用寿命有限的无形资产在使用寿命内采用直线法摊销。",
              "本公司在资产负债表日判断长期资产是否存在可能发生减值的迹象，存在减值迹象的进行减值测试。",
              "收入在客户取得相关商品控制权时确认，对附有质量保证条款的销售按照或有事项准则进行会计处理。",
              "政府补助为货币性资产的，按照收到或应收的金额计量。",
              "本公司以预期信用损失为基础，对金融资产进行减值会计处理并确认损失准备。",
              "合并财务报表的合并范围以控制为基础予以确定，报告期内新纳入合并范围的子公司{d}家。"],
}
SUBHEADS = {
    "第一节": ["重要提示", "释义"],
    "第二节": ["一、公司信息", "二、联系人和联系方式", "三、主要会计数据和财务指标",
              "四、分季度主要财务指标"],
    "第三节": ["一、报告期内公司所处行业情况", "二、报告期内公司从事的主要业务",
              "三、核心竞争力分析", "四、主营业务分析", "五、非主营业务分析", "六、资产及负债状况分析",
              "七、投资状况分析", "八、公司未来发展的展望"],
    "第四节": ["一、公司治理的基本状况", "二、董事、监事和高级管理人员情况", "三、董事会下设专门委员会情况",
              "四、内部控制制度的建设及实施情况"],
    "第五节": ["一、重点排污单位之外的公司的环保情况", "二、社会责任情况", "三、巩固拓展脱贫攻坚成果"],
    "第六节": ["一、承诺事项履行情况", "二、重大诉讼、仲裁事项", "三、重大关联交易", "四、重大合同及其履行情况"],
    "第七节": ["一、股份变动情况", "二、证券发行与上市情况", "三、股东和实际控制人情况"],
    "第八节": ["优先股相关情况"],
    "第九节": ["一、企业债券", "二、公司债券", "三、主要会计数据和财务指标"],
    "第十节": ["一、审计报告", "二、财务报表", "三、公司基本情况", "四、重要会计政策及会计估计",
              "五、合并财务报表项目注释"],
}
BS_ITEMS = ["货币资金", "交易性金融资产", "应收票据", "应收账款", "应收款项融资", "预付款项", "其他应收款",
            "存货", "合同资产", "一年内到期的非流动资产", "其他流动资产", "长期股权投资", "其他权益工具投资",
            "固定资产", "在建工程", "使用权资产", "无形资产", "商誉", "长期待摊费用", "递延所得税资产",
            "其他非流动资产", "短期借款", "应付票据", "应付账款", "合同负债", "应付职工薪酬", "应交税费",
            "其他应付款", "一年内到期的非流动负债", "长期借款", "应付债券", "租赁负债", "预计负债",
            "递延收益", "递延所得税负债"]


def fill_sentence(rng: random.Random, tpl: str, company: Company) -> str:
    up = rng.random() < 0.7
    vals = {
        "amt": f"{rng.uniform(5, 900):.2f}", "amt2": f"{rng.uniform(1, 200):.2f}",
        "amt3": f"{rng.uniform(50, 9000):,.2f}", "p": f"{rng.uniform(0.5, 60):.2f}%",
        "p2": f"{rng.uniform(0.5, 60):.2f}%", "pp": f"{rng.uniform(0.1, 6):.2f}",
        "chg": "增长" if up else "下降", "chg2": "增长" if rng.random() < 0.6 else "下降",
        "n": f"{rng.randint(10000, 4500000):,}", "n2": f"{rng.randint(10000, 4500000):,}",
        "d": str(rng.randint(3, 20)), "d2": str(rng.randint(21, 40)), "d3": str(rng.randint(1, 4)),
        "x": f"{rng.uniform(3, 60):.2f}", "yr": "2025",
        "prod": rng.choice(PRODUCTS[company.code]), "reg": rng.choice(REGIONS),
    }
    return tpl.format(**vals)


def filler_paragraph(rng: random.Random, key: str, company: Company) -> str:
    pool = TOPICS[key]
    n = min(len(pool), rng.randint(2, 4))
    return "".join(fill_sentence(rng, tpl, company) for tpl in rng.sample(pool, n))


GLOSSARY = [("公司、本公司", "指", "{name}"), ("报告期", "指", "2025年1月1日至2025年12月31日"),
            ("中国证监会", "指", "中国证券监督管理委员会"), ("深交所", "指", "深圳证券交易所"),
            ("元、万元、亿元", "指", "人民币元、人民币万元、人民币亿元"),
            ("GWh", "指", "吉瓦时，电池储存或输出电量的计量单位"),
            ("储能", "指", "通过介质或设备把能量存储起来，在需要时再释放的过程"),
            ("BMS", "指", "电池管理系统"), ("PCS", "指", "储能变流器"),
            ("锂离子电池", "指", "依靠锂离子在正负极之间移动来工作的二次电池"),
            ("电芯", "指", "电池的基本单元，由正负极、隔膜和电解液等组成"),
            ("《公司章程》", "指", "{short}现行有效的公司章程"),
            ("股东大会", "指", "{short}股东大会"), ("董事会", "指", "{short}董事会")]
ROLES = ["董事长", "董事、总经理", "董事", "独立董事", "监事会主席", "监事", "财务总监", "董事会秘书",
         "副总经理"]
POLLUTANTS = ["化学需氧量", "氨氮", "总磷", "颗粒物", "氮氧化物", "二氧化硫", "挥发性有机物"]


def filler_table(cv: Canvas, rng: random.Random, key: str, company: Company,
                 kind: str | None = None) -> bool:
    """A table of a shape that fits the section; False (nothing drawn) if it does not fit."""
    kinds = {"第一节": ["glossary"], "第二节": ["info"], "第三节": ["rd", "aging"],
             "第四节": ["board"], "第五节": ["emission"], "第六节": ["related"],
             "第七节": ["holders"], "第九节": ["quarter"], "第十节": ["bs", "bs", "aging"]}
    kind = kind or rng.choice(kinds.get(key, ["quarter"]))
    n = rng.randint(5, 10)
    if kind == "glossary":
        if not cv.room(cv.table_height(1, n)):
            return False
        start = rng.randint(0, len(GLOSSARY) - n)
        rows = [[a, b, c.format(name=company.name, short=company.short)]
                for a, b, c in GLOSSARY[start:start + n]]
        cv.table([120, 30, 333], [[("释义项", 1, 1), ("指", 1, 1), ("释义内容", 1, 1)]], rows, "lcl",
                 caption="释义")
    elif kind == "info":
        if not cv.room(cv.table_height(0, 8, caption=True)):
            return False
        rows = [["股票简称", company.short], ["股票代码", company.code],
                ["股票上市证券交易所", "深圳证券交易所"], ["公司的中文名称", company.name],
                ["公司的外文名称", company.english], ["法定代表人", "（以代称表示）董事长"],
                ["信息披露媒体", "巨潮资讯网"], ["年度报告备置地点", "公司董事会办公室"]]
        cv.table([160, 323], [], rows, "ll", caption="公司信息")
    elif kind == "contact":
        if not cv.room(cv.table_height(1, 5)):
            return False
        rows = [["姓名", "（以代称表示）", "（以代称表示）"], ["联系地址", "公司董事会办公室", "公司董事会办公室"],
                ["电话", f"0{rng.randint(100, 999)}-{rng.randint(10**7, 9 * 10**7)}",
                 f"0{rng.randint(100, 999)}-{rng.randint(10**7, 9 * 10**7)}"],
                ["传真", f"0{rng.randint(100, 999)}-{rng.randint(10**7, 9 * 10**7)}",
                 f"0{rng.randint(100, 999)}-{rng.randint(10**7, 9 * 10**7)}"],
                ["电子信箱", f"ir@{company.code}.example.com", f"ir@{company.code}.example.com"]]
        cv.table([120, 181, 182], [[("", 1, 1), ("董事会秘书", 1, 1), ("证券事务代表", 1, 1)]], rows,
                 "lll", caption="联系人和联系方式")
    elif kind == "nonrecurring":
        items = ["非流动性资产处置损益", "计入当期损益的政府补助", "金融资产公允价值变动损益",
                 "单独进行减值测试的应收款项减值准备转回", "除上述各项之外的其他营业外收入和支出",
                 "减：所得税影响额", "少数股东权益影响额（税后）"]
        if not cv.room(cv.table_height(1, len(items))):
            return False
        rows = [[it] + [money(rng.uniform(1e6, 2e9)) for _ in range(3)] for it in items]
        cv.table([183, 100, 100, 100], [[("项目", 1, 1), ("2025年金额", 1, 1), ("2024年金额", 1, 1),
                                         ("2023年金额", 1, 1)]], rows, "lrrr",
                 caption="非经常性损益项目及金额", unit="单位：元", size=7.4)
    elif kind == "rd":
        if not cv.room(cv.table_height(1, 5)):
            return False
        goals = ["提升能量密度", "延长循环寿命", "降低系统成本", "提升安全性能", "提高转换效率",
                 "缩短交付周期"]
        stages = ["研发阶段", "中试阶段", "量产导入", "已完成"]
        rows = [[f"研发项目{'甲乙丙丁戊己庚辛壬癸'[i]}", rng.choice(goals), rng.choice(stages),
                 rng.choice(["国内领先", "国际先进", "行业领先"])] for i in range(5)]
        cv.table([130, 130, 100, 123], [[("主要研发项目名称", 1, 1), ("项目目的", 1, 1),
                                         ("项目进展", 1, 1), ("拟达到的目标", 1, 1)]], rows, "lccc",
                 caption="主要研发项目情况")
    elif kind == "bs":
        if not cv.room(cv.table_height(1, n)):
            return False
        start = rng.randint(0, len(BS_ITEMS) - n)
        rows = [[it, str(rng.randint(1, 60)), money(rng.uniform(1e7, 9e10)),
                 money(rng.uniform(1e7, 9e10))] for it in BS_ITEMS[start:start + n]]
        cv.table([175, 48, 130, 130], [[("项目", 1, 1), ("附注", 1, 1), ("2025年12月31日", 1, 1),
                                        ("2024年12月31日", 1, 1)]], rows, "lcrr",
                 caption=rng.choice(["合并资产负债表（续）", "母公司资产负债表", "合并资产负债表"]),
                 unit="单位：元")
    elif kind == "aging":
        ages = ["1年以内（含1年）", "1至2年", "2至3年", "3至4年", "4至5年", "5年以上"]
        if not cv.room(cv.table_height(2, len(ages) + 1)):
            return False
        vals = []
        for _ in ages:
            b1, b2 = rng.uniform(1e6, 9e9), rng.uniform(1e6, 9e9)
            vals.append((b1, b1 * rng.uniform(0, 0.2), b2, b2 * rng.uniform(0, 0.2)))
            vals.sort(key=lambda v: -v[0])
        rows = [[a] + [money(x) for x in v] for a, v in zip(ages, vals)]
        rows.append(["合计"] + [money(sum(v[i] for v in vals)) for i in range(4)])
        cv.table([103, 95, 95, 95, 95],
                 [[("账龄", 1, 2), ("期末余额", 2, 1), ("期初余额", 2, 1)],
                  [("账面余额", 1, 1), ("坏账准备", 1, 1), ("账面余额", 1, 1), ("坏账准备", 1, 1)]],
                 rows, "lrrrr", caption=rng.choice(["应收账款按账龄披露", "其他应收款按账龄披露",
                                                     "合同资产按账龄披露"]), unit="单位：元")
    elif kind == "quarter":
        if not cv.room(cv.table_height(1, 3)):
            return False
        items = ["归属于上市公司股东的净利润", "扣除非经常性损益的净利润", "经营活动产生的现金流量净额"]
        rows = [[it] + [money(rng.uniform(1e8, 4e10)) for _ in range(4)] for it in items]
        cv.table([123, 90, 90, 90, 90], [[("项目", 1, 1), ("第一季度", 1, 1), ("第二季度", 1, 1),
                                         ("第三季度", 1, 1), ("第四季度", 1, 1)]], rows, "lrrrr",
                 caption="分季度主要财务指标", unit="单位：元")
    elif kind == "product":
        if not cv.room(cv.table_height(2, 4)):
            return False
        rows = []
        for prod in PRODUCTS[company.code]:
            r1, r2 = rng.uniform(1e9, 9e10), rng.uniform(1e9, 9e10)
            rows.append([prod, money(r1), pct(rng.uniform(0.1, 0.4)), money(r2),
                         pct(rng.uniform(0.1, 0.4))])
        cv.table([103, 100, 90, 100, 90],
                 [[("产品", 1, 2), ("本报告期", 2, 1), ("上年同期", 2, 1)],
                  [("营业收入", 1, 1), ("毛利率", 1, 1), ("营业收入", 1, 1), ("毛利率", 1, 1)]],
                 rows, "lrrrr", caption=rng.choice(["分产品经营情况", "分产品营业收入及毛利率（续）"]),
                 unit="单位：元")
    elif kind == "board":
        if not cv.room(cv.table_height(2, n)):
            return False
        rows = [[f"{rng.choice(ROLES).split('、')[-1][:2]}{'甲乙丙丁戊己庚辛壬癸'[i]}",
                 rng.choice(ROLES), rng.choice(["男", "女"]), str(rng.randint(38, 66)),
                 f"{rng.randint(2015, 2024)}年{rng.randint(1, 12):02d}月", "2027年06月",
                 f"{rng.randint(0, 9 * 10**6):,}"] for i in range(n)]
        cv.table([62, 92, 36, 36, 90, 90, 77],
                 [[("姓名", 1, 2), ("职务", 1, 2), ("性别", 1, 2), ("年龄", 1, 2), ("任期", 2, 1),
                   ("期末持股数（股）", 1, 2)], [("起始日期", 1, 1), ("终止日期", 1, 1)]],
                 rows, "lcccccr", caption="董事、监事和高级管理人员基本情况（示例人员以代称表示）")
    elif kind == "emission":
        if not cv.room(cv.table_height(2, 5)):
            return False
        rows = [[p, rng.choice(["纳管排放", "有组织排放"]), f"{rng.uniform(0.1, 90):.2f}",
                 f"{rng.uniform(1, 200):.3f}", f"{rng.uniform(200, 900):.3f}", "无"]
                for p in rng.sample(POLLUTANTS, 5)]
        cv.table([95, 80, 78, 80, 80, 70],
                 [[("污染物名称", 1, 2), ("排放方式", 1, 2), ("排放浓度（mg/L或mg/m³）", 1, 2),
                   ("排放总量（吨）", 2, 1), ("超标排放情况", 1, 2)],
                  [("实际排放", 1, 1), ("核定排放", 1, 1)]], rows, "lcrrrc",
                 caption="主要污染物排放情况", size=7.2)
    elif kind == "related":
        if not cv.room(cv.table_height(1, n)):
            return False
        rows = [[f"关联方{'甲乙丙丁戊己庚辛壬癸'[i]}", rng.choice(["采购商品", "销售商品", "接受劳务",
                                                              "租赁"]),
                 rng.choice(["市场价格", "协议价格"]), money(rng.uniform(1e6, 9e8)),
                 f"{rng.uniform(0.01, 3):.2f}%"] for i in range(n)]
        cv.table([110, 80, 80, 120, 93], [[("关联交易方", 1, 1), ("关联交易内容", 1, 1),
                                          ("定价原则", 1, 1), ("关联交易金额（元）", 1, 1),
                                          ("占同类交易金额的比例", 1, 1)]], rows, "lccrr",
                 caption="与日常经营相关的关联交易")
    else:  # holders
        if not cv.room(cv.table_height(1, n)):
            return False
        kinds_ = ["境内非国有法人", "境外法人", "国有法人", "境内自然人", "基金、理财产品等"]
        shares = sorted((rng.uniform(0.1, 25) for _ in range(n)), reverse=True)
        rows = [[f"股东{'甲乙丙丁戊己庚辛壬癸'[i]}", rng.choice(kinds_), f"{s:.2f}%",
                 f"{int(s * rng.uniform(4e7, 5e7)):,}"] for i, s in enumerate(shares)]
        cv.table([150, 120, 80, 133], [[("股东名称", 1, 1), ("股东性质", 1, 1), ("持股比例", 1, 1),
                                        ("报告期末持股数量（股）", 1, 1)]], rows, "lcrr",
                 caption="持股5%以上股东或前10名股东持股情况")
    return True


def section_of(company: Company, pno: int) -> tuple[str, int]:
    cur = company.sections[0]
    for s in company.sections:
        if s[1] <= pno:
            cur = s
    return cur


def filler_page(cv: Canvas, company: Company, pno: int) -> None:
    rng = random.Random(f"{company.code}-{pno}")
    title, first = section_of(company, pno)
    key = title.split()[0]
    if pno == first:
        cv.y += 10
        cv.text_center(LEFT, RIGHT, cv.y + 14, title, 15)
        cv.y += 34
    subs = SUBHEADS[key]
    sub = (pno - first) % len(subs)
    cv.heading(subs[sub] + ("" if pno == first else "（续）"), 11)
    two_col = key in ("第四节", "第五节", "第六节") and rng.random() < 0.5
    if two_col:  # left column, then right column, each one run
        gap = 18.0
        mid = LEFT + (WIDTH - gap) / 2
        top = cv.y
        for x0, x1 in ((LEFT, mid), (mid + gap, RIGHT)):
            cv.y = top
            while cv.para(filler_paragraph(rng, key, company), size=9, x0=x0, x1=x1):
                pass
        cv.line(mid + gap / 2, top + 6, mid + gap / 2, BODY_BOTTOM - 10, 0.3)
        return
    tables_ok = key not in ("第八节",)
    forced = None
    if key == "第二节":  # one table a page, each kind once
        forced = ["info", "contact", "nonrecurring", "quarter", "info", "nonrecurring"][
            (pno - first) % 6]
    for _ in range(12):
        if tables_ok and rng.random() < 0.4:
            if not filler_table(cv, rng, key, company, forced):
                break
            tables_ok = forced is None
        elif not cv.para(filler_paragraph(rng, key, company)):
            break
        if rng.random() < 0.12 and cv.room(60) and sub + 1 < len(subs):
            sub += 1
            cv.heading(subs[sub], 10.5)


def cover(cv: Canvas, company: Company) -> None:
    c = company
    cv.text_center(LEFT, RIGHT, 150, c.name, 22)
    cv.text_center(LEFT, RIGHT, 180, c.english, 11)
    cv.text_center(LEFT, RIGHT, 300, "2025年年度报告", 30)
    cv.text_center(LEFT, RIGHT, 350, f"证券代码：{c.code}    证券简称：{c.short}", 11)
    cv.rect_fill(LEFT + 30, 430, RIGHT - 30, 540, 0.93)
    cv.text_center(LEFT, RIGHT, 462, "合成样本，并非发行人披露的年度报告", 13)
    cv.text_center(LEFT, RIGHT, 488, "Synthetic sample modelled on publicly quoted figures;", 11)
    cv.text_center(LEFT, RIGHT, 506, "not the issuer's filing.", 11)
    cv.text_center(LEFT, RIGHT, 526, "本文件由 reportgen samples/generate.py 生成，除标注外数据均为示例。", 8.5)
    cv.text_center(LEFT, RIGHT, 700, "2026年4月", 12)


def contents(cv: Canvas, company: Company) -> None:
    cv.text_center(LEFT, RIGHT, cv.y + 20, "目录", 16)
    cv.y += 50
    for title, first in company.sections:
        dots = "." * 40
        cv.y += 26
        cv.text(LEFT + 40, cv.y, title, 11)
        cv.text(LEFT + 250, cv.y, dots, 9, 0.5)
        cv.text_right(RIGHT - 40, cv.y, str(folio(first)), 11)


# ---- key pages (what the claim ledger quotes) -------------------------------------------

def rows_with_shares(items: list[tuple[str, float, float]], tot_now: float, tot_prev: float
                     ) -> list[list[str]]:
    out = []
    for name, now, prev in items:
        out.append([name, money(now), pct(now / tot_now), money(prev), pct(prev / tot_prev),
                    pct(now / prev - 1)])
    return out


# 300750 and 300014: every figure is illustrative (invented); only the partner and customer
# names on 300750 p.22 and 300014 p.16 are modelled on public statements. See samples/README.md.
CATL_REVENUE = [
    ("动力电池系统", 282541207118.45, 253041467212.79),
    ("储能电池系统", 63918452790.27, 57290148637.52),
    ("电池材料及回收", 30117395441.08, 28701775926.31),
    ("电池矿产资源", 7402119385.66, 5613474590.28),
    ("其他业务", 21333612168.66, 17365687702.43),
]


def catl_page(cv: Canvas, pno: int) -> bool:
    if pno == 21:
        cv.heading("四、主营业务分析", 11)
        cv.heading("1、概述", 10.5)
        cv.para("报告期内，公司实现营业收入4,053.13亿元，同比增长11.96%；动力电池系统与储能电池系统"
                "仍是公司收入的主要来源，电池材料及回收业务保持稳定。")
        tot_now = sum(r[1] for r in CATL_REVENUE)
        tot_prev = sum(r[2] for r in CATL_REVENUE)
        rows = rows_with_shares(CATL_REVENUE, tot_now, tot_prev)
        rows.append(["营业收入合计", money(tot_now), "100.00%", money(tot_prev), "100.00%",
                     pct(tot_now / tot_prev - 1)])
        cv.table([88, 92, 62, 92, 62, 87],
                 [[("项目", 1, 2), ("2025年", 2, 1), ("2024年", 2, 1), ("同比增减", 1, 2)],
                  [("金额", 1, 1), ("占营业收入比重", 1, 1), ("金额", 1, 1), ("占营业收入比重", 1, 1)]],
                 rows, "lrrrrr", caption="2、收入与成本  （1）营业收入构成", unit="单位：元")
        cv.para("储能电池系统收入的增长主要来自大型储能电站与工商业储能项目的交付，"
                "海外储能项目占比有所提升。")
        return True
    if pno == 22:
        cv.heading("（2）公司实物销售收入是否大于劳务收入", 10.5)
        cv.para("是。")
        cv.table([120, 60, 101, 101, 101],
                 [[("产品", 1, 1), ("项目", 1, 1), ("2025年", 1, 1), ("2024年", 1, 1), ("同比增减", 1, 1)]],
                 [["锂离子电池", "销售量", "612.47GWh", "475.32GWh", "28.85%"],
                  ["锂离子电池", "生产量", "676.15GWh", "507.85GWh", "33.14%"],
                  ["锂离子电池", "库存量", "103.92GWh", "61.27GWh", "69.61%"]],
                 "lcrrr", caption="（3）产销情况")
        cv.heading("（4）储能业务", 10.5)
        cv.para("报告期内，公司储能电池系统销量121.12GWh，同比增长29.06%，储能电池系统销量占锂离子电池"
                "销售量的19.78%。公司持续推进大容量储能电芯与液冷储能系统的量产交付，"
                "产品覆盖发电侧、电网侧、工商业及户用储能场景。")
        cv.para("报告期内，公司与海博思创、中车株洲所、思源电气等达成长期战略合作，"
                "双方将在储能技术研发、市场开拓与项目落地等方面开展合作。上述合作为战略合作，"
                "具体业务以双方后续签订的合同为准。")
        cv.para("公司海外储能业务稳步推进，在欧洲、中东、澳洲等地区参与多个大型储能项目，"
                "并通过本地化服务提升交付效率。")
        return True
    if pno == 25:
        cv.heading("（8）主要销售客户和主要供应商情况", 10.5)
        cv.para("公司主要销售客户情况", indent=False)
        first = 37845122906.37
        tot = sum(r[1] for r in CATL_REVENUE)
        others = [22418570311.46, 17906233458.91, 13377104862.05, 11502964117.83]
        rows = [["1", "客户一", money(first), pct(first / tot)]]
        for i, (nm, amt) in enumerate(zip(["客户二", "客户三", "客户四", "客户五"], others), 2):
            rows.append([str(i), nm, money(amt), pct(amt / tot)])
        s = first + sum(others)
        rows.append(["合计", "--", money(s), pct(s / tot)])
        cv.table([50, 180, 140, 113], [[("序号", 1, 1), ("客户名称", 1, 1), ("销售额（元）", 1, 1),
                                       ("占年度销售总额比例", 1, 1)]], rows, "ccrr")
        cv.para("公司前五名客户与公司不存在关联关系，公司董事、监事、高级管理人员、核心技术人员、"
                "持股5%以上股东、实际控制人和其他关联方在主要客户中不直接或间接拥有权益。")
        return True
    return False


EVE_REVENUE = [
    ("消费电池", 21307749518.66, 19684523170.93),
    ("动力电池", 26916402771.58, 23904417283.65),
    ("储能电池", 22846315907.64, 19048119653.27),
    ("其他", 1384917336.21, 1124088209.48),
]


def eve_page(cv: Canvas, pno: int) -> bool:
    if pno == 15:
        cv.heading("四、主营业务分析", 11)
        tot_now = sum(r[1] for r in EVE_REVENUE)
        tot_prev = sum(r[2] for r in EVE_REVENUE)
        cv.para(f"报告期内，公司实现营业收入{tot_now / 1e8:.2f}亿元，同比增长{pct(tot_now / tot_prev - 1)}，"
                f"其中储能电池业务收入同比增长{pct(EVE_REVENUE[2][1] / EVE_REVENUE[2][2] - 1)}。")
        rows = rows_with_shares(EVE_REVENUE, tot_now, tot_prev)
        rows.append(["营业收入合计", money(tot_now), "100.00%", money(tot_prev), "100.00%",
                     pct(tot_now / tot_prev - 1)])
        cv.table([88, 92, 62, 92, 62, 87],
                 [[("分产品", 1, 2), ("2025年", 2, 1), ("2024年", 2, 1), ("同比增减", 1, 2)],
                  [("金额", 1, 1), ("占营业收入比重", 1, 1), ("金额", 1, 1), ("占营业收入比重", 1, 1)]],
                 rows, "lrrrrr", caption="营业收入构成", unit="单位：元")
        return True
    if pno == 16:
        cv.heading("（二）储能电池业务", 10.5)
        cv.para("报告期内，公司储能电池出货量68.57GWh，同比增长37.33%。公司大圆柱与大铁锂储能电池"
                "产品持续放量，荆门、成都等储能电池生产基地产能逐步释放。")
        cv.para("公司储能电池主要客户包括Wärtsilä、ABB、台达电子、中国移动、南方电网、沃太能源等，"
                "覆盖海外储能系统集成、通信备电、电网侧储能及户用储能等应用领域。")
        cv.para("公司持续完善储能产品的安全设计与全生命周期服务体系，报告期内储能电池产品通过多项国际"
                "认证，为海外市场拓展奠定基础。")
        cv.heading("（三）消费电池业务", 10.5)
        cv.para("公司消费电池业务保持稳定，锂原电池与小型锂离子电池在智能表计、智能安防、"
                "电动工具等领域的市场地位持续巩固。")
        return True
    if pno == 19:
        cv.heading("（五）主要销售客户和主要供应商情况", 10.5)
        cv.para("公司主要销售客户情况", indent=False)
        tot = sum(r[1] for r in EVE_REVENUE)
        amts = [6905314287.16, 4717630925.40, 3568219077.93, 2901484416.72, 2410937551.88]
        rows = [[str(i), f"客户{'一二三四五'[i - 1]}", money(a), pct(a / tot)]
                for i, a in enumerate(amts, 1)]
        rows.append(["合计", "--", money(sum(amts)), pct(sum(amts) / tot)])
        cv.table([50, 180, 140, 113], [[("序号", 1, 1), ("客户名称", 1, 1), ("销售额（元）", 1, 1),
                                       ("占年度销售总额比例", 1, 1)]], rows, "ccrr")
        cv.para("公司前五名客户资料中不存在关联方，前五名客户名称按照行业惯例以代称披露。")
        return True
    return False


# 300274. Modelled on publicly quoted figures: the 供应商一 row, the 明阳新能源, 供应商二,
# 欣旺达 and 瑞浦兰钧 percentages, the supplier total, the Algihaz Contracting row, and the
# 储能行业 / 原材料 row. The amounts of supplier rows two to five, every customer row after the
# first, and every other operating-cost row are invented to agree with those figures.
SG_PROCUREMENT = 47475612345.67  # annual procurement (not printed)
SG_SUPPLIERS = [
    ("供应商一", 6928853013.03),
    ("明阳新能源", 1343812406.58),
    ("供应商二", 1234517293.41),
    ("欣旺达", 1210902177.36),
    ("瑞浦兰钧", 1205888424.62),
]
SG_SUPPLIER_TOTAL = 11923973315.00
SG_REVENUE = 89125480127.44  # annual sales (not printed on p.36)
SG_CUSTOMERS = [
    ("Algihaz Contracting", 4010035531.92),
    ("客户二", 2781906415.73),
    ("客户三", 2203117846.29),
    ("客户四", 1768240951.60),
    ("客户五", 1569812330.18),
]
# (行业分类, 项目, 2025, 2024); totals are the year's operating cost
SG_COST_2025, SG_COST_2024 = 60802741256.48, 54540002731.15
SG_COST = [
    ("光伏行业", "原材料", 23517940215.63, 25611780342.19),
    ("光伏行业", "人工工资", 1086528413.90, 1017630992.05),
    ("光伏行业", "制造费用", 1574039166.27, 1488126549.33),
    ("储能行业", "原材料", 20216949877.11, 13907695693.24),
    ("储能行业", "人工工资", 633512498.16, 471230675.58),
    ("储能行业", "制造费用", 902688014.43, 677095318.14),
    ("新能源投资开发", "工程成本", 9852306711.52, 8794115603.37),
    ("其他", "其他", None, None),  # the rest of the year's operating cost
]


def check_sungrow_figures() -> None:
    """The invented rows agree with the quoted ones (fails loudly if someone edits them)."""
    assert abs(sum(a for _, a in SG_SUPPLIERS) - SG_SUPPLIER_TOTAL) < 0.005
    assert abs(sum(a for _, a in SG_SUPPLIERS[1:]) - 4995120301.97) < 0.005
    want = ["14.59%", "2.83%", "2.60%", "2.55%", "2.54%"]
    assert [pct(a / SG_PROCUREMENT) for _, a in SG_SUPPLIERS] == want
    assert pct(SG_SUPPLIER_TOTAL / SG_PROCUREMENT) == "25.12%"
    assert pct(SG_CUSTOMERS[0][1] / SG_REVENUE) == "4.50%"
    assert pct(20216949877.11 / SG_COST_2025) == "33.25%"
    assert pct(13907695693.24 / SG_COST_2024) == "25.50%"


def sungrow_cost_rows() -> list[list[str]]:
    known25 = sum(r[2] for r in SG_COST if r[2] is not None)
    known24 = sum(r[3] for r in SG_COST if r[3] is not None)
    rows = []
    for ind, item, a, b in SG_COST:
        if a is None:
            a, b = round(SG_COST_2025 - known25, 2), round(SG_COST_2024 - known24, 2)
        rows.append([ind, item, money(a), pct(a / SG_COST_2025), money(b), pct(b / SG_COST_2024),
                     pct(a / b - 1)])
    rows.append(["营业成本合计", "--", money(SG_COST_2025), "100.00%", money(SG_COST_2024), "100.00%",
                 pct(SG_COST_2025 / SG_COST_2024 - 1)])
    return rows


def sungrow_page(cv: Canvas, pno: int) -> bool:
    if pno == 28:
        cv.heading("二、报告期内公司从事的主要业务（续）", 11)
        cv.heading("（二）储能系统业务", 10.5)
        cv.para("报告期内，公司储能系统业务保持增长，PowerTitan与PowerStack系列液冷储能系统在大型地面电站、"
                "工商业储能等场景批量交付，海外收入占比进一步提升。")
        cv.para("报告期内，公司沙特7.8GWh储能项目实现全容量并网，该项目为全球规模领先的储能项目之一。"
                "公司在中东、欧洲、澳洲、美洲等市场持续获取大型储能订单。")
        cv.para("公司构建了覆盖电芯选型、系统集成、能量管理与电网支撑的储能技术体系，"
                "并持续提升储能系统的安全性与全生命周期经济性。")
        cv.heading("（三）新能源投资开发业务", 10.5)
        cv.para("公司新能源投资开发业务围绕光伏、风电及储能电站开展开发、建设与运营，"
                "报告期内新增并网规模稳步增长，持有电站的运营效率持续提升。")
        return True
    if pno == 35:
        cv.heading("（3）营业成本构成", 10.5)
        cv.para("行业分类", indent=False)
        cv.table([70, 48, 92, 62, 92, 62, 57],
                 [[("行业分类", 1, 2), ("项目", 1, 2), ("2025年", 2, 1), ("2024年", 2, 1),
                   ("同比增减", 1, 2)],
                  [("金额", 1, 1), ("占营业成本比重", 1, 1), ("金额", 1, 1), ("占营业成本比重", 1, 1)]],
                 sungrow_cost_rows(), "llrrrrr", unit="单位：元")
        cv.para("报告期内，储能行业营业成本随储能系统出货规模扩大而增长，其中原材料为储能行业营业成本的主要构成。")
        return True
    if pno == 36:
        check_sungrow_figures()
        cv.heading("（8）主要销售客户和主要供应商情况", 10.5)
        cv.para("公司主要销售客户情况", indent=False)
        c_total = sum(a for _, a in SG_CUSTOMERS)
        cv.table([250, 233], [[("前五名客户合计销售金额（元）", 1, 1), (money(c_total), 1, 1)]],
                 [["前五名客户合计销售金额占年度销售总额比例", pct(c_total / SG_REVENUE)],
                  ["前五名客户销售额中关联方销售额占年度销售总额比例", "0.00%"]], "lr", row_h=14)
        rows = [[str(i), nm, money(a), pct(a / SG_REVENUE)] for i, (nm, a) in
                enumerate(SG_CUSTOMERS, 1)]
        rows.append(["合计", "--", money(c_total), pct(c_total / SG_REVENUE)])
        cv.table([50, 180, 140, 113], [[("序号", 1, 1), ("客户名称", 1, 1), ("销售额（元）", 1, 1),
                                       ("占年度销售总额比例", 1, 1)]], rows, "ccrr",
                 caption="公司前5大客户资料", row_h=14)
        cv.para("公司主要供应商情况", indent=False)
        cv.table([250, 233], [[("前五名供应商合计采购金额（元）", 1, 1),
                               (money(SG_SUPPLIER_TOTAL), 1, 1)]],
                 [["前五名供应商合计采购金额占年度采购总额比例", pct(SG_SUPPLIER_TOTAL / SG_PROCUREMENT)],
                  ["前五名供应商采购额中关联方采购额占年度采购总额比例", "0.00%"]], "lr", row_h=14)
        rows = [[str(i), nm, money(a), pct(a / SG_PROCUREMENT)] for i, (nm, a) in
                enumerate(SG_SUPPLIERS, 1)]
        rows.append(["合计", "--", money(SG_SUPPLIER_TOTAL),
                     pct(SG_SUPPLIER_TOTAL / SG_PROCUREMENT)])
        cv.table([50, 180, 140, 113], [[("序号", 1, 1), ("供应商名称", 1, 1), ("采购额（元）", 1, 1),
                                       ("占年度采购总额比例", 1, 1)]], rows, "ccrr",
                 caption="公司前5名供应商资料", row_h=14)
        cv.para("主要客户及供应商其他情况说明：前五名供应商中“供应商一”“供应商二”按商业保密约定以代称披露。",
                size=9)
        return True
    return False


KEY_PAGES = {"300750": catl_page, "300014": eve_page, "300274": sungrow_page}


# ---- document ---------------------------------------------------------------------------


def build(company: Company) -> bytes:
    doc = pymupdf.open()
    font_xref = 0
    for pno in range(1, company.pages + 1):
        cv = Canvas(doc, company, pno, font_xref)
        font_xref = cv.font_xref
        if pno == 1:
            cover(cv, company)
        else:
            cv.header()
            if pno == 2:
                contents(cv, company)
            elif not KEY_PAGES[company.code](cv, pno):
                filler_page(cv, company, pno)
        cv.footer()
        cv.commit()
    doc.set_metadata({
        "title": f"{company.name} 2025年年度报告（合成样本 / synthetic sample）",
        "author": "reportgen sample generator",
        "subject": f"{company.short} {company.code}: {DISCLAIMER}",
        "keywords": "synthetic sample; 合成样本; not the issuer's filing; reportgen worked sample",
        "creator": "reportgen samples/generate.py",
        "producer": "PyMuPDF",
        "creationDate": META_DATE,
        "modDate": META_DATE,
    })
    doc.subset_fonts()
    data = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "pdfs", help="output folder")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for company in COMPANIES:
        data = build(company)
        path = args.out / f"{company.code}.pdf"
        path.write_bytes(data)
        print(f"{path}  pages={company.pages}  bytes={len(data)}  "
              f"sha256={hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
