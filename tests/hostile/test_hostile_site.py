"""Hostile tests of the site writer and publishing: crop inlining, the swap, the helper
process, --out checks, and the attack classes that held (XSS, kill -9 during a build)."""

from __future__ import annotations

import base64
import dataclasses
import html.parser
import os
import zipfile
from pathlib import Path

import pytest

import sitekit
from reportgen.site.write import build_site
from reportgen.model import Edge, Entity, Section, Verification

# ---- a site with hostile text in every field the ledger lets a user write ----------------

TEXT_FIELDS = ("report_title", "summary", "section_title", "section_body", "statement",
               "note", "quote", "doc_title", "edge_from", "edge_to", "relation", "gap",
               "valid", "entity", "doc_file")


def hostile_verification(tmp: Path, text: str, fields: tuple[str, ...] = TEXT_FIELDS
                         ) -> Verification:
    """sitekit's Verification with `text` written into each of `fields` (the hand-made
    Verification skips the validator, so ids stay valid and every free-text field is hit)."""
    v = sitekit.make_verification(tmp, payload=False)

    def put(field: str, value: str) -> str:
        return f"{value} {text}" if field in fields else value

    led = v.ledger
    rep = led.reports[0]
    claims = {cid: dataclasses.replace(
        c, statement=put("statement", c.statement), note=put("note", c.note or "n"),
        **({"quote": put("quote", c.quote)} if c.kind == "fact" else {}))
        for cid, c in led.claims.items()}
    docs = dict(led.documents)
    d = docs["d1"]
    path = d.path
    if "doc_file" in fields and "/" not in text and "\0" not in text:
        path = d.path.with_name(f"report {text}.pdf")
        if not path.exists():
            path.write_bytes(d.path.read_bytes())
    docs["d1"] = dataclasses.replace(d, title=put("doc_title", d.title), path=path)
    sections = tuple(Section(put("section_title", s.title), put("section_body", s.body),
                             s.claims) for s in rep.sections)
    # dates are checked only for a leading YYYY-MM-DD, so text may follow one
    edges = (Edge("S1", put("edge_from", "Sungrow"), put("relation", "buys_from"),
                  put("edge_to", "Supplier A"), ("f1",), None, put("valid", "2025-01-01"),
                  put("valid", "2025-12-31"), rep.loc),
             Edge("S1", put("edge_from", "Sungrow"), put("relation", "buys_cells_from"),
                  put("edge_to", "Supplier B"), (), put("gap", "The table names none."),
                  None, None, rep.loc))
    entities = (Entity(put("entity", "Sungrow"), put("entity", "company"),
                       (put("entity", "Sungrow Power"),), rep.loc),)
    rep = dataclasses.replace(rep, title=put("report_title", rep.title),
                              summary=put("summary", rep.summary), sections=sections,
                              edges=edges, entities=entities)
    led = dataclasses.replace(led, reports=(rep,), documents=docs, claims=claims)
    return dataclasses.replace(v, ledger=led)


def bundle_bytes(site: Path) -> list[bytes]:
    """Every entry of the site's bundle, uncompressed."""
    with zipfile.ZipFile(site / "reportgen-bundle.zip") as zf:
        return [zf.read(n) for n in zf.namelist()]


def html_pages(site: Path) -> list[Path]:
    return sorted(site.glob("*.html"))


# ---- 01: a crop marker in claim text never reads a file -----------------------------------

CANARY = b"CANARY-7f3a9c-not-for-the-site"


@pytest.fixture(scope="module")
def crop_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("crops")


@pytest.mark.parametrize("field", ["report_title", "statement", "note", "summary",
                                   "section_body", "section_title", "doc_title", "quote"])
def test_hardening_01_crop_marker_in_a_title_inlines_no_file(tmp_path, crop_cache, field):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(CANARY)
    marks = "".join(f"\ue000crop:{p}\ue001" for p in (
        str(secret), "../secret.txt", "anchors/../../secret.txt", "anchors/f1.png",
        "/proc/self/environ"))
    v = hostile_verification(tmp_path, marks, (field,))
    out = tmp_path / "site"
    build_site(v, out, None, 1, cache_dir=crop_cache)
    page = (out / "S1.standalone.html").read_bytes()
    b64 = base64.b64encode(CANARY)[:-4]
    for blob in [page] + bundle_bytes(out):
        assert CANARY not in blob and b64 not in blob
    # exactly the four crops of S1 (f1, f2, f3 and f3's second page), nothing from the text
    assert page.count(b"data:image/png;base64,") == 4
    assert "\ue000crop:anchors/f1.png\ue001".encode() in page  # the text stays text


@pytest.mark.parametrize("src, allowed", [
    ("anchors/secret.png", {"anchors/f1.png"}),  # not a crop of this build
    ("/tmp/x.png", {"/tmp/x.png"}),  # absolute, even when listed
    ("anchors/../secret.txt", {"anchors/../secret.txt"}),
    ("anchors/sub/../../secret.txt", {"anchors/sub/../../secret.txt"}),
    ("anchors/link.png", {"anchors/link.png"}),  # a symlink out of anchors/
    ("anchors/dir", {"anchors/dir"}),  # not a regular file
])
def test_hardening_01_filler_reads_only_this_builds_crops_under_anchors(tmp_path, src, allowed):
    from reportgen.site.write import read_anchor
    from reportgen.errors import BuildError

    (tmp_path / "secret.txt").write_bytes(CANARY)
    (tmp_path / "anchors").mkdir()
    (tmp_path / "anchors" / "f1.png").write_bytes(b"png")
    (tmp_path / "anchors" / "dir").mkdir()
    (tmp_path / "anchors" / "link.png").symlink_to(tmp_path / "secret.txt")
    assert read_anchor(tmp_path, "anchors/f1.png", {"anchors/f1.png"}) == b"png"
    with pytest.raises(BuildError, match="refusing to inline"):
        read_anchor(tmp_path, src, allowed)


def test_hardening_01_anchors_folder_that_is_a_symlink_is_refused(tmp_path):
    from reportgen.site.write import read_anchor
    from reportgen.errors import BuildError

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f1.png").write_bytes(CANARY)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "anchors").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(BuildError, match="symlink"):
        read_anchor(tmp_path / "site", "anchors/f1.png", {"anchors/f1.png"})


# ---- 10: the helper process goes with its parent --------------------------------------------


def children(pid: int) -> set[int]:
    """Every descendant of `pid` that is still running (zombies count as gone), from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for t in Path(f"/proc/{p}/task").glob("*/children") if Path(f"/proc/{p}").exists() \
                else ():
            try:
                kids = {int(x) for x in t.read_text().split()}
            except OSError:
                continue
            todo.extend(kids - found)
            found |= kids
    return {p for p in found if running(p)}


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def build_cmd(claims: Path, out: Path, *extra: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "reportgen", "build", str(claims), "--out", str(out), *extra]


def build_env(**extra: str) -> dict[str, str]:
    repo = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    return env


def wait_until(pred, limit: float = 15.0, step: float = 0.005) -> bool:
    """Poll `pred` until it holds or `limit` seconds pass (a bound, never asserted on)."""
    import time

    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")


@needs_proc
def test_hardening_10_sigkilled_build_leaves_no_helper_running(tmp_path):
    import signal
    import subprocess

    claims = sitekit.make_ledger(tmp_path)
    for _ in range(5):  # until the kill lands while the helper is up
        proc = subprocess.Popen(build_cmd(claims, tmp_path / "site"), env=build_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        kids: set[int] = set()
        try:
            wait_until(lambda: bool(children(proc.pid)) or proc.poll() is not None)
            kids = children(proc.pid)
            if not kids or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            gone = wait_until(lambda: not any(running(k) for k in kids), limit=10)
            assert gone, f"helper processes {sorted(k for k in kids if running(k))} outlived " \
                         "their killed build"
            return
        finally:
            proc.kill() if proc.poll() is None else None
            proc.wait()
            for k in kids:  # ours: never leave them behind, even when the test fails
                if running(k):
                    os.kill(k, signal.SIGKILL)
    pytest.fail("the build never ran long enough to be killed with its helper up")


# ---- 04: the swap is atomic, an interrupted one is undone, sibling outputs stay apart -------


def run_cli(*args: object, epoch: str | None = None):
    """`reportgen ARGS` in this process (with SOURCE_DATE_EPOCH=`epoch` when given): the
    builds after a kill, where only the site they leave and their exit code matter."""
    from click.testing import CliRunner

    from reportgen.cli import main

    env = {"SOURCE_DATE_EPOCH": epoch} if epoch is not None else None
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


MISS_F1 = "The top five suppliers held 14.59% of all purchases."  # not in the PDF


def test_hardening_04_site_left_aside_by_a_killed_swap_is_put_back_first(tmp_path):
    import shutil

    from reportgen.site.swap import work_dir

    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    assert run_cli("build", claims, "--out", out).exit_code == 0
    before = sitekit.snapshot(out)
    # what a kill between the two renames of a swap leaves: no site, the old one aside
    wd = work_dir(out)
    wd.mkdir(parents=True)
    os.rename(out, wd / "old")
    shutil.copytree(wd / "old", wd / "new")
    (wd / "new" / "S1.html").write_text("the new site, complete or not")
    # the next build fails (a miss): the previous site is back all the same
    sitekit.make_ledger(tmp_path, quote_f1=MISS_F1)
    r = run_cli("build", claims, "--out", out)
    assert r.exit_code == 1 and "MISS f1" in r.stdout
    assert sitekit.snapshot(out) == before
    assert not wd.exists()


def strace_works() -> bool:
    import shutil
    import subprocess

    if shutil.which("strace") is None:
        return False
    r = subprocess.run(["strace", "-qq", "-o", os.devnull, "true"], capture_output=True)
    return r.returncode == 0


needs_strace = pytest.mark.skipif(not strace_works(), reason="needs a working strace")


@needs_strace
def test_hardening_04_killed_between_the_two_renames_the_next_build_puts_the_site_back(
        tmp_path):
    """The review's attack: kill -9 at the third rename() (bundle, site -> old, new -> site),
    with renameat2 failing as on a system without RENAME_EXCHANGE."""
    import subprocess

    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    assert run_cli("build", claims, "--out", out, epoch="1").exit_code == 0
    before = sitekit.snapshot(out)
    r = subprocess.run(["strace", "-qq", "-o", os.devnull, "-e", "trace=rename,renameat2",
                        "-e", "inject=renameat2:error=ENOSYS",
                        "-e", "inject=rename:signal=KILL:when=3",
                        *build_cmd(claims, out)], env=build_env(SOURCE_DATE_EPOCH="2"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    assert r.returncode != 0 and not out.exists()  # killed right between the two renames
    sitekit.make_ledger(tmp_path, quote_f1=MISS_F1)
    r = run_cli("build", claims, "--out", out, epoch="3")
    assert r.exit_code == 1 and "MISS f1" in r.stdout
    assert sitekit.snapshot(out) == before


@needs_strace
@pytest.mark.parametrize("syscall, nth", [("rename", 1), ("rename", 2), ("rename", 3),
                                          ("renameat2", 1)])
def test_hardening_04_kill_at_each_rename_leaves_the_old_site_or_the_new_one(
        tmp_path, two_sites, syscall, nth):
    """kill -9 as the build enters its n-th rename() or renameat2() (the bundle, the swap,
    the fingerprint): the site is the old one or the new one, and the next build works."""
    import shutil
    import subprocess

    claims, old_site, sites, _ = two_sites
    out = tmp_path / "site"
    shutil.copytree(old_site, out)
    # crops from the cache, so the renames are the build's own: bundle, swap, fingerprint
    shutil.copytree(old_site.parent / ".reportgen" / "cache", tmp_path / ".reportgen" / "cache")
    subprocess.run(["strace", "-qq", "-o", os.devnull, "-e", "trace=rename,renameat2",
                    "-e", f"inject={syscall}:signal=KILL:when={nth}", *build_cmd(claims, out)],
                   env=build_env(SOURCE_DATE_EPOCH="2"), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    assert sitekit.snapshot(out) in (sites["1"], sites["2"])
    r = run_cli("build", claims, "--out", out, epoch="2")
    assert r.exit_code == 0 and sitekit.snapshot(out) == sites["2"]


def test_hardening_04_sibling_outputs_never_delete_each_others_temporaries(tmp_path):
    """`site` is built while a build of `site.x` is in the middle of its publish (after
    its swap, before its clean-up), and the other way round."""
    from reportgen.site.publish import publish

    v = sitekit.make_verification(tmp_path, payload=False)
    tmp_root = tmp_path / ".reportgen" / "tmp"

    def entries() -> set[Path]:
        return set(tmp_root.rglob("*")) if tmp_root.exists() else set()

    for first, second in (("site.x", "site"), ("site", "site.x")):
        publish(v, tmp_path / first)
        seen: list[set[Path]] = []

        def meanwhile(_: Path, second: str = second) -> None:
            mine = entries()
            assert mine  # the first build's own temporary (its previous site) is there
            publish(v, tmp_path / second)
            seen.append(mine - entries())

        publish(v, tmp_path / first, on_swapped=meanwhile)
        assert seen == [set()], f"building {second} deleted {first}'s {sorted(seen[0])}"
        assert (tmp_path / first / "index.html").is_file()
        assert (tmp_path / second / "index.html").is_file()
    assert entries() == set()


# ---- 12: --out is checked before anything is created; a write error names what it wrote ----


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("kind", ["folder of other files", "file"])
def test_hardening_12_refused_out_creates_nothing(tmp_path, kind, jobs):
    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "docs2"
    if kind == "file":
        out.write_text("precious")
    else:
        out.mkdir()
        (out / "thesis.tex").write_text("precious")
    r = run_cli("build", claims, "--out", out, "-j", jobs)
    assert "Traceback" not in r.output
    if kind == "file":  # click's own check of --out: a usage error
        assert r.exit_code == 2 and "is a file" in r.output
    else:
        assert r.exit_code == 1 and "not a reportgen site" in r.stderr
    assert r.stdout == ""  # refused before verifying: no verdict lines
    assert not (tmp_path / ".reportgen").exists()  # no cache, no templates, no crops


def test_hardening_12_out_root_is_refused_before_anything(tmp_path):
    from reportgen.site.publish import check_out
    from reportgen.errors import BuildError

    with pytest.raises(BuildError, match="filesystem root"):
        check_out(Path("/"))
    if os.path.lexists("/.reportgen"):
        pytest.skip("/.reportgen exists already: cannot tell whether a build made it")
    claims = sitekit.make_ledger(tmp_path)
    r = run_cli("build", claims, "--out", "/", "-j", "2")
    assert r.exit_code == 1 and "filesystem root" in r.stderr
    assert not os.path.lexists("/.reportgen")


def big_pdf_ledger(tmp: Path, size: int) -> Path:
    """sitekit's ledger with its PDF padded by `size` random bytes (an embedded file)."""
    import pymupdf

    claims = sitekit.make_ledger(tmp)
    pdf = tmp / "docs" / "report.pdf"
    doc = pymupdf.open(pdf)
    doc.embfile_add("pad", os.urandom(size))
    doc.save(tmp / "docs" / "big.pdf")
    doc.close()
    os.replace(tmp / "docs" / "big.pdf", pdf)
    return claims


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs RLIMIT_FSIZE")
def test_hardening_12_file_size_limit_names_the_output_file_not_the_source_pdf(tmp_path):
    import resource
    import subprocess

    claims = big_pdf_ledger(tmp_path, 3_000_000)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    r = subprocess.run(build_cmd(claims.relative_to(tmp_path), Path("site")), cwd=tmp_path,
                       env=build_env(), preexec_fn=limit, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    # the checked bytes are kept in the state folder, then linked into site/pdfs/
    assert "cannot write .reportgen/cache/pdfs/.tmp-" in r.stderr, r.stderr
    assert "(File too large)" in r.stderr
    assert "docs/report.pdf" not in r.stderr and not (tmp_path / "site").exists()


# ---- held: XSS in every field the ledger lets a user write ---------------------------------

XSS_PAYLOADS = [
    "<script>alert('xss1')</script>",
    "\"><script>alert('xss2')</script>",
    "'><img src=x onerror=alert('xss3')>",
    "<img src=x onerror=alert('xss4')>",
    "<svg onload=alert('xss5')>",
    "<svg><script>alert('xss6')</script></svg>",
    "</title><script>alert('xss7')</script>",
    "</textarea><script>alert('xss8')</script>",
    "</script><script>alert('xss9')</script>",
    "<iframe src=\"javascript:alert('xss10')\"></iframe>",
    "<a href=\"javascript:alert('xss11')\">xss11</a>",
    "[xss12](javascript:alert(12))",
    "[xss13](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<javascript:alert('xss14')>",
    "![xss15](https://evil.example/xss15.png)",
    "<style>body{display:none}</style>xss16",
    "<body onload=alert('xss17')>",
    "<details open ontoggle=alert('xss18')>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert('xss19')>",
    "<!--xss20--><script>alert(20)</script>",
    "<![CDATA[xss21]]><script>alert(21)</script>",
    "&lt;script&gt;alert('xss22')&lt;/script&gt;",
    "&#60;script&#62;alert('xss23')&#60;/script&#62;",
    "{{ 7*7 }} {% raw %}xss24",
    "javascript:alert('xss25')",
    "\" onmouseover=\"alert('xss26')",
    "' onfocus='alert(27)' autofocus='",
    "\u2028\u2029<script>alert('xss28')</script>",
    "<scr<script>ipt>alert('xss29')</scr</script>ipt>",
    "<SCRIPT SRC=//evil.example/xss30.js></SCRIPT>",
    "<object data=\"javascript:alert('xss31')\">",
    "<base href=\"//evil.example/xss32/\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert('xss33')\">",
    "<form action=javascript:alert('xss34')><button>xss34</button></form>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert('xss35')>\">",
]
# what Markdown fields (summary, section bodies) may add on their own
MARKDOWN_TAGS = {"p", "em", "strong", "code", "a", "ul", "ol", "li", "blockquote", "pre",
                 "hr", "br", "h1", "h2", "h3", "h4", "h5", "h6"}
URL_ATTRS = {"href", "src", "action", "formaction", "data", "xlink:href"}


class PageShape(html.parser.HTMLParser):
    """The tags, attributes, URLs, scripts and styles of a page."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: set[tuple[str, str]] = set()
        self.urls: list[tuple[str, str, str]] = []
        self.scripts: list[tuple[str | None, str]] = []
        self.styles: list[str] = []
        self._in: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for k, v in attrs:
            self.attrs.add((tag, k))
            if k in URL_ATTRS:
                self.urls.append((tag, k, v or ""))
        if tag == "script":
            self.scripts.append((dict(attrs).get("src"), ""))
        if tag in ("script", "style"):
            self._in = tag
            if tag == "style":
                self.styles.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            src, text = self.scripts[-1]
            self.scripts[-1] = (src, text + data)
        elif self._in == "style":
            self.styles[-1] += data


def site_shapes(site: Path) -> dict[str, PageShape]:
    return {p.name: PageShape(p.read_text(encoding="utf-8")) for p in html_pages(site)}


@pytest.fixture(scope="module")
def benign(tmp_path_factory, crop_cache) -> dict[str, PageShape]:
    tmp = tmp_path_factory.mktemp("benign")
    build_site(hostile_verification(tmp, "benign words"), tmp / "site", None, 1,
               cache_dir=crop_cache)
    return site_shapes(tmp / "site")


@pytest.mark.parametrize("payload", XSS_PAYLOADS, ids=[f"xss{i + 1}" for i in
                                                        range(len(XSS_PAYLOADS))])
def test_xss_payload_in_every_field_stays_text(tmp_path, crop_cache, benign, payload):
    v = hostile_verification(tmp_path, payload)
    out = tmp_path / "site"
    build_site(v, out, None, 1, cache_dir=crop_cache)
    shapes = site_shapes(out)
    assert sorted(shapes) == ["S1.html", "S1.standalone.html", "index.html"]
    for name, shape in shapes.items():
        base = benign[name]
        text = (out / name).read_text(encoding="utf-8")
        if any(ch in payload for ch in "<>\""):  # every one of these must come out escaped
            assert payload not in text, name
        assert shape.tags <= base.tags | MARKDOWN_TAGS, (name, shape.tags - base.tags)
        assert shape.attrs <= base.attrs | {("a", "href")}, (name, shape.attrs - base.attrs)
        assert not any(k.startswith("on") for _, k in shape.attrs), name
        assert shape.scripts == base.scripts, name  # the site's own script, and only it
        assert shape.styles == base.styles, name
        for tag, attr, url in shape.urls:
            scheme = url.strip().lower()
            assert not scheme.startswith(("javascript:", "vbscript:", "data:text")), \
                (name, tag, attr, url)
            if scheme.startswith("data:"):
                assert (tag, attr) == ("img", "src") and url.startswith(
                    "data:image/png;base64,"), (name, url)


# ---- held: kill -9 at any moment of a build over a previous site ---------------------------


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory):
    """A ledger, its site as built at time 1 (the previous site) and at time 2 (the one a
    build at time 2 must leave complete), and how long a build process runs here."""
    import subprocess
    import time

    tmp = tmp_path_factory.mktemp("kill")
    claims = sitekit.make_ledger(tmp)
    assert run_cli("build", claims, "--out", tmp / "1" / "site", epoch="1").exit_code == 0
    start = time.monotonic()
    subprocess.run(build_cmd(claims, tmp / "2" / "site"),
                   env=build_env(SOURCE_DATE_EPOCH="2"), check=True, capture_output=True)
    took = time.monotonic() - start
    sites = {epoch: sitekit.snapshot(tmp / epoch / "site") for epoch in ("1", "2")}
    assert sites["1"] != sites["2"]
    return claims, tmp / "1" / "site", sites, took


@pytest.mark.parametrize("seed", range(5))
def test_kill_9_during_a_build_leaves_the_old_site_or_the_new_one(tmp_path, two_sites, seed):
    import random
    import shutil
    import signal
    import subprocess
    import time

    claims, old_site, sites, took = two_sites
    out = tmp_path / "site"
    shutil.copytree(old_site, out)
    when = random.Random(seed).uniform(0.1, 1.1) * took  # before, during or after the swap
    proc = subprocess.Popen(build_cmd(claims, out), env=build_env(SOURCE_DATE_EPOCH="2"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(when)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    now = sitekit.snapshot(out)
    assert now in (sites["1"], sites["2"]), "the site is half old, half new, or missing"
    r = run_cli("build", claims, "--out", out, epoch="2")
    assert r.exit_code == 0 and sitekit.snapshot(out) == sites["2"]
    assert list((tmp_path / ".reportgen" / "tmp").iterdir()) == []


def test_hardening_01_a_template_cannot_inline_a_file_that_is_no_crop(tmp_path, crop_cache):
    """A user template is trusted with layout, not with reading files into the page."""
    from reportgen.errors import BuildError

    secret = tmp_path / "secret.txt"
    secret.write_bytes(CANARY)
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    body = (Path(__file__).resolve().parents[2] / "templates" / "report.html").read_text()
    (tpl / "report.html").write_text(body.replace(
        "{% block body %}", '{% block body %}<img src="{{ img("' + str(secret) + '") }}">', 1))
    v = hostile_verification(tmp_path, "plain", ())
    with pytest.raises(BuildError, match="not one of this build's crops"):
        build_site(v, tmp_path / "site", tpl, 1, cache_dir=crop_cache)
