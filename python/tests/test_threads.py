"""Executables used from several Python threads: results stay correct (the
GIL is released while shloc runs)."""
import threading

import numpy as np

import shloc

MLP = """
func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.tanh %0 : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
"""


def test_threads_share_one_executable_and_module():
    m = shloc.load(MLP)
    exe = m.compile()
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((128, 64)) / 16).astype(np.float32)
    inputs = [rng.standard_normal((64, 128)).astype(np.float32) for _ in range(8)]
    want = [np.tanh(x.astype(np.float64) @ w.astype(np.float64)) for x in inputs]
    errors = []

    def work(k):
        try:
            for i in range(25):
                j = (k + i) % len(inputs)
                f = exe if i % 2 else m
                np.testing.assert_allclose(f(inputs[j], w), want[j], rtol=1e-5, atol=1e-5)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
