"""Custom calls from Python: a handler from a shared library by symbol, as a
ctypes function pointer, as a PyCapsule, per module; checked against RMS norm
computed with numpy in float64.  Needs the rms_norm example handler
($SHLOC_RMS_NORM_LIB, built by CMake as examples/rms_norm/librms_norm.so)."""
import ctypes
import os

import numpy as np
import pytest

import shloc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("SHLOC_RMS_NORM_LIB", os.path.join(ROOT, "build", "examples", "rms_norm", "librms_norm.so"))
MLIR = os.path.join(ROOT, "examples", "rms_norm", "rms_norm.mlir")
pytestmark = pytest.mark.skipif(not os.path.exists(LIB), reason="rms_norm handler library not built")


def module_text(target):
    return open(MLIR).read().replace("@rms_norm(", "@%s(" % target)


def expected(x, eps=1e-5):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + eps)


def run_and_check(m):
    x = np.random.default_rng(1).standard_normal((10, 10)).astype(np.float32)
    np.testing.assert_allclose(m(x), expected(x), rtol=2e-6, atol=1e-6)


def test_unregistered_target_is_an_error():
    with pytest.raises(shloc.Error, match="py_nobody"):
        shloc.load(module_text("py_nobody"))(np.zeros((10, 10), np.float32))


def test_library_symbol():
    shloc.register_custom_call("py_rms_lib", LIB, "rms_norm")
    run_and_check(shloc.load(module_text("py_rms_lib")))
    with pytest.raises(shloc.AlreadyExistsError):
        shloc.register_custom_call("py_rms_lib", LIB, "rms_norm")
    with pytest.raises(shloc.NotFoundError):
        shloc.register_custom_call("py_rms_missing", LIB, "no_such_symbol")


def test_ctypes_pointer_and_capsule():
    lib = ctypes.CDLL(LIB)
    shloc.register_custom_call("py_rms_ctypes", lib.rms_norm)
    run_and_check(shloc.load(module_text("py_rms_ctypes")))
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new(ctypes.cast(lib.rms_norm, ctypes.c_void_p), None, None)
    shloc.register_custom_call("py_rms_capsule", capsule)
    run_and_check(shloc.load(module_text("py_rms_capsule")))


def test_per_module_mapping():
    lib = ctypes.CDLL(LIB)
    run_and_check(shloc.load(module_text("py_rms_local"), custom_calls={"py_rms_local": lib.rms_norm}))
    run_and_check(shloc.load(module_text("py_rms_local2"), custom_calls={"py_rms_local2": (LIB, "rms_norm")}))
    # Not visible to other modules.
    with pytest.raises(shloc.Error):
        shloc.load(module_text("py_rms_local"))(np.zeros((10, 10), np.float32))


def test_demo_model_jax_style():
    """examples/demo/model.mlir: rms_norm(x) * 2 + sum(x, axis=1, keepdims=True)."""
    m = shloc.load(os.path.join(ROOT, "examples", "demo", "model.mlir"), custom_calls={"rms_norm": (LIB, "rms_norm")})
    x = np.random.default_rng(2).standard_normal((4, 8)).astype(np.float32)
    want = expected(x) * 2 + x.astype(np.float64).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(m(x), want, rtol=1e-5, atol=1e-5)
