"""FFT of 64 x 4096 complex64 rows and RFFT of 64 x 4096 float32 rows."""
import math

import numpy as np

R, N = 64, 4096
# The usual FFT operation count: 5 N log2 N per complex transform, half of it per real one.
FLOPS = R * 5.0 * N * math.log2(N) * 1.5
BYTES = R * (N * 8 + N * 4 + N * 8 + (N // 2 + 1) * 8)
# float32 FFT error grows like eps * log2(N) * |x|_2 = 6e-8 * 12 * 64 for N(0,1) rows.
TOL = [(1e-4, 2e-4), (1e-4, 2e-4)]


def inputs(rng):
    z = rng.standard_normal((R, N)) + 1j * rng.standard_normal((R, N))
    return [z.astype(np.complex64), rng.standard_normal((R, N), dtype=np.float32)]


def numpy_peer(z, x):
    # numpy.fft (pocketfft) computes in double precision whatever the input.
    return (np.fft.fft(z, axis=1), np.fft.rfft(x, axis=1))


def reference(z, x):
    return (np.fft.fft(z.astype(np.complex128), axis=1), np.fft.rfft(x.astype(np.float64), axis=1))


def torch_peer(torch, z, x):
    return (torch.fft.fft(z, dim=1), torch.fft.rfft(x, dim=1))
