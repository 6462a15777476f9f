"""Custom-call handlers: process-wide registrations and per-module ones.

A registration is kept as a recipe and applied to a fresh libshloc registry
whenever a module compiles, so a module's executables see every handler
registered before they were made (and its own `custom_calls=`).  Each
registration is also tried at once on a scratch registry, so a missing
library, symbol or a bad handler raises from register_custom_call itself."""
import ctypes
import os
import threading

from . import _capi
from .errors import InvalidArgumentError, check

_lock = threading.Lock()
_global = []       # recipes, in registration order
_generation = [0]  # bumped by each global registration


def _capsule_pointer(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
    get_ptr.restype, get_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_ptr(capsule, get_name(capsule))


def _handler_address(handler):
    if type(handler).__name__ == "PyCapsule":
        return _capsule_pointer(handler)
    if isinstance(handler, ctypes._CFuncPtr):
        return ctypes.cast(handler, ctypes.c_void_p).value
    if isinstance(handler, int):
        return handler
    raise InvalidArgumentError("shloc: a handler is a PyCapsule, a ctypes function pointer or an address, not %s"
                               % type(handler).__name__)


def _recipe(target, handler, symbol, api_version):
    """A function that registers the handler into a libshloc registry."""
    if api_version not in (1, 2, 3, 4):
        raise InvalidArgumentError("shloc: api_version must be 1, 2, 3 or 4, not %r" % (api_version,))
    name = target.encode()
    if isinstance(handler, (str, bytes, os.PathLike)):
        if not symbol:
            raise InvalidArgumentError("shloc: registering %r from a library needs the symbol name" % target)
        spec = os.fsencode(os.path.abspath(os.fsdecode(handler))) + b":" + symbol.encode()
        kind = _capi.FFI_TYPED if api_version == 4 else _capi.FFI_LEGACY
        return lambda reg: check(_capi.register_symbol(reg, name, spec, kind)), handler
    address = _handler_address(handler)
    register = _capi.register_handler if api_version == 4 else _capi.register_legacy
    # `handler` travels with the recipe: a ctypes callback must stay alive.
    return lambda reg: check(register(reg, name, b"cpu", address)), handler


class Registry:
    """A libshloc registry with the global recipes and `extra` applied."""

    def __init__(self, extra=()):
        handle = ctypes.c_void_p()
        check(_capi.registry_create(ctypes.byref(handle)))
        self.handle = handle.value
        with _lock:
            self.generation = _generation[0]
            recipes = list(_global)
        self._keep = []
        for apply, keep in list(recipes) + list(extra):
            apply(self.handle)
            self._keep.append(keep)

    def __del__(self):
        if getattr(self, "handle", None):
            _capi.registry_destroy(self.handle)
            self.handle = None


def register_custom_call(target, handler, symbol=None, *, api_version=4):
    """Registers a custom-call handler for every module compiled afterwards.

    register_custom_call("rms_norm", "librms.so", "RmsNorm")      a symbol of a shared library
    register_custom_call("rms_norm", capsule)                      a PyCapsule (as jax.ffi takes)
    register_custom_call("rms_norm", ctypes_function_pointer)

    api_version 4 is the typed XLA FFI (an XLA_FFI_Handler); 1-3 are the legacy
    CPU conventions.  A target registered twice raises AlreadyExistsError."""
    recipe = _recipe(target, handler, symbol, api_version)
    scratch = Registry()
    recipe[0](scratch.handle)  # raises on a missing library/symbol or a duplicate
    with _lock:
        _global.append(recipe)
        _generation[0] += 1


def module_recipes(custom_calls):
    """Recipes for a module's `custom_calls={target: handler | (library, symbol[, api_version])}`."""
    recipes = []
    for target, spec in (custom_calls or {}).items():
        if isinstance(spec, tuple):
            library, symbol = spec[0], spec[1]
            recipes.append(_recipe(target, library, symbol, spec[2] if len(spec) > 2 else 4))
        else:
            recipes.append(_recipe(target, spec, None, 4))
    return recipes


def generation():
    with _lock:
        return _generation[0]
