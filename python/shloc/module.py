"""Modules (parsed and verified programs) and executables (one function,
planned once, run many times)."""
import ctypes
import os
import threading

import numpy as np

from . import _capi, _dtypes
from .errors import InvalidArgumentError, check
from .registry import Registry, generation, module_recipes


class _Owned:
    """Exposes malloc'd result memory to numpy; frees it with the array."""

    def __init__(self, address, dtype, shape):
        self.address = address
        self.__array_interface__ = {"shape": shape, "typestr": dtype.str, "descr": dtype.descr,
                                    "data": (address, False), "version": 3}

    def __del__(self):
        _capi.libc.free(self.address)


def _result_array(t):
    dtype = _dtypes.to_numpy(t.dtype)
    shape = tuple(t.dims[i] for i in range(t.rank))
    if not t.data:
        return np.zeros(shape, dtype)
    return np.asarray(_Owned(t.data, dtype, shape))


def _signature(handle, count, get):
    out = []
    for i in range(count(handle)):
        t = _capi.Tensor()
        check(get(handle, i, ctypes.byref(t)))
        out.append((t.dtype, tuple(t.dims[k] for k in range(t.rank))))
    return out


def _type_text(code, dims):
    if code == _dtypes.TOKEN:
        return "!stablehlo.token"
    return "tensor<%s>" % "x".join([("?" if d < 0 else str(d)) for d in dims] + [_dtypes.name_of(code)])


class Executable:
    """One function of a module, planned once.  Call it with numpy arrays (or
    Python scalars for rank-0 arguments); it returns one array, or a tuple
    when the function has several results.  Arguments are passed without a
    copy when they are C-contiguous with the exact dtype; results own the
    memory shloc computed them into.  Calls of one executable from several
    threads are serialised (different executables run in parallel; the GIL is
    released while shloc runs)."""

    def __init__(self, module, entry, registry):
        handle = ctypes.c_void_p()
        check(_capi.executable_create(module._handle, entry.encode() if entry else None, registry.handle,
                                      ctypes.byref(handle)))
        self._handle = handle.value
        self._module, self._registry, self.entry = module, registry, entry
        self._lock = threading.Lock()
        self.arg_types = _signature(self._handle, _capi.executable_num_args, _capi.executable_arg_type)
        self.result_types = _signature(self._handle, _capi.executable_num_results, _capi.executable_result_type)

    def _argument(self, i, value):
        code, dims = self.arg_types[i]
        if code == _dtypes.TOKEN:
            if value is not None:
                raise InvalidArgumentError("shloc: argument #%d is a token: pass None" % i)
            return None
        dtype = _dtypes.to_numpy(code)
        if isinstance(value, (bool, int, float, complex)):
            value = np.asarray(value, dtype=dtype)
        value = np.asarray(value)
        if value.dtype != dtype or value.ndim != len(dims) or any(
                d >= 0 and d != s for d, s in zip(dims, value.shape)):
            raise InvalidArgumentError("shloc: argument #%d: expected %s, got %s array of shape %s"
                                       % (i, _type_text(code, dims), value.dtype, value.shape))
        return np.require(value, requirements="C")  # (ascontiguousarray makes 0-d arrays 1-d)

    def __call__(self, *args):
        if len(args) != len(self.arg_types):
            raise InvalidArgumentError("shloc: @%s takes %d arguments, %d given"
                                       % (self.entry, len(self.arg_types), len(args)))
        arrays = [self._argument(i, a) for i, a in enumerate(args)]
        n = len(arrays)
        c_args = (_capi.Tensor * max(n, 1))()
        dims_keep = []
        for i, a in enumerate(arrays):
            code = self.arg_types[i][0]
            if a is None:
                c_args[i] = _capi.Tensor(code, 0, None, None, 0)
                continue
            dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
            dims_keep.append(dims)
            c_args[i] = _capi.Tensor(code, a.ndim, dims, a.ctypes.data, a.nbytes)
        nr = len(self.result_types)
        c_res = (_capi.Tensor * max(nr, 1))()
        with self._lock:
            check(_capi.executable_run(self._handle, c_args, n, c_res, nr))
        results = tuple(None if self.result_types[i][0] == _dtypes.TOKEN else _result_array(c_res[i])
                        for i in range(nr))
        return results[0] if nr == 1 else results

    def __del__(self):
        if getattr(self, "_handle", None):
            _capi.executable_destroy(self._handle)
            self._handle = None


class Module:
    """A parsed and verified StableHLO module.  str(module) is its pretty text."""

    def __init__(self, source, filename="<input>", custom_calls=None):
        self._ctx = _capi.context_create()
        if not self._ctx:
            raise MemoryError("shloc: no memory for a context")
        self._source = source
        handle = ctypes.c_void_p()
        check(_capi.module_parse(self._ctx, filename.encode(), source, len(source), 1, ctypes.byref(handle)),
              source)
        self._handle = handle.value
        check(_capi.module_verify(self._handle), source)
        self._recipes = module_recipes(custom_calls)
        self._registry = None
        self._executables = {}
        self._lock = threading.Lock()

    def text(self, generic=False, debuginfo=False):
        flags = (_capi.PRINT_GENERIC if generic else 0) | (_capi.PRINT_DEBUGINFO if debuginfo else 0)
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        with self._lock:  # printing keeps value names in the module
            check(_capi.module_print(self._handle, flags, ctypes.byref(out), ctypes.byref(n)))
        try:
            return ctypes.string_at(out.value, n.value).decode("utf-8")
        finally:
            _capi.libc.free(out.value)

    def __str__(self):
        return self.text()

    def compile(self, entry="main"):
        """A new Executable for function @entry, planned with the handlers
        registered so far (globally and through custom_calls=)."""
        with self._lock:
            if self._registry is None or self._registry.generation != generation():
                self._registry = Registry(self._recipes)
            registry = self._registry
        return Executable(self, entry, registry)

    def __call__(self, *arrays, entry="main"):
        with self._lock:
            exe = self._executables.get(entry)
        if exe is None or exe._registry.generation != generation():
            exe = self.compile(entry)
            with self._lock:
                self._executables[entry] = exe
        return exe(*arrays)

    def __del__(self):
        self._executables = {}
        if getattr(self, "_handle", None):
            _capi.module_destroy(self._handle)
            self._handle = None
        if getattr(self, "_ctx", None):
            _capi.context_destroy(self._ctx)
            self._ctx = None


def load(source, *, custom_calls=None):
    """Parses and verifies a module.  `source`: a path (str or os.PathLike) to
    a module file, a str of MLIR text, or bytes (text, or any other form
    shloc_module_parse accepts)."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and os.path.isfile(source)):
        path = os.fspath(source)
        with open(path, "rb") as f:
            return Module(f.read(), path, custom_calls)
    if isinstance(source, str):
        if "\n" not in source and not any(c in source for c in "{(@%"):
            raise FileNotFoundError("shloc: no such file: %r" % source)
        return Module(source.encode("utf-8"), "<string>", custom_calls)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Module(bytes(source), "<bytes>", custom_calls)
    raise TypeError("shloc.load: expected a path, a str of MLIR text or bytes, not %s" % type(source).__name__)
