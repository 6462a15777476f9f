"""shloc.load / Module / Executable: forms of input, printing, running with
numpy, dtypes, errors.  Expected numbers come from numpy in float64."""
import os

import numpy as np
import pytest

import shloc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "examples", "demo", "model.mlir")

TWO_RESULTS = """
func.func @main(%x: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %0 = stablehlo.multiply %x, %b : tensor<2x3xf32>
  %c = stablehlo.constant dense<7> : tensor<i32>
  return %0, %c : tensor<2x3xf32>, tensor<i32>
}
"""


def test_load_forms_print_the_same_module(tmp_path):
    text = open(DEMO).read()
    from_path = shloc.load(DEMO)
    from_pathlike = shloc.load(tmp_path.__class__(DEMO))
    from_str = shloc.load(text)
    from_bytes = shloc.load(text.encode())
    assert str(from_path) == str(from_pathlike) == str(from_str) == str(from_bytes)
    # The pretty form parses back to itself; the generic form is MLIR's.
    assert str(shloc.load(str(from_path))) == str(from_path)
    generic = from_path.text(generic=True)
    assert generic.startswith('"builtin.module"()') and '"func.func"()' in generic
    assert str(shloc.load(generic)) == str(from_path)
    assert "loc(" in from_path.text(debuginfo=True) or "loc(" not in text


def test_missing_file_and_bad_type():
    with pytest.raises(FileNotFoundError):
        shloc.load("no/such/model.mlir")
    with pytest.raises(TypeError):
        shloc.load(42)


def test_two_results_and_scalars():
    m = shloc.load(TWO_RESULTS)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y, c = m(x, 2.5)
    np.testing.assert_array_equal(y, x.astype(np.float64) * 2.5)
    assert y.dtype == np.float32 and y.shape == (2, 3)
    assert c.dtype == np.int32 and c.shape == () and int(c) == 7


def test_results_own_shloc_memory_and_survive_the_module():
    m = shloc.load(TWO_RESULTS)
    y, _ = m(np.ones((2, 3), np.float32), np.float32(3))
    assert y.base is not None and y.base.__array_interface__["data"][0] == y.ctypes.data
    del m  # results stay valid: they own their memory
    np.testing.assert_array_equal(y, np.full((2, 3), 3.0))
    y[0, 0] = 5  # and are writable
    assert y[0, 0] == 5


def test_compile_once_run_many():
    exe = shloc.load(TWO_RESULTS).compile("main")
    assert exe.arg_types == [(11, (2, 3)), (11, ())]
    for k in range(20):
        x = np.random.default_rng(k).standard_normal((2, 3)).astype(np.float32)
        y, _ = exe(x, np.float32(k))
        np.testing.assert_array_equal(y, (x.astype(np.float64) * k).astype(np.float32))


@pytest.mark.parametrize("dtype,mlir", [(np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"),
                                        (np.uint8, "ui8"), (np.uint32, "ui32"), (np.uint64, "ui64"),
                                        (np.float16, "f16"), (np.float64, "f64"), (np.complex64, "complex<f32>"),
                                        (np.complex128, "complex<f64>")])
def test_dtypes_round_trip(dtype, mlir):
    m = shloc.load("func.func @main(%%a: tensor<5x%s>) -> tensor<5x%s> {\n"
                   "  %%0 = stablehlo.add %%a, %%a : tensor<5x%s>\n  return %%0 : tensor<5x%s>\n}\n"
                   % (mlir, mlir, mlir, mlir))
    a = (np.arange(5) + 1).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * a[::-1]
        a = a.astype(dtype)
    got = m(a)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, a + a)


def test_bool_and_bf16_raw_bits():
    m = shloc.load("func.func @main(%a: tensor<4xi1>, %b: tensor<4xbf16>) -> (tensor<4xi1>, tensor<4xbf16>) {\n"
                   "  %0 = stablehlo.not %a : tensor<4xi1>\n  %1 = stablehlo.negate %b : tensor<4xbf16>\n"
                   "  return %0, %1 : tensor<4xi1>, tensor<4xbf16>\n}\n")
    exe = m.compile()
    bf16 = exe.arg_types[1][0]
    a = np.array([True, False, True, False])
    # bf16 1.0, 2.0, -0.5, 3.0 as raw bits (the top half of the f32 bits)
    bits = (np.array([1.0, 2.0, -0.5, 3.0], np.float32).view(np.uint32) >> 16).astype(np.uint16)
    try:
        import ml_dtypes  # noqa: F401
        pytest.skip("ml_dtypes present: bf16 travels as ml_dtypes.bfloat16")
    except ImportError:
        pass
    assert bf16 == 16
    na, nb = exe(a, bits)
    np.testing.assert_array_equal(na, ~a)
    np.testing.assert_array_equal(nb, bits ^ 0x8000)


def test_errors_carry_position_and_op():
    with pytest.raises(shloc.ParseError) as e:
        shloc.load("func.func @main() {\n  %0 = stablehlo.foo\n}\n")
    assert e.value.line == 2 and e.value.column == 8
    assert str(e.value).startswith("<string>:2:8: error:")
    with pytest.raises(shloc.VerifyError) as e:
        shloc.load("func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n"
                   "  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
                   "  return %0 : tensor<2xf32>\n}\n")
    assert e.value.op == "stablehlo.add" and e.value.line == 2
    assert isinstance(e.value, shloc.Error)


def test_wrong_arguments_raise_before_running():
    exe = shloc.load(TWO_RESULTS).compile()
    with pytest.raises(shloc.InvalidArgumentError, match="takes 2 arguments, 1 given"):
        exe(np.ones((2, 3), np.float32))
    with pytest.raises(shloc.InvalidArgumentError, match=r"expected tensor<2x3xf32>, got float64"):
        exe(np.ones((2, 3)), 1.0)
    with pytest.raises(shloc.InvalidArgumentError, match=r"shape \(3, 2\)"):
        exe(np.ones((3, 2), np.float32), 1.0)
    with pytest.raises(shloc.NotFoundError):
        shloc.load(TWO_RESULTS).compile("nope")


def test_non_contiguous_arguments_are_accepted():
    m = shloc.load(TWO_RESULTS)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:2, ::2][:, :3] if False else \
        np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
    assert not x.flags.c_contiguous
    y, _ = m(x, 1.0)
    np.testing.assert_array_equal(y, x)
