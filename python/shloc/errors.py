"""shloc.Error and one subclass per shloc_code (include/shloc/shloc.h)."""
import ctypes

from . import _capi


class Error(Exception):
    """An error reported by libshloc.  str(e) is the MLIR-style diagnostic
    (`file:line:col: error: message`, with the source line when known);
    `code`, `file`, `line`, `column` and `op` give its parts (None when the
    error has no position or op)."""

    def __init__(self, message, code=0, file=None, line=None, column=None, op=None):
        super().__init__(message)
        self.code, self.file, self.line, self.column, self.op = code, file, line, column, op


class ParseError(Error): pass
class VerifyError(Error): pass
class UnsupportedError(Error): pass
class RuntimeError(Error): pass  # noqa: A001 (shloc.RuntimeError, as SHLOC_ERR_RUNTIME)
class CheckError(Error): pass
class IOError(Error): pass  # noqa: A001
class OutOfMemoryError(Error): pass
class LimitError(Error): pass
class InvalidArgumentError(Error): pass
class NotFoundError(Error): pass
class AlreadyExistsError(Error): pass


_BY_CODE = {1: ParseError, 2: VerifyError, 3: UnsupportedError, 4: RuntimeError, 5: CheckError, 6: IOError,
            7: OutOfMemoryError, 8: LimitError, 9: InvalidArgumentError, 10: NotFoundError,
            11: AlreadyExistsError}


def check(status, source=None):
    """Raises the Error for a non-NULL shloc_status (and frees it)."""
    if not status:
        return
    try:
        code = _capi.status_code(status)
        file, line, col = ctypes.c_char_p(), ctypes.c_int(), ctypes.c_int()
        _capi.status_location(status, ctypes.byref(file), ctypes.byref(line), ctypes.byref(col))
        # The strings live in the status: copy them before it is freed.
        file = file.value.decode("utf-8", "replace") if file.value else None
        op = _capi.status_op(status)
        op = op.decode("utf-8", "replace") if op else None
        src = source if isinstance(source, bytes) else None
        text = _capi.status_render(status, src, len(src) if src else 0)
        if text:
            message = ctypes.string_at(text).decode("utf-8", "replace").rstrip("\n")
            _capi.libc.free(text)
        else:
            message = (_capi.status_message(status) or b"").decode("utf-8", "replace")
    finally:
        _capi.status_free(status)
    cls = _BY_CODE.get(code, Error)
    raise cls(message, code, file, line.value or None, col.value or None, op)
