/* Internals of the linalg lowering (lower_linalg*.c): a text emitter over
 * shl_printer that names values %vN (v->id holds N + 1). */
#ifndef SHLOC_PASSES_LOWER_LINALG_EMIT_H
#define SHLOC_PASSES_LOWER_LINALG_EMIT_H

#include "text/printer.h"

typedef struct {
  shl_printer pr;
  shl_printer globals; /* module-level declarations, printed after the functions */
  uint32_t next_id;
  uint32_t n_sites;    /* shloc_rt_op call sites so far */
  const shl_block *top;    /* the module body, to tell defined functions from declarations */
  const char *func_prefix; /* prepended to the name of every defined function ("" = none) */
  uint64_t check_dtypes;   /* element types (bit per shl_dtype) whose check runtime function is called */
  unsigned gemm_dtypes;    /* bit 0: shloc_rt_gemm_f32 is called, bit 1: shloc_rt_gemm_f64 */
  unsigned libm_used;      /* libm functions called (ll_libm_call) */
  unsigned complex_used;   /* libm complex functions called (lower_linalg_complex.c) */
  bool parallel;           /* write the tiling schedule (ll_parallel) */
  shl_printer sched;       /* its match-and-tile steps, one per result type */
  uint32_t n_sched;
} ll_emit;

/* A value's scratch id with this bit holds its own temporary number even
 * when its op has several results (call-out results are separate tensors). */
#define LL_DIRECT 0x80000000u

/* A fresh temporary number (printed as %vN). */
uint32_t ll_fresh(ll_emit *e);
void ll_tmp(ll_emit *e, uint32_t id);
/* Names a value, assigning it a number on first use. */
void ll_val(ll_emit *e, const shl_value *v);
/* Gives op's results their names (call before printing "= ..."). */
void ll_results(ll_emit *e, const shl_op *op);
/* Element types in upstream spelling of their storage: unsigned and
 * sub-byte integers as signless iN (i8 for i2/i4), f4/f6/f8 as i8, tf32 as
 * i32.  Quantized types have no dtype spelling: ll_type uses their storage. */
const char *ll_dtype(shl_dtype dt);
/* Element types the native patterns compute in (signless/signed integers of
 * 8..64 bits, i1, f16, bf16, f32, f64); others go through shloc_rt_op. */
bool ll_native_dtype(shl_dtype dt);
void ll_elem(ll_emit *e, shl_dtype dt);
void ll_type(ll_emit *e, const shl_type *t);
/* memref<...> of the same shape and storage element type. */
void ll_memref_type(ll_emit *e, const shl_type *t);
/* affine_map<(d0, ..., d{rank-1}) -> (d{dims[0]}, ...)>; a negative entry is the constant 0. */
void ll_map(ll_emit *e, int rank, const int64_t *dims, int n);
void ll_identity_map(ll_emit *e, int rank);
void ll_iterators(ll_emit *e, int rank, const bool *reduction);
/* Opens `RESULTS = linalg.generic` over a fresh tensor of type rt (identity
 * map, no inputs) up to its block header `^bb0(%out: et):`; the caller
 * writes the body and closes the op. */
void ll_generic_outs_open(ll_emit *e, const shl_op *op, const shl_type *rt, const char *et);
/* %vN = tensor.empty() : T */
uint32_t ll_empty(ll_emit *e, const shl_type *t);
/* The refusal every unsupported op/type gets. */
shl_status ll_refuse(const shl_op *op, const char *why);
/* Checks the op's operand and result types are static tensors of element
 * types ll_scalar computes in: native ones, complex<f32>/complex<f64> and
 * the narrow types above. */
shl_status ll_check_types(const shl_op *op);
/* The op as a call of shloc_rt_op (lower_linalg_callout.c). */
shl_status ll_callout(ll_emit *e, const shl_op *op);

/* Scalar body of an elementwise op over scalar temporaries args[] (element
 * type in_dt of operand 0); writes lines, sets *res. */
shl_status ll_scalar(ll_emit *e, const shl_op *op, const uint32_t *args, shl_dtype in_dt, shl_dtype out_dt,
                     uint32_t *res);
/* ll_scalar of an op with complex operands or results (lower_linalg_complex.c). */
shl_status ll_complex_scalar(ll_emit *e, const shl_op *op, const uint32_t *args, shl_dtype in_dt, shl_dtype out_dt,
                             uint32_t *res);
/* acc + x * y on complex scalars of type c (dot_general's body); 0 of type c. */
uint32_t ll_complex_mul_add(ll_emit *e, uint32_t acc, uint32_t x, uint32_t y, shl_dtype c);
uint32_t ll_complex_zero(ll_emit *e, shl_dtype c);
/* The libm declarations the complex bodies call. */
void ll_complex_declarations(ll_emit *e);
/* Narrow element types (lower_linalg_narrow.c): f8/f6/f4/tf32 (bit
 * patterns in i8/i32) and i2/i4/ui2/ui4 (one per byte). */
bool ll_narrow_float(shl_dtype dt);
bool ll_sub_byte_int(shl_dtype dt);
/* pattern -> f64 (exact); f64 -> pattern (one rounding, the format's rules). */
uint32_t ll_narrow_decode(ll_emit *e, uint32_t x, shl_dtype dt);
uint32_t ll_narrow_encode(ll_emit *e, uint32_t v, shl_dtype dt);
/* A sub-byte integer sign- or zero-extended from its width; its 8-bit type. */
uint32_t ll_int_wrap(ll_emit *e, uint32_t x, shl_dtype dt);
shl_dtype ll_int_wide(shl_dtype dt);
/* ll_scalar of an op computing on a narrow type: widened, computed, rounded. */
shl_status ll_narrow_scalar(ll_emit *e, const shl_op *op, const uint32_t *args, shl_dtype in_dt, shl_dtype out_dt,
                            uint32_t *res);
/* reduce_precision on the bits of an IEEE-layout float (lower_linalg_narrow.c). */
shl_status ll_reduce_precision(ll_emit *e, const shl_op *op, uint32_t x, shl_dtype dt, uint32_t *res);
/* Scalar helpers (lower_linalg_ew.c): a converted value, constants, a binary instruction. */
uint32_t ll_convert(ll_emit *e, uint32_t x, shl_dtype from, shl_dtype to);
uint32_t ll_cst_int(ll_emit *e, long long v, shl_dtype dt);
uint32_t ll_cst_float(ll_emit *e, const char *v, shl_dtype dt);
uint32_t ll_bin(ll_emit *e, const char *opname, uint32_t a, uint32_t b, shl_dtype dt);
uint32_t ll_unary(ll_emit *e, const char *opname, uint32_t a, shl_dtype dt);
/* arith.cmpf/cmpi (kind) with predicate pred; arith.select; a cast op (opname) from one type to another. */
uint32_t ll_cmp(ll_emit *e, const char *kind, const char *pred, uint32_t a, uint32_t b, shl_dtype dt);
uint32_t ll_sel(ll_emit *e, uint32_t c, uint32_t a, uint32_t b, shl_dtype dt);
uint32_t ll_cast(ll_emit *e, const char *opname, uint32_t a, shl_dtype from, shl_dtype to);
/* Marks the linalg.generic and linalg.transpose ops with result type tensor<dims x et> (after
 * elementwise fusion) as worth splitting across threads when `work`
 * elements are computed: the compile schedule tiles them into scf.forall
 * over dimension 0 (lower_linalg.c). */
void ll_parallel(ll_emit *e, const int64_t *dims, int rank, const char *et, int64_t work);
/* Rows per thread tile for an op of `rows` rows computing `work` elements
 * (as ll_parallel splits dimension 0); 0: it stays on one thread. */
int64_t ll_parallel_rows(const ll_emit *e, int64_t rows, int64_t work);
/* ll_parallel for an elementwise result. */
void ll_parallel_type(ll_emit *e, const shl_type *t);
/* An op through its native pattern only (SHLOC_ERR_UNSUPPORTED when it has none). */
shl_status ll_emit_native(ll_emit *e, const shl_op *op);
/* A float reduce over trailing dimensions as lane partials + a final fold
 * (lower_linalg_split.c); false (nothing written) when it does not apply. */
bool ll_reduce_split(ll_emit *e, const shl_op *op);
/* The body's binop (arith.addf, mulf, maximumf, minimumf) when a reduce's
 * body is exactly one of them on its two arguments, else NULL. */
const char *ll_reduce_binop(const shl_op *op);
/* softmax(x) over trailing dimensions ending at this division, one pass per
 * block of rows (lower_linalg_softmax.c); false (nothing written) otherwise. */
bool ll_softmax(ll_emit *e, const shl_op *op);
/* Op families. */
bool ll_is_elementwise(const shl_op *op);
shl_status ll_elementwise(ll_emit *e, const shl_op *op);
shl_status ll_shape_op(ll_emit *e, const shl_op *op, bool *handled);
shl_status ll_index_op(ll_emit *e, const shl_op *op, bool *handled);
shl_status ll_gather(ll_emit *e, const shl_op *op);
/* Row scatters (x.at[idx] with whole rows) -> scf.for (lower_linalg_scatter.c). */
shl_status ll_scatter_rows(ll_emit *e, const shl_op *op);
shl_status ll_dot_general(ll_emit *e, const shl_op *op);
shl_status ll_reduce(ll_emit *e, const shl_op *op);
shl_status ll_map_op(ll_emit *e, const shl_op *op);
shl_status ll_inline_body(ll_emit *e, const shl_op *op, const shl_block *b, const uint32_t *args, uint32_t *res,
                          uint32_t n_res);
/* check.* ops and custom calls -> calls of the check runtime (lower_linalg_check.c). */
bool ll_is_check_target(shl_str target);
bool ll_is_check(const shl_op *op);
shl_status ll_check(ll_emit *e, const shl_op *op);
/* The runtime declarations the checks emitted so far call. */
void ll_check_declarations(ll_emit *e);
/* dot_general as BLAS calls when the layouts allow (lower_linalg_blas.c;
 * batching/contracting dimensions as in the attribute); *handled false:
 * nothing emitted. */
shl_status ll_dot_blas(ll_emit *e, const shl_op *op, const int64_t *lb, const int64_t *rb, size_t nb,
                       const int64_t *lc, const int64_t *rc, size_t nc, bool *handled);
void ll_blas_declarations(ll_emit *e);
/* libm functions called directly (lower_linalg_libm.c): f32 or f64 by the
 * element type (narrower floats via f32). */
typedef enum { LL_LIBM_EXPM1, LL_LIBM_EXP, LL_LIBM_LOG, LL_LIBM_COUNT } ll_libm;
uint32_t ll_libm_call(ll_emit *e, ll_libm fn, uint32_t x, shl_dtype dt);
void ll_libm_declarations(ll_emit *e);
/* tanh on f32 (or a narrower float, via f32) exactly as the interpreter's
 * vector kernel (vtanh) computes it. */
uint32_t ll_xla_tanh(ll_emit *e, uint32_t x, shl_dtype dt);
/* exp and logistic on f32 (or a narrower float, via f32) exactly as the
 * interpreter's vector kernels (vexp, vlogistic) compute them. */
uint32_t ll_kernel_exp(ll_emit *e, uint32_t x, shl_dtype dt);
uint32_t ll_kernel_logistic(ll_emit *e, uint32_t x, shl_dtype dt);

#endif
