#!/usr/bin/python3
"""Runs a module as JAX exports it, custom call included, from Python.

examples/demo/model.mlir is what `jax.jit(f).lower(x).as_text()` prints for
    def f(x): return rms_norm(x) * 2 + jnp.sum(x, axis=1, keepdims=True)
where rms_norm is an XLA FFI handler (examples/rms_norm/rms_norm.c) called
through jax.ffi.ffi_call.  The same handler library runs here unchanged.

    PYTHONPATH=python examples/python/run_jax_export.py build/examples/rms_norm/librms_norm.so
(or without PYTHONPATH after `pip install ./python`)."""
import os
import sys

import numpy as np

import shloc

HERE = os.path.dirname(os.path.abspath(__file__))
handler_library = sys.argv[1]

# The handler for target "rms_norm" is the library's symbol `rms_norm`, as
# `jax.ffi.register_ffi_target("rms_norm", jax.ffi.pycapsule(lib.rms_norm))`
# would register it in JAX.
shloc.register_custom_call("rms_norm", handler_library, "rms_norm")
model = shloc.load(os.path.join(HERE, "..", "demo", "model.mlir"))
f = model.compile("main")          # planned once

x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
y = f(x)                           # numpy in, numpy out

# The same in numpy, in double precision.
x64 = x.astype(np.float64)
want = x64 / np.sqrt(np.mean(x64 * x64, axis=1, keepdims=True) + 1e-5) * 2 + x64.sum(axis=1, keepdims=True)
err = np.max(np.abs(y - want))
print("max |shloc - numpy float64| = %.3g" % err)
sys.exit(0 if err < 1e-5 else 1)
