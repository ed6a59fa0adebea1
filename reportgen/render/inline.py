"""Crop slots in standalone pages, filled with data: URIs once the crops exist.

A standalone page can then be rendered while its crops are still being made (build.py
renders pages in a helper process while this one renders crops), and only the cheap fill
waits for them. Stdlib only.

The page comes back as a structure: literal segments with a crop slot between each two,
each slot naming a crop the renderer itself asked for. Claim text can never become a slot:
the renderer stands in for each crop with a placeholder holding a token drawn afresh for
every render (128 random bits, unknown to whoever wrote the ledger), splits the page on
those placeholders alone, and records only crops from the build's own list.
"""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass

from reportgen.errors import BuildError


@dataclass(frozen=True)
class SlottedPage:
    """An HTML page as `parts[0] slot[0] parts[1] ... slot[-1] parts[-1]`."""

    parts: tuple[str, ...]
    slots: tuple[str, ...]  # site paths of crops ("anchors/f1.png"), one per gap


class CropSlots:
    """The `img` of one standalone render: records each crop and returns its placeholder."""

    def __init__(self, allowed: Collection[str]) -> None:
        self._allowed = frozenset(allowed)
        self._token = secrets.token_hex(16)
        self._srcs: list[str] = []

    def __call__(self, src: str) -> str:
        if src not in self._allowed:  # a (user) template asking for a file that is no crop
            raise BuildError(f"a template asked to inline {src!r}, which is not one of this "
                             "build's crops; pass img() only the crops of a claim (c.crops)")
        self._srcs.append(src)
        return f"\ue000{self._token}:{len(self._srcs) - 1}\ue001"

    def split(self, html: str) -> SlottedPage:
        """Cut the rendered page at this render's placeholders (and nowhere else)."""
        mark = re.compile("\ue000" + self._token + r":(\d+)\ue001")
        parts, slots, pos = [], [], 0
        for m in mark.finditer(html):
            parts.append(html[pos:m.start()])
            slots.append(self._srcs[int(m.group(1))])
            pos = m.end()
        parts.append(html[pos:])
        return SlottedPage(tuple(parts), tuple(slots))


def data_uri(png: bytes) -> str:
    """A PNG as a data: URI, so the standalone page needs no other file."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def fill_crops(page: SlottedPage, read: Callable[[str], bytes]) -> str:
    """The page with every slot replaced by its crop's data URI (read(src) gives its bytes)."""
    out = [page.parts[0]]
    for src, part in zip(page.slots, page.parts[1:]):
        out += [data_uri(read(src)), part]
    return "".join(out)
