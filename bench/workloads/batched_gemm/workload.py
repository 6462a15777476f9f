"""4096 independent 16x16 @ 16x16 f32 products as one batched dot_general."""
import numpy as np

B, N = 4096, 16
FLOPS = 2.0 * B * N * N * N
BYTES = 3.0 * B * N * N * 4              # read both operands, write the result
TOL = [(1e-5, 3e-5)]                     # (rtol, atol) per result; sums of 16 products of N(0,1)


def inputs(rng):
    return [rng.standard_normal((B, N, N), dtype=np.float32) for _ in range(2)]


def numpy_peer(a, b):
    return (np.matmul(a, b),)


def reference(a, b):
    return (np.matmul(a.astype(np.float64), b.astype(np.float64)),)


def torch_peer(torch, a, b):
    return (torch.bmm(a, b),)
