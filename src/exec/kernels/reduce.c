/* stablehlo.reduce and stablehlo.map.  A reduce body that applies one
 * commutative op to its two arguments runs as a type-specialised loop; any
 * other body (variadic reductions such as argmax) runs through exec_region
 * per element pair.  Reduction order: the init value, then the reduced
 * elements in row-major order, for every output element.  (f32 and f64
 * add/multiply/max/min reductions over trailing dimensions normally run
 * fused instead, with the fold order of ew_fold; see exec/fuse.c.) */
#include <math.h>

#include "kconvert.h"
#include "reduce.h"

typedef struct {
  uint32_t n_in;
  shl_dtype *promote; /* per operand: widen to this type first (see reduce.h); NULL: none */
  shl_opid binop;     /* OP_UNKNOWN: run the body */
  int64_t n_out, n_red;
  int64_t inner; /* kept trailing dims' size: outputs contiguous in the input too (1: none) */
  int64_t *out_off; /* input offset of each output element's first reduced element */
  int64_t *red_off; /* offset of each reduced element relative to that */
} reduce_params;

bool fold_fast_ok(shl_opid binop, shl_dtype t) {
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
  reduce_params *rp = plan_alloc(pc, sizeof *rp);
  if (!rp) return st_oom();
  rp->n_in = n;
  ST_TRY(reduce_promotion(pc, op, body, &rp->promote));
  rp->binop = n == 1 ? ku_body_binop(&op->regions[0]) : OP_UNKNOWN;
  shl_dtype dt = type_storage_dtype(body->args[0].type);
  if (rp->binop != OP_UNKNOWN && !fold_fast_ok(rp->binop, dt)) rp->binop = OP_UNKNOWN;
  int64_t strides[KU_MAX_RANK];
  ku_strides(rank, it->dims, strides);
  rp->n_out = 1;
  rp->n_red = 1;
  for (int32_t d = 0; d < rank; d++) {
    if (red[d]) rp->n_red *= it->dims[d];
    else rp->n_out *= it->dims[d];
  }
  rp->inner = 1;
  for (int32_t d = rank - 1; d >= 0 && !red[d]; d--) rp->inner *= it->dims[d];
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

#define LIST_LOOP(T, ACC, LD, RND, STO, EXPR)                                                                  \
  do {                                                                                                       \
    const T *src = src_;                                                                                     \
    T *dst = out_;                                                                                           \
    ACC init = LD(*(const T *)init_);                                                                        \
    for (int64_t o = 0; o < n_out; o++) {                                                                    \
      const T *base = src + (bases ? bases[o] : 0);                                                          \
      ACC acc = init;                                                                                        \
      for (int64_t j = 0; j < cnt; j++) {                                                                    \
        ACC x = LD(base[offs[j]]);                                                                           \
        acc = RND(EXPR);                                                                                     \
      }                                                                                                      \
      dst[o] = STO(acc);                                                                                     \
    }                                                                                                        \
  } while (0)

#define ROWS_LOOP(T, ACC, LD, RND, STO, EXPR)                                                                  \
  do {                                                                                                       \
    T *dst = out_;                                                                                           \
    for (int64_t w = 0; w < n_rel; w++) {                                                                    \
      const T *s = (const T *)src_ + rel[w];                                                                 \
      _Pragma("omp simd") for (int64_t j = 0; j < len; j++) {                                                \
        ACC acc = LD(dst[j]), x = LD(s[j]);                                                                  \
        dst[j] = STO(RND(EXPR));                                                                             \
      }                                                                                                      \
    }                                                                                                        \
  } while (0)

#define LIST_ARGS const void *src_, const int64_t *bases, int64_t n_out, const int64_t *offs, int64_t cnt, const void *init_, void *out_
#define ROWS_ARGS const void *src_, const int64_t *rel, int64_t n_rel, int64_t len, void *out_

#define ID(v) (v)
#define FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

/* NAME_list and NAME_rows for one element type. */
#define DEF_FLOAT_FOLD(NAME, T, ACC, LD, RND, STO)                                                              \
  static void NAME##_list(shl_opid binop, LIST_ARGS) {                                                       \
    switch (binop) {                                                                                         \
      case OP_ADD: LIST_LOOP(T, ACC, LD, RND, STO, acc + x); break;                                          \
      case OP_MULTIPLY: LIST_LOOP(T, ACC, LD, RND, STO, acc * x); break;                                     \
      case OP_MAXIMUM: LIST_LOOP(T, ACC, LD, ID, STO, FMAX(acc, x)); break;                                  \
      default: LIST_LOOP(T, ACC, LD, ID, STO, FMIN(acc, x)); break;                                          \
    }                                                                                                        \
  }                                                                                                          \
  static void NAME##_rows(shl_opid binop, ROWS_ARGS) {                                                       \
    switch (binop) {                                                                                         \
      case OP_ADD: ROWS_LOOP(T, ACC, LD, RND, STO, acc + x); break;                                          \
      case OP_MULTIPLY: ROWS_LOOP(T, ACC, LD, RND, STO, acc * x); break;                                     \
      case OP_MAXIMUM: ROWS_LOOP(T, ACC, LD, ID, STO, FMAX(acc, x)); break;                                  \
      default: ROWS_LOOP(T, ACC, LD, ID, STO, FMIN(acc, x)); break;                                          \
    }                                                                                                        \
  }

#define BF16_RND(v) bf16_to_f32(f32_to_bf16(v))
#define F16_RND(v) f16_to_f32(f32_to_f16(v))

DEF_FLOAT_FOLD(fold_f32, float, float, ID, ID, ID)
DEF_FLOAT_FOLD(fold_f64, double, double, ID, ID, ID)
DEF_FLOAT_FOLD(fold_bf16, uint16_t, float, bf16_to_f32, BF16_RND, f32_to_bf16)
DEF_FLOAT_FOLD(fold_f16, uint16_t, float, f16_to_f32, F16_RND, f32_to_f16)

#define DEF_COMPLEX_FOLD(NAME, T)                                                                              \
  static void NAME##_list(shl_opid binop, LIST_ARGS) {                                                       \
    (void)binop;                                                                                             \
    LIST_LOOP(T, T, ID, ID, ID, acc + x);                                                                    \
  }                                                                                                          \
  static void NAME##_rows(shl_opid binop, ROWS_ARGS) {                                                       \
    (void)binop;                                                                                             \
    ROWS_LOOP(T, T, ID, ID, ID, acc + x);                                                                    \
  }

DEF_COMPLEX_FOLD(fold_c64, float complex)
DEF_COMPLEX_FOLD(fold_c128, double complex)

/* Integers: add and multiply wrap (unsigned arithmetic), max/min compare in the signed or unsigned type. */
#define INT_CASES(LOOP, T, UT)                                                                                 \
  switch (binop) {                                                                                           \
    case OP_ADD: LOOP(T, T, ID, ID, ID, (T)(UT)((UT)acc + (UT)x)); break;                                    \
    case OP_MULTIPLY: LOOP(T, T, ID, ID, ID, (T)(UT)((uint64_t)(UT)acc * (uint64_t)(UT)x)); break;           \
    case OP_MAXIMUM: LOOP(T, T, ID, ID, ID, IMAX(acc, x)); break;                                            \
    case OP_MINIMUM: LOOP(T, T, ID, ID, ID, IMIN(acc, x)); break;                                            \
    case OP_AND: LOOP(T, T, ID, ID, ID, (T)(acc & x)); break;                                                \
    case OP_OR: LOOP(T, T, ID, ID, ID, (T)(acc | x)); break;                                                 \
    default: LOOP(T, T, ID, ID, ID, (T)(acc ^ x)); break;                                                    \
  }

#define DEF_INT_FOLD(NAME, T, UT)                                                                              \
  static void NAME##_list(shl_opid binop, LIST_ARGS) { INT_CASES(LIST_LOOP, T, UT) }                         \
  static void NAME##_rows(shl_opid binop, ROWS_ARGS) { INT_CASES(ROWS_LOOP, T, UT) }

DEF_INT_FOLD(fold_i8, int8_t, uint8_t)
DEF_INT_FOLD(fold_i16, int16_t, uint16_t)
DEF_INT_FOLD(fold_i32, int32_t, uint32_t)
DEF_INT_FOLD(fold_i64, int64_t, uint64_t)
DEF_INT_FOLD(fold_u8, uint8_t, uint8_t)
DEF_INT_FOLD(fold_u16, uint16_t, uint16_t)
DEF_INT_FOLD(fold_u32, uint32_t, uint32_t)
DEF_INT_FOLD(fold_u64, uint64_t, uint64_t)

#define DISPATCH(SUFFIX, ...)                                      \
  switch (t) {                                                     \
    case DT_F32: fold_f32_##SUFFIX(__VA_ARGS__); break;            \
    case DT_F64: fold_f64_##SUFFIX(__VA_ARGS__); break;            \
    case DT_BF16: fold_bf16_##SUFFIX(__VA_ARGS__); break;          \
    case DT_F16: fold_f16_##SUFFIX(__VA_ARGS__); break;            \
    case DT_C64: fold_c64_##SUFFIX(__VA_ARGS__); break;            \
    case DT_C128: fold_c128_##SUFFIX(__VA_ARGS__); break;          \
    case DT_I8: fold_i8_##SUFFIX(__VA_ARGS__); break;              \
    case DT_I16: fold_i16_##SUFFIX(__VA_ARGS__); break;            \
    case DT_I32: fold_i32_##SUFFIX(__VA_ARGS__); break;            \
    case DT_I64: fold_i64_##SUFFIX(__VA_ARGS__); break;            \
    case DT_I1:                                                    \
    case DT_UI8: fold_u8_##SUFFIX(__VA_ARGS__); break;             \
    case DT_UI16: fold_u16_##SUFFIX(__VA_ARGS__); break;           \
    case DT_UI32: fold_u32_##SUFFIX(__VA_ARGS__); break;           \
    default: fold_u64_##SUFFIX(__VA_ARGS__); break;                \
  }

void fold_lists(shl_dtype t, shl_opid binop, const void *src, const int64_t *bases, int64_t n_out, const int64_t *offs,
                int64_t cnt, const void *init, void *out) {
  DISPATCH(list, binop, src, bases, n_out, offs, cnt, init, out)
}

void fold_rows(shl_dtype t, shl_opid binop, const void *src, const int64_t *rel, int64_t n_rel, int64_t len, void *dst) {
  DISPATCH(rows, binop, src, rel, n_rel, len, dst)
}

void fold_fill(shl_dtype t, const void *init, int64_t len, void *dst) {
  size_t es = dtype_bytes(t);
  for (int64_t j = 0; j < len; j++) memcpy((uint8_t *)dst + (size_t)j * es, init, es);
}

enum { ROW_BLOCK = 1024, PAR_MIN = 1 << 16 }; /* outputs per column block; work below which one thread runs */

/* Kept trailing dimensions (inner > 1): blocks of up to ROW_BLOCK adjacent
 * outputs fold whole input rows, vectorised across the outputs; otherwise
 * each output folds its own elements. */
static void reduce_fast(shl_dtype t, const reduce_params *rp, const void *in, const void *init, void *out) {
  size_t es = dtype_bytes(t);
  bool par = rp->n_out * rp->n_red > PAR_MIN;
  if (rp->inner > 1) {
    int64_t L = rp->inner, nb = (L + ROW_BLOCK - 1) / ROW_BLOCK, tasks = rp->n_out / L * nb;
#pragma omp parallel for schedule(static) if (par && tasks > 1)
    for (int64_t k = 0; k < tasks; k++) {
      int64_t o = k / nb * L + k % nb * ROW_BLOCK, len = L - k % nb * ROW_BLOCK < ROW_BLOCK ? L - k % nb * ROW_BLOCK : ROW_BLOCK;
      uint8_t *dst = (uint8_t *)out + (size_t)o * es;
      fold_fill(t, init, len, dst);
      fold_rows(t, rp->binop, (const uint8_t *)in + (size_t)rp->out_off[o] * es, rp->red_off, rp->n_red, len, dst);
    }
    return;
  }
  int64_t chunk = 256, tasks = (rp->n_out + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (par && tasks > 1)
  for (int64_t k = 0; k < tasks; k++) {
    int64_t o = k * chunk, n = rp->n_out - o < chunk ? rp->n_out - o : chunk;
    fold_lists(t, rp->binop, in, rp->out_off + o, n, rp->red_off, rp->n_red, init, (uint8_t *)out + (size_t)o * es);
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
  shl_buf views[2 * KU_MAX_PROMOTED], *ptrs[2 * KU_MAX_PROMOTED];
  void *mem = NULL;
  if (rp->promote) {
    ST_TRY(reduce_promote(po->op, rp->promote, 2 * rp->n_in, in, views, ptrs, &mem));
    in = ptrs;
  }
  shl_status st = NULL;
  if (rp->binop != OP_UNKNOWN) reduce_fast(in[0]->dtype, rp, in[0]->data, in[1]->data, out[0]->data);
  else st = reduce_general(ec, po, rp, in, out);
  free(mem);
  return st;
}

/* ---- promotion ---- */

shl_status reduce_promotion(plan_ctx *pc, const shl_op *op, const shl_block *body, shl_dtype **to) {
  uint32_t n = op->n_operands / 2;
  *to = NULL;
  for (uint32_t k = 0; k < n; k++) {
    shl_dtype acc = type_storage_dtype(body->args[k].type), elem = type_storage_dtype(body->args[n + k].type);
    if (type_storage_dtype(op->results[k].type) != acc || dtype_bytes(elem) != dtype_bytes(acc))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "with element types that differ from the body's is not supported");
    for (uint32_t j = k; j < 2 * n; j += n) {
      /* Inputs meet the body's element argument, init values its accumulator. */
      shl_dtype from = type_storage_dtype(op->operands[j]->type), want = j < n ? elem : acc;
      if (from == want) continue;
      if (n > KU_MAX_PROMOTED)
        return op_error(op, SHLOC_ERR_UNSUPPORTED, "widens operands of more than %d inputs", KU_MAX_PROMOTED);
      if (ku_ck_of(want) == CK_NONE || dtype_is_complex(from) != dtype_is_complex(want))
        return op_error(op, SHLOC_ERR_UNSUPPORTED, "cannot widen operand #%u from %s to %s", j, dtype_name(from),
                        dtype_name(want));
      if (!*to) {
        *to = plan_alloc(pc, 2 * n * sizeof **to);
        if (!*to) return st_oom();
        for (uint32_t i = 0; i < 2 * n; i++) (*to)[i] = DT_INVALID;
      }
      (*to)[j] = want;
    }
  }
  return NULL;
}

shl_status reduce_promote(const shl_op *op, const shl_dtype *to, uint32_t n_ops, shl_buf *const *in, shl_buf *views,
                          shl_buf **ptrs, void **mem) {
  size_t total = 0;
  for (uint32_t k = 0; k < n_ops; k++)
    if (to[k] != DT_INVALID) total += ((size_t)in[k]->n * dtype_bytes(to[k]) + 63) & ~(size_t)63;
  uint8_t *block = *mem = malloc(total ? total : 1);
  if (!block) return st_oom();
  for (uint32_t k = 0; k < n_ops; k++) {
    ptrs[k] = in[k];
    if (to[k] == DT_INVALID) continue;
    views[k] = *in[k];
    views[k].dtype = to[k];
    views[k].nbytes = (size_t)in[k]->n * dtype_bytes(to[k]);
    views[k].data = block;
    block += (views[k].nbytes + 63) & ~(size_t)63;
    if (!ku_convert(in[k]->dtype, to[k], in[k]->data, views[k].data, in[k]->n))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "cannot widen operand #%u from %s to %s", k, dtype_name(in[k]->dtype),
                      dtype_name(to[k]));
    ptrs[k] = &views[k];
  }
  return NULL;
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
