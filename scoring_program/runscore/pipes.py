"""Output whose reader went away: `runscore ... | head` keeps the command's exit code.

Why a module of its own: when the reader of stdout or stderr exits early (head, a pager closed), the next write
raises BrokenPipeError wherever the command happens to print. Raised in the middle of a command it ended the
command with an exit code that says nothing about the runs: 0 for invalid runs whose verdicts went to a closed
stdout, 1 (Python's, for an exception raised while handling another) for a bad reference whose messages went to a
closed stderr instead of 2, and score.py reported an internal error. Here both streams discard what they can no
longer write once their reader is gone, so the command runs to its end and exits 0, 1 or 2 as it would have; what
is lost is only what nobody was reading. The process's own descriptor is pointed at /dev/null then, so that the
interpreter's last flush at exit cannot fail either.
"""
import contextlib
import os
import sys


class _Discarding:
    """A text or binary stream that swallows BrokenPipeError (and everything written after it)."""

    def __init__(self, stream, gone=None):
        self._stream = stream
        self._gone = gone if gone is not None else [False]        # shared with the binary buffer below

    def write(self, data):
        if not self._gone[0]:
            try:
                return self._stream.write(data)
            except BrokenPipeError:
                self._reader_left()
        return len(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if not self._gone[0]:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_left()

    @property
    def buffer(self):
        return _Discarding(self._stream.buffer, self._gone)

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def _reader_left(self):
        self._gone[0] = True
        try:
            descriptor = self._stream.fileno()
        except (AttributeError, OSError, ValueError):            # not a file (a test's capture): nothing to point
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, descriptor)
        finally:
            os.close(null)


@contextlib.contextmanager
def readers_may_leave():
    """sys.stdout and sys.stderr that outlive their readers for the length of a command (restored after)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Discarding(sys.stdout), _Discarding(sys.stderr)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved
