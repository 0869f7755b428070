"""The exceptions simdex raises. Every one is a simdex.Error whose .code is the spec's name for
the failure (spec/FORMAT.md "Reader rules" for a malformed file, else io, usage, input,
file_changed, work_limit or settings_mismatch); usage and input errors are also ValueErrors, io errors OSErrors.
str(e) is the message alone (the CLI prints the code before it: "simdex: io: cannot open ...")."""

import errno as _errno
import os as _os


class Error(Exception):
    """A simdex failure. .code is the rule's name, e.g. "bad_magic" or "usage"."""

    code = "io"

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


class UsageError(Error, ValueError):
    """An argument out of range (k above the index's k, a bad block size, ...)."""

    code = "usage"


class InputError(Error, ValueError):
    """A malformed input document or line."""

    code = "input"


class FileError(Error, OSError):
    """A file could not be opened, read or written."""

    code = "io"

    def __reduce__(self):  # pickled (from a pool's worker): rebuilt as the same FileNotFoundError, ...
        return (make_error, (str(self), self.code, self.errno or 0))

    def __str__(self):  # the message, which names the file (OSError's would be "[Errno 2] ...")
        return Exception.__str__(self)


class FormatError(Error):
    """The file breaks a rule of spec/FORMAT.md (corrupt, truncated, not an index)."""

    code = "bad_magic"


class FileChangedError(Error):
    """The file was truncated or overwritten in place while open (replace files by rename)."""

    code = "file_changed"


class WorkLimitError(Error):
    """A batch job would do more work than its limit; pass force=True to run it anyway."""

    code = "work_limit"


_BY_CODE = {
    "usage": UsageError,
    "input": InputError,
    "io": FileError,
    "file_changed": FileChangedError,
    "work_limit": WorkLimitError,
    # Texts fingerprinted with other settings than an index records (spec/FORMAT.md §5.2): an
    # argument that does not fit the index, not a broken file.
    "settings_mismatch": UsageError,
}


def error_class(code):
    """The exception class for an error code (the compiled module's translator calls this)."""
    return _BY_CODE.get(code, FormatError)


def _file_error_for(builtin):
    """A FileError that is also `builtin` (FileNotFoundError, ...), as OSError(errno, ...) picks one:
    `except FileNotFoundError` catches a missing index as it catches a missing file of open()."""
    return type("FileError", (FileError, builtin), {"__doc__": FileError.__doc__, "__module__": "simdex"})


_FILE_ERROR_BY_ERRNO = {
    _errno.ENOENT: _file_error_for(FileNotFoundError),
    _errno.EEXIST: _file_error_for(FileExistsError),
    _errno.EISDIR: _file_error_for(IsADirectoryError),
    _errno.ENOTDIR: _file_error_for(NotADirectoryError),
    _errno.EACCES: _file_error_for(PermissionError),
    _errno.EPERM: _file_error_for(PermissionError),
    _errno.EAGAIN: _file_error_for(BlockingIOError),
}


def make_error(message, code, os_error=0):
    """An instance of error_class(code) carrying `code` (OSError takes no second argument); an
    OSError's errno is `os_error`, the failed system call's (e.errno == errno.ENOSPC), when there was
    one, and a FileError for ENOENT, EACCES, ... is also FileNotFoundError, PermissionError, ...; its
    strerror is then os.strerror(errno), as an OSError's (str(e) stays the message, which names the file)."""
    cls = error_class(code)
    if cls is FileError:
        cls = _FILE_ERROR_BY_ERRNO.get(os_error, FileError)
    exc = cls(message)
    exc.code = code
    if os_error and isinstance(exc, OSError):
        exc.errno = os_error
        exc.strerror = _os.strerror(os_error)
    return exc


for _cls in (Error, UsageError, InputError, FileError, FormatError, FileChangedError, WorkLimitError):
    _cls.__module__ = "simdex"  # simdex.FormatError in tracebacks, as users import it
