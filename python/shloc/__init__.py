"""shloc: run StableHLO programs (JAX, EXLA, torch-xla exports) from Python
with numpy, custom calls included.

    import shloc
    m = shloc.load("model.mlir")          # path, MLIR text, or bytes
    y = m(x, w)                            # numpy in, numpy out
    f = m.compile("main"); y = f(x, w)     # planned once, called many times
    shloc.register_custom_call("rms_norm", "librms_norm.so", "RmsNorm")
"""
from .errors import (AlreadyExistsError, CheckError, Error, InvalidArgumentError, IOError, LimitError,
                     NotFoundError, OutOfMemoryError, ParseError, RuntimeError, UnsupportedError, VerifyError)
from .module import Executable, Module, load
from .registry import register_custom_call

__version__ = "0.1.0"
__all__ = ["load", "Module", "Executable", "register_custom_call", "Error", "ParseError", "VerifyError",
           "UnsupportedError", "RuntimeError", "CheckError", "IOError", "OutOfMemoryError", "LimitError",
           "InvalidArgumentError", "NotFoundError", "AlreadyExistsError"]
