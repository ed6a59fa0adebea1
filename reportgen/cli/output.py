"""Standard output as the commands write it: escaped where the encoding lacks a
character, quiet when the reader has gone, an error when the disk refuses."""

from __future__ import annotations

import io
import os


class OutputError(Exception):
    """Standard output cannot be written (disk full, a read-only descriptor): not a bug."""


def _escape(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: a character the encoding lacks becomes its \\uXXXX escape
    (\\UXXXXXXXX beyond the BMP), as YAML double-quoted strings (`find --stub`) read them
    back; JSON lines are plain ASCII instead (`json_line`)."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    Output.escaped = True
    return "".join(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                   for c in err.object[err.start:err.end]), err.end


class Output(io.TextIOWrapper):
    """Standard output as the commands write it: what the encoding cannot show is escaped
    (`_escape`); a reader that has gone (EPIPE, `| head -1`) is not an error, the output
    is dropped and the command ends as it would have; another write error (`>/dev/full`)
    drops it too and raises OutputError."""

    escaped = False

    @classmethod
    def over(cls, stream):
        """A new wrapper over `stream`'s buffer, or `stream` itself when it has none."""
        import codecs

        if not hasattr(stream, "buffer"):
            return stream
        codecs.register_error("reportgen.escape", _escape)
        return cls(stream.buffer, encoding=stream.encoding, errors="reportgen.escape",
                   line_buffering=stream.line_buffering)

    def _drop(self, err: OSError) -> None:
        """Send what is still buffered, and anything written later, to /dev/null."""
        import errno

        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.fileno())
        finally:
            os.close(devnull)
        if err.errno != errno.EPIPE:
            raise OutputError(err.strerror or str(err)) from err

    def write(self, s: str) -> int:
        try:
            return super().write(s)
        except OSError as e:
            self._drop(e)
            return len(s)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as e:
            self._drop(e)


STDOUT_CLOSED = ("reportgen: standard output is closed, so nothing can be printed; "
                 "redirect it (e.g. >/dev/null) instead of closing it")


def shown(filename) -> str:
    """A file name for a message (display_path cuts an absurdly long one short)."""
    from reportgen.errors import display_path

    return display_path(os.fsdecode(filename))
