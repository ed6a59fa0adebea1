"""Replace a folder by another in one step, and undo a swap a killed build left half done.

Stdlib only. Each output owns one work folder, `.reportgen/tmp/<hash of its absolute
path>` beside it, holding `new` (the site being built) and, only in the middle of a
two-rename swap, `old`; nothing else in `.reportgen/tmp/` is ever touched, so builds into
sibling folders (`site`, `site.x`) never delete each other's files.

The swap is renameat2(RENAME_EXCHANGE) where the C library and the filesystem have it
(Linux 3.15+, glibc 2.28+): the output is the old site or the new one at every instant.
Elsewhere it is two renames, out -> old and new -> out; a kill between them leaves no
output but a complete `old`, which recover() puts back before anything else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from reportgen.errors import BuildError
from reportgen.pdf.files import open_regular_fd

STATE_DIR = ".reportgen"  # beside the output: crop cache, lock files, temporary folders
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def full_path(out: Path) -> Path:
    """The output's absolute path, its parent's symlinks resolved (the output itself may
    be missing, so it is not resolved)."""
    p = os.path.abspath(out)
    return Path(os.path.realpath(os.path.dirname(p))) / os.path.basename(p)


def state_dir(out: Path) -> Path:
    """`.reportgen` beside the output."""
    return full_path(out).parent / STATE_DIR


def work_dir(out: Path) -> Path:
    """This output's own temporary folder: named by a hash of its full path, so no other
    output's name can match it."""
    digest = hashlib.sha256(os.fsencode(full_path(out))).hexdigest()[:32]
    return state_dir(out) / "tmp" / digest


def lock_path(out: Path) -> Path:
    """`.reportgen/<name>.lock` beside the output (one output per name in a folder)."""
    return state_dir(out) / f"{full_path(out).name}.lock"


@contextlib.contextmanager
def locked(out: Path) -> Iterator[IO[str]]:
    """Hold the output's lock (flock) or fail at once with BuildError."""
    import fcntl

    path = lock_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    # not followed nor waited on: a workspace may bring a symlink or a FIFO in its place
    try:
        fd = open_regular_fd(path, os.O_RDWR | os.O_CREAT)
    except OSError as e:
        raise BuildError(f"cannot open the lock {path} ({e.strerror}); remove it if it is a "
                         "symlink, and run again") from None
    if fd is None:
        raise BuildError(f"the lock {path} is not a regular file; remove it and run again")
    with open(fd, "a+") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildError(f"another build is writing {out} (lock {path} is held); "
                             "wait for it to finish and run again") from None
        yield lock


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one atomic step; False where the system cannot."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False  # an old kernel, or a filesystem without RENAME_EXCHANGE
    raise OSError(err, os.strerror(err), os.fspath(a), None, os.fspath(b))


def swap(new: Path, out: Path) -> None:
    """Put folder `new` (inside work_dir(out)) in the place of `out`. Afterwards `new`
    holds the previous output, if there was one, for the caller to delete."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    if exchange(new, out):
        return
    old = new.parent / "old"
    os.rename(out, old)
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    os.rename(old, new)


def recover_locked(out: Path) -> bool:
    """Under the output's lock: put back the previous output a killed swap left in `old`,
    then delete this output's temporary folders. True when something was put back."""
    wd = work_dir(out)
    restored = False
    old = wd / "old"
    if not os.path.lexists(out) and old.is_dir() and not old.is_symlink():
        os.rename(old, out)
        restored = True
    shutil.rmtree(wd, ignore_errors=True)
    return restored


def recover(out: Path) -> bool:
    """recover_locked() when a killed build left this output's work folder behind (and no
    build holds the lock); creates nothing otherwise."""
    if not work_dir(out).exists():
        return False
    try:
        with locked(out):
            return recover_locked(out)
    except BuildError:  # a build is running: it recovers, or is in its own swap
        return False
    except OSError as e:
        raise BuildError(f"cannot put back the previous site from {work_dir(out) / 'old'} "
                         f"({e.strerror or e}); move that folder to {out} by hand",
                         file=out) from None
