"""ctypes declarations of libshloc's public C API (include/shloc/*.h).

The library is looked up once, in this order: the copy bundled into the
installed package, $SHLOC_LIBRARY, the build tree of a source checkout
(build/libshloc.so next to python/), then the system's search path.  ctypes
releases the GIL around every call, so runs on several Python threads proceed
in parallel.
"""
import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    yield os.path.join(_HERE, "libshloc.so")
    env = os.environ.get("SHLOC_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, "..", "..", "build", "libshloc.so")
    found = ctypes.util.find_library("shloc")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("shloc: libshloc.so not found; tried: " + "; ".join(tried) +
                      " (build it with `make`, or set SHLOC_LIBRARY)")


lib = _load()
# Handler libraries resolve XLA_FFI_GetApi & co. in libshloc (RTLD_GLOBAL above).
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]
libc.free.restype = None

c_status = ctypes.c_void_p
c_int64_p = ctypes.POINTER(ctypes.c_int64)


class Tensor(ctypes.Structure):
    """shloc_tensor: a dense row-major tensor."""
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32), ("dims", c_int64_p),
                ("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t)]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)
status_code = _fn("shloc_status_code", ctypes.c_int, c_status)
status_message = _fn("shloc_status_message", ctypes.c_char_p, c_status)
status_location = _fn("shloc_status_location", None, c_status, ctypes.POINTER(ctypes.c_char_p),
                      ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
status_op = _fn("shloc_status_op", ctypes.c_char_p, c_status)
status_free = _fn("shloc_status_free", None, c_status)
status_render = _fn("shloc_status_render", P, c_status, ctypes.c_char_p, ctypes.c_size_t)

context_create = _fn("shloc_context_create", P)
context_destroy = _fn("shloc_context_destroy", None, P)
module_parse = _fn("shloc_module_parse", c_status, P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                   ctypes.c_int, PP)
module_verify = _fn("shloc_module_verify", c_status, P)
module_print = _fn("shloc_module_print", c_status, P, ctypes.c_uint, PP, ctypes.POINTER(ctypes.c_size_t))
module_destroy = _fn("shloc_module_destroy", None, P)

registry_create = _fn("shloc_ffi_registry_create", c_status, PP)
registry_destroy = _fn("shloc_ffi_registry_destroy", None, P)
register_handler = _fn("shloc_ffi_register_handler", c_status, P, ctypes.c_char_p, ctypes.c_char_p, P)
register_legacy = _fn("shloc_ffi_register_legacy", c_status, P, ctypes.c_char_p, ctypes.c_char_p, P)
register_symbol = _fn("shloc_ffi_register_symbol", c_status, P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int)

executable_create = _fn("shloc_executable_create", c_status, P, ctypes.c_char_p, P, PP)
executable_destroy = _fn("shloc_executable_destroy", None, P)
executable_num_args = _fn("shloc_executable_num_args", ctypes.c_size_t, P)
executable_num_results = _fn("shloc_executable_num_results", ctypes.c_size_t, P)
executable_arg_type = _fn("shloc_executable_arg_type", c_status, P, ctypes.c_size_t, ctypes.POINTER(Tensor))
executable_result_type = _fn("shloc_executable_result_type", c_status, P, ctypes.c_size_t, ctypes.POINTER(Tensor))
executable_run = _fn("shloc_executable_run", c_status, P, ctypes.POINTER(Tensor), ctypes.c_size_t,
                     ctypes.POINTER(Tensor), ctypes.c_size_t)

PRINT_GENERIC = 1
PRINT_DEBUGINFO = 2
FFI_TYPED, FFI_LEGACY, FFI_ANY = 1, 2, 3
