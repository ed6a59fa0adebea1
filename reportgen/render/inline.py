"""Crop markers in standalone pages, filled with data: URIs once the crops exist.

A standalone page can then be rendered while its crops are still being made (build.py
renders pages in a helper process while this one renders crops), and only the cheap fill
waits for them. Stdlib only. The marker uses private-use characters, which HTML escaping
leaves alone, around the crop's site path (fact ids never need escaping).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable

_OPEN, _CLOSE = "\ue000crop:", "\ue001"
_MARK = re.compile(re.escape(_OPEN) + "([^" + _CLOSE + "]*)" + _CLOSE)


def crop_mark(src: str) -> str:
    """The stand-in for anchors/<name>.png's data URI."""
    return _OPEN + src + _CLOSE


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def fill_crops(html: str, read: Callable[[str], bytes]) -> str:
    """Replace every crop marker with the crop's data URI (read(src) gives its bytes)."""
    return _MARK.sub(lambda m: data_uri(read(m.group(1))), html)
