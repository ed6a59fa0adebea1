"""The compiled reader of a text page's characters (`pagechars.cpp`), used where `make` could
build it for the installed PyMuPDF: it gives the lines rawdict gives without a Python dict
per character (about a fifth of the time). Without it, or for another MuPDF, the text
layer reads rawdict: the same characters and boxes, only slower.

    python -m reportgen.pdf.native     # what `make` runs: build it, or say why not
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from types import ModuleType

SOURCE = Path(__file__).with_name("pagechars.cpp")
# PyMuPDF's `JM_char_bbox(const mupdf::FzStextLine&, const mupdf::FzStextChar&)`, the box
# rawdict gives a character; the compiled reader calls it for every character.
CHAR_BBOX = "_Z12JM_char_bboxRKN5mupdf11FzStextLineERKNS_11FzStextCharE"
# Set to "off" to read every page through rawdict (to compare, or to rule the reader out).
ENV = "REPORTGEN_NATIVE"


class NativeBuildError(Exception):
    """The reader could not be built here (no compiler, no MuPDF headers, a compile error)."""


def target() -> Path:
    """Where the built reader goes: beside its source, named for this Python."""
    import sysconfig

    return SOURCE.with_name("pagechars" + sysconfig.get_config_var("EXT_SUFFIX"))


def compiler() -> str | None:
    """The C++ compiler to build with: $CXX, else c++ or g++ on the PATH."""
    import shutil

    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")


def missing() -> str | None:
    """What keeps the reader from being built here (no compiler, no Python or MuPDF
    headers), or None."""
    import sysconfig

    import pymupdf

    if not compiler():
        return "no C++ compiler (c++ or g++; or set CXX)"
    python_h = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not python_h.is_file():
        return f"no Python headers ({python_h}; Debian: python3-dev)"
    if not (_mupdf_include() / "mupdf" / "fitz" / "structured-text.h").is_file():
        return f"PyMuPDF {pymupdf.VersionBind} ships no MuPDF headers"
    return None


def _mupdf_include() -> Path:
    import pymupdf

    return Path(pymupdf.__file__).parent / "mupdf-devel" / "include"


def build(out: Path | None = None) -> Path:
    """Compile `pagechars.cpp` against this Python and the installed PyMuPDF's MuPDF headers,
    into `out` (default `target()`), replaced atomically: a running build keeps the old."""
    import subprocess
    import sysconfig
    import tempfile

    import pymupdf

    from reportgen.pdf.files import write_atomic

    why = missing()
    if why:
        raise NativeBuildError(why)
    cxx = compiler()
    out = out or target()
    with tempfile.TemporaryDirectory() as scratch:
        built = Path(scratch) / out.name
        done = subprocess.run(
            [cxx, "-O2", "-shared", "-fPIC", "-std=c++17", "-fvisibility=hidden",
             f'-DPYMUPDF_VERSION="{pymupdf.VersionBind}"',
             "-I", sysconfig.get_paths()["include"], "-I", str(_mupdf_include()),
             str(SOURCE), "-o", str(built)], capture_output=True, text=True)
        if done.returncode != 0:
            err = done.stderr.strip()[-2000:]
            raise NativeBuildError(f"{cxx} failed with exit status {done.returncode}"
                                   + (f": {err}" if err else ""))
        return write_atomic(out.parent, [built.read_bytes()], lambda: out, out.suffix,
                            mode=0o755)


def usable(module: ModuleType, mupdf_version: str, pymupdf_version: str) -> bool:
    """True when `module` was built for this MuPDF and this PyMuPDF: the structures it
    reads are laid out as that MuPDF's headers say, and PyMuPDF's box function takes what
    it passes."""
    return (getattr(module, "MUPDF_VERSION", None) == mupdf_version
            and getattr(module, "PYMUPDF_VERSION", None) == pymupdf_version)


@functools.cache
def load() -> ModuleType | None:
    """The built reader, bound to PyMuPDF's box function; None when it is switched off,
    not built, built for another MuPDF, or PyMuPDF lacks the function."""
    if os.environ.get(ENV, "").lower() == "off":
        return None
    import ctypes

    import pymupdf

    try:
        from reportgen.pdf import pagechars  # type: ignore[attr-defined]
    except ImportError:
        return None
    if not usable(pagechars, pymupdf.mupdf.FZ_VERSION, pymupdf.VersionBind):
        return None
    try:
        extra = ctypes.CDLL(pymupdf._extra.__file__)  # the copy PyMuPDF already loaded
        address = ctypes.cast(getattr(extra, CHAR_BBOX), ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    pagechars.init(address)
    return pagechars


if __name__ == "__main__":  # `make`: build it, or say in one line why the reader is off
    try:
        build()
    except (NativeBuildError, OSError) as e:
        print(f"reportgen: the compiled text reader was not built ({e}); pages are read "
              "through PyMuPDF's rawdict instead (the same text and boxes, slower); to retry, "
              "run `python -m reportgen.pdf.native`", file=sys.stderr)
