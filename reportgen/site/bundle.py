"""A deterministic zip of a built site: entries sorted, one fixed timestamp, fixed
permissions, and names that cannot escape the folder the zip is unpacked into."""

from __future__ import annotations

import os
import re
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path

from reportgen.errors import BuildError

PREFIX = "reportgen-bundle/"  # everything unpacks into one folder
_STORED = {".pdf", ".png", ".zip", ".jpg", ".jpeg", ".gz"}  # already compressed
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")


def zip_timestamp() -> tuple[int, int, int, int, int, int]:
    """SOURCE_DATE_EPOCH (clamped to the zip range) or 1980-01-01 00:00:00."""
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde is None or not sde.strip().isdigit():
        return (1980, 1, 1, 0, 0, 0)
    t = time.gmtime(max(int(sde), 315532800))  # 1980-01-01, the earliest a zip can hold
    if t.tm_year > 2107:
        return (2107, 12, 31, 23, 59, 58)
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec - t.tm_sec % 2)


def check_entry_name(name: str) -> str:
    """Refuse a name that would write outside the bundle folder when unpacked."""
    parts = name.split("/")
    if (not name or name.startswith("/") or "\\" in name or "\0" in name
            or _WINDOWS_DRIVE.match(name) or any(p in ("", ".", "..") for p in parts)):
        raise BuildError(f"refusing bundle entry {name!r}: it could write outside the bundle folder")
    return name


def write_bundle(zip_path: Path, files: Iterable[tuple[str, Path]]) -> int:
    """Write (arcname, source file) pairs, sorted by arcname, under PREFIX. -> entry count."""
    entries = sorted({check_entry_name(a): p for a, p in files}.items())
    ts = zip_timestamp()
    tmp = zip_path.with_name(zip_path.name + ".part")
    with zipfile.ZipFile(tmp, "w") as zf:
        for arc, src in entries:
            info = zipfile.ZipInfo(PREFIX + arc, date_time=ts)
            info.external_attr = 0o100644 << 16  # regular file, rw-r--r--
            info.create_system = 3  # unix, so the permissions above are honoured
            # standalone pages are mostly base64 PNG: deflate saves little and costs much
            stored = Path(arc).suffix.lower() in _STORED or arc.endswith(".standalone.html")
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            with open(src, "rb") as f:
                data = f.read()
            zf.writestr(info, data, compresslevel=None if stored else 6)
    os.replace(tmp, zip_path)
    return len(entries)
