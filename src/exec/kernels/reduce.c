/* stablehlo.reduce and stablehlo.map.  A reduce body that applies one
 * commutative op to its two arguments runs as a type-specialised loop; any
 * other body (variadic reductions such as argmax) runs through exec_region
 * per element pair.  Reduction order: the init value, then the reduced
 * elements in row-major order, for every output element.  (f32 and f64
 * add/multiply/max/min reductions over trailing dimensions normally run
 * fused instead, with the fold order of ew_fold; see exec/fuse.c.) */
#include <math.h>

#include "kutil.h"

typedef struct {
  uint32_t n_in;
  shl_opid binop; /* OP_UNKNOWN: run the body */
  int64_t n_out, n_red;
  int64_t *out_off; /* input offset of each output element's first reduced element */
  int64_t *red_off; /* offset of each reduced element relative to that */
} reduce_params;

/* Whether the fast loop handles op on dtype t (otherwise the body runs). */
static bool reduce_fast_ok(shl_opid binop, shl_dtype t) {
  bool bitwise = binop == OP_AND || binop == OP_OR || binop == OP_XOR;
  switch (t) {
    case DT_F32:
    case DT_F64:
    case DT_BF16:
    case DT_F16: return !bitwise;
    case DT_C64:
    case DT_C128: return binop == OP_ADD; /* products follow the multiply kernel's rounding */
    case DT_I1: return bitwise || binop == OP_MAXIMUM || binop == OP_MINIMUM;
    default: return ku_plain_int(t);
  }
}

static shl_status reduce_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands % 2 || op->n_operands == 0 || op->n_results != op->n_operands / 2 || op->n_regions != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects N inputs, N init values and N results");
  uint32_t n = op->n_operands / 2;
  const shl_type *it = op->operands[0]->type;
  if (!type_is_static(it)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  int64_t dims[KU_MAX_RANK];
  size_t nd;
  if (!ku_ints(op, "dimensions", dims, KU_MAX_RANK, &nd)) return op_error(op, SHLOC_ERR_VERIFY, "has no valid dimensions");
  int32_t rank = it->rank;
  if (rank > KU_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank too large");
  bool red[KU_MAX_RANK] = {false};
  for (size_t i = 0; i < nd; i++) {
    if (dims[i] < 0 || dims[i] >= rank || red[dims[i]]) return op_error(op, SHLOC_ERR_VERIFY, "has invalid dimensions");
    red[dims[i]] = true;
  }
  const shl_block *body = op->regions[0].blocks[0];
  if (body->n_args != 2 * n) return op_error(op, SHLOC_ERR_VERIFY, "body must take %u arguments", 2 * n);
  for (uint32_t k = 0; k < n; k++) {
    shl_dtype a = type_storage_dtype(body->args[k].type), x = type_storage_dtype(body->args[n + k].type);
    if (type_storage_dtype(op->operands[k]->type) != x || type_storage_dtype(op->results[k].type) != a ||
        type_storage_dtype(op->operands[n + k]->type) != a || dtype_bytes(a) != dtype_bytes(x))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "with element types that differ from the body's is not supported");
  }
  reduce_params *rp = plan_alloc(pc, sizeof *rp);
  if (!rp) return st_oom();
  rp->n_in = n;
  rp->binop = n == 1 ? ku_body_binop(&op->regions[0]) : OP_UNKNOWN;
  shl_dtype dt = type_storage_dtype(it);
  if (rp->binop != OP_UNKNOWN && !reduce_fast_ok(rp->binop, dt)) rp->binop = OP_UNKNOWN;
  int64_t strides[KU_MAX_RANK];
  ku_strides(rank, it->dims, strides);
  rp->n_out = 1;
  rp->n_red = 1;
  for (int32_t d = 0; d < rank; d++) {
    if (red[d]) rp->n_red *= it->dims[d];
    else rp->n_out *= it->dims[d];
  }
  rp->out_off = plan_alloc(pc, (size_t)(rp->n_out + 1) * sizeof(int64_t));
  rp->red_off = plan_alloc(pc, (size_t)(rp->n_red + 1) * sizeof(int64_t));
  if (!rp->out_off || !rp->red_off) return st_oom();
  /* Odometers over the kept and the reduced dimensions. */
  for (int pass = 0; pass < 2; pass++) {
    bool want_red = pass == 1;
    int64_t cnt = want_red ? rp->n_red : rp->n_out, *dst = want_red ? rp->red_off : rp->out_off;
    int64_t idx[KU_MAX_RANK] = {0};
    for (int64_t i = 0; i < cnt; i++) {
      int64_t off = 0;
      for (int32_t d = 0; d < rank; d++)
        if (red[d] == want_red) off += idx[d] * strides[d];
      dst[i] = off;
      for (int32_t d = rank - 1; d >= 0; d--) {
        if (red[d] != want_red) continue;
        if (++idx[d] < it->dims[d]) break;
        idx[d] = 0;
      }
    }
  }
  *params = rp;
  return NULL;
}

/* ---- fast loops ---- */

#define RED_LOOP(T, ACC, LD, RND, STO, EXPR)                                                                   \
  do {                                                                                                       \
    const T *src = in;                                                                                       \
    T *dst = out;                                                                                            \
    ACC init = LD(*(const T *)initp);                                                                        \
    _Pragma("omp parallel for if (rp->n_out > 1 && rp->n_out * rp->n_red > (1 << 16))")                     \
    for (int64_t o = 0; o < rp->n_out; o++) {                                                                \
      const T *base = src + rp->out_off[o];                                                                  \
      ACC acc = init;                                                                                        \
      for (int64_t j = 0; j < rp->n_red; j++) {                                                              \
        ACC x = LD(base[rp->red_off[j]]);                                                                    \
        acc = RND(EXPR);                                                                                     \
      }                                                                                                      \
      dst[o] = STO(acc);                                                                                     \
    }                                                                                                        \
  } while (0)

#define ID(v) (v)
#define FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

#define DEF_FLOAT_RED(NAME, T, ACC, LD, RND, STO)                                                             \
  static void NAME(const reduce_params *rp, const void *in, const void *initp, void *out) {                  \
    switch (rp->binop) {                                                                                     \
      case OP_ADD: RED_LOOP(T, ACC, LD, RND, STO, acc + x); break;                                           \
      case OP_MULTIPLY: RED_LOOP(T, ACC, LD, RND, STO, acc * x); break;                                      \
      case OP_MAXIMUM: RED_LOOP(T, ACC, LD, ID, STO, FMAX(acc, x)); break;                                   \
      default: RED_LOOP(T, ACC, LD, ID, STO, FMIN(acc, x)); break;                                           \
    }                                                                                                        \
  }

#define BF16_RND(v) bf16_to_f32(f32_to_bf16(v))
#define F16_RND(v) f16_to_f32(f32_to_f16(v))

DEF_FLOAT_RED(red_f32, float, float, ID, ID, ID)
DEF_FLOAT_RED(red_f64, double, double, ID, ID, ID)
DEF_FLOAT_RED(red_bf16, uint16_t, float, bf16_to_f32, BF16_RND, f32_to_bf16)
DEF_FLOAT_RED(red_f16, uint16_t, float, f16_to_f32, F16_RND, f32_to_f16)

#define DEF_COMPLEX_RED(NAME, T)                                                                              \
  static void NAME(const reduce_params *rp, const void *in, const void *initp, void *out) {                  \
    RED_LOOP(T, T, ID, ID, ID, acc + x);                                                                     \
  }

DEF_COMPLEX_RED(red_c64, float complex)
DEF_COMPLEX_RED(red_c128, double complex)

/* Integers: add and multiply wrap (unsigned arithmetic), max/min compare in the signed or unsigned type. */
#define DEF_INT_RED(NAME, T, UT)                                                                              \
  static void NAME(const reduce_params *rp, const void *in, const void *initp, void *out) {                  \
    switch (rp->binop) {                                                                                     \
      case OP_ADD: RED_LOOP(T, T, ID, ID, ID, (T)(UT)((UT)acc + (UT)x)); break;                              \
      case OP_MULTIPLY: RED_LOOP(T, T, ID, ID, ID, (T)(UT)((uint64_t)(UT)acc * (uint64_t)(UT)x)); break;     \
      case OP_MAXIMUM: RED_LOOP(T, T, ID, ID, ID, IMAX(acc, x)); break;                                      \
      case OP_MINIMUM: RED_LOOP(T, T, ID, ID, ID, IMIN(acc, x)); break;                                      \
      case OP_AND: RED_LOOP(T, T, ID, ID, ID, (T)(acc & x)); break;                                          \
      case OP_OR: RED_LOOP(T, T, ID, ID, ID, (T)(acc | x)); break;                                           \
      default: RED_LOOP(T, T, ID, ID, ID, (T)(acc ^ x)); break;                                              \
    }                                                                                                        \
  }

DEF_INT_RED(red_i8, int8_t, uint8_t)
DEF_INT_RED(red_i16, int16_t, uint16_t)
DEF_INT_RED(red_i32, int32_t, uint32_t)
DEF_INT_RED(red_i64, int64_t, uint64_t)
DEF_INT_RED(red_u8, uint8_t, uint8_t)
DEF_INT_RED(red_u16, uint16_t, uint16_t)
DEF_INT_RED(red_u32, uint32_t, uint32_t)
DEF_INT_RED(red_u64, uint64_t, uint64_t)

static void reduce_fast(shl_dtype dt, const reduce_params *rp, const void *in, const void *init, void *out) {
  switch (dt) {
    case DT_F32: red_f32(rp, in, init, out); break;
    case DT_F64: red_f64(rp, in, init, out); break;
    case DT_BF16: red_bf16(rp, in, init, out); break;
    case DT_F16: red_f16(rp, in, init, out); break;
    case DT_C64: red_c64(rp, in, init, out); break;
    case DT_C128: red_c128(rp, in, init, out); break;
    case DT_I8: red_i8(rp, in, init, out); break;
    case DT_I16: red_i16(rp, in, init, out); break;
    case DT_I32: red_i32(rp, in, init, out); break;
    case DT_I64: red_i64(rp, in, init, out); break;
    case DT_I1:
    case DT_UI8: red_u8(rp, in, init, out); break;
    case DT_UI16: red_u16(rp, in, init, out); break;
    case DT_UI32: red_u32(rp, in, init, out); break;
    default: red_u64(rp, in, init, out); break;
  }
}

/* ---- general body ---- */

static shl_status reduce_general(exec_ctx *ec, const plan_op *po, const reduce_params *rp, shl_buf *const *in,
                                 shl_buf *const *out) {
  uint32_t n = rp->n_in;
  ku_scalar_fn f;
  ST_TRY(ku_scalar_fn_init(&f, po->regions[0], &po->op->regions[0]));
  void **args = malloc((2 * n + 1) * sizeof *args);
  size_t *isz = malloc((n + 1) * sizeof *isz), *osz = malloc((n + 1) * sizeof *osz);
  shl_status st = NULL;
  if (!args || !isz || !osz) st = st_oom();
  for (uint32_t k = 0; !st && k < n; k++) {
    isz[k] = dtype_bytes(in[k]->dtype);
    osz[k] = dtype_bytes(out[k]->dtype);
  }
  for (int64_t o = 0; !st && o < rp->n_out; o++) {
    for (uint32_t k = 0; k < n; k++) {
      args[k] = (uint8_t *)out[k]->data + (size_t)o * osz[k];
      memcpy(args[k], in[n + k]->data, osz[k]);
    }
    for (int64_t j = 0; !st && j < rp->n_red; j++) {
      for (uint32_t k = 0; k < n; k++)
        args[n + k] = (uint8_t *)in[k]->data + (size_t)(rp->out_off[o] + rp->red_off[j]) * isz[k];
      st = ku_scalar_call(ec, &f, args, args);
    }
  }
  free(args);
  free(isz);
  free(osz);
  ku_scalar_fn_free(&f);
  return st;
}

static shl_status reduce_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const reduce_params *rp = po->params;
  if (rp->n_out == 0) return NULL;
  if (rp->binop != OP_UNKNOWN) {
    reduce_fast(in[0]->dtype, rp, in[0]->data, in[1]->data, out[0]->data);
    return NULL;
  }
  return reduce_general(ec, po, rp, in, out);
}

const shl_kernel kernel_reduce = {reduce_prepare, reduce_run};

/* ---- map ---- */

static shl_status map_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_results != 1 || op->n_regions != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects one result and a body");
  const shl_block *b = op->regions[0].blocks[0];
  if (b->n_args != op->n_operands) return op_error(op, SHLOC_ERR_VERIFY, "body must take one argument per input");
  for (uint32_t k = 0; k < op->n_operands; k++)
    if (dtype_bytes(type_storage_dtype(b->args[k].type)) != dtype_bytes(type_storage_dtype(op->operands[k]->type)))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "with element types that differ from the body's is not supported");
  return NULL;
}

static shl_status map_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  uint32_t n = po->op->n_operands;
  ku_scalar_fn f;
  ST_TRY(ku_scalar_fn_init(&f, po->regions[0], &po->op->regions[0]));
  void **args = malloc((n + 1) * sizeof *args);
  shl_status st = args ? NULL : st_oom();
  size_t osz = dtype_bytes(out[0]->dtype);
  for (int64_t i = 0; !st && i < out[0]->n; i++) {
    for (uint32_t k = 0; k < n; k++) args[k] = (uint8_t *)in[k]->data + (size_t)i * dtype_bytes(in[k]->dtype);
    void *res = (uint8_t *)out[0]->data + (size_t)i * osz;
    st = ku_scalar_call(ec, &f, args, &res);
  }
  free(args);
  ku_scalar_fn_free(&f);
  return st;
}

const shl_kernel kernel_map = {map_prepare, map_run};
