"""Exceptions: one tsbridge.Error subclass per status code of tsbridge.h.

Each also derives from the closest builtin (a type mismatch is a TypeError,
a missing key a LookupError), so ordinary ``except`` clauses work. The
attributes mirror the C status: ``code``, ``path`` (where in the value, or
the call and argument), ``detail`` (the message without the path) and
``backtrace`` (a C++ backtrace, kept out of the message).
"""


class Error(Exception):
    """A tsbridge call failed; str(e) is "PATH: DETAIL"."""

    code = 9
    path = ""
    detail = ""
    backtrace = ""


class InvalidArgumentError(Error, ValueError):
    code = 1


class TypeMismatchError(Error, TypeError):
    code = 2


class OutOfRangeError(Error, IndexError):
    code = 3


class NotFoundError(Error, LookupError):
    code = 4


class UnsupportedError(Error, NotImplementedError):
    code = 5


class TorchError(Error, RuntimeError):
    """LibTorch raised (a TorchScript ``raise``, a failing kernel check)."""

    code = 6


class NoMemoryError(Error, MemoryError):
    code = 7


class AlreadyExistsError(Error):
    code = 8


class InternalError(Error):
    code = 9


BY_CODE = {cls.code: cls for cls in (
    InvalidArgumentError, TypeMismatchError, OutOfRangeError, NotFoundError,
    UnsupportedError, TorchError, NoMemoryError, AlreadyExistsError, InternalError)}
BY_CODE["default"] = InternalError

for _cls in (Error, *BY_CODE.values()):
    _cls.__module__ = "tsbridge"  # tracebacks say tsbridge.TypeMismatchError
