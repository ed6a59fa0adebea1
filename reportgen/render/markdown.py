"""Markdown for summaries and section bodies, with `[@id]` / `[@a; @b]` citations as chips.

markdown-it-py in CommonMark mode with raw HTML off and images off (an image is a
request to another host). The citation syntax is a small inline rule written here,
since no maintained markdown-it-py plugin parses pandoc-style `[@id; @id]` groups.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

# the same grammar the ledger validator uses (reportgen/ledger/load.py): a bracketed group
# starting with @, every @id inside it a citation ("[@a; @b]", "[@a, @b]")
CITE_RE = re.compile(r"\[(@[^\[\]]*)\]")
ID_RE = re.compile(r"@([A-Za-z0-9][A-Za-z0-9._-]*)")


def cited_ids(text: str) -> list[str]:
    """Every claim id cited in a Markdown text, in order."""
    return [i for m in CITE_RE.finditer(text or "") for i in ID_RE.findall(m.group(1))]


def _cite_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "[" or state.src.startswith("[@", state.pos) is False:
        return False
    m = CITE_RE.match(state.src, state.pos)
    if not m:
        return False
    ids = ID_RE.findall(m.group(1))
    if not ids:
        return False
    if not silent:
        tok = state.push("cite", "", 0)
        tok.meta = {"ids": ids}
    state.pos = m.end()
    return True


def make_renderer(chip: Callable[[str], str]) -> Callable[[str], str]:
    """A function Markdown -> HTML whose citations are rendered by `chip(id)` (which must
    return already-escaped HTML)."""
    md = MarkdownIt("commonmark", {"html": False})
    md.disable("image")
    md.inline.ruler.before("link", "cite", _cite_rule)

    def render_cite(self, tokens, idx, options, env) -> str:  # bound to the renderer
        ids = tokens[idx].meta["ids"]
        return '<span class="cite">' + "".join(chip(i) for i in ids) + "</span>"

    md.add_render_rule("cite", render_cite)
    return md.render
