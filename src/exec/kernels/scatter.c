/* stablehlo.scatter.  The results start as copies of the inputs; then, for
 * every scatter position of the updates (in row-major order), the update
 * window is combined into the results at the start index read from
 * scatter_indices.  Elements whose result index falls outside the results
 * are skipped, per the spec (per element; start indices are not clamped).
 *
 * An input or updates operand may arrive as its one element when the
 * program broadcasts a scalar to it (fuse.c does not materialise such a
 * broadcast): updates then have stride 0, and a one-element input is the
 * results' fill value.  With a single-op update computation, result rows
 * (dimension 0) are filled just before their first update and the others
 * after all updates, so that updated rows are written to memory once.
 *
 * Common single-op update computations (replace, add, multiply, minimum,
 * maximum, and, or, xor) run as type-specialized row loops; anything else
 * runs the region once per element. */
#include <math.h>
#include <omp.h>

#include "index_util.h"
#include "support/scalar.h"

enum { SCATTER_PAR_MIN = 1 << 16 }; /* updated elements below which one thread does it all */
enum { SCATTER_AHEAD = 4 };         /* windows whose result rows are requested ahead */

typedef enum { SC_REGION, SC_REPLACE, SC_KEEP, SC_ADD, SC_MUL, SC_MIN, SC_MAX, SC_AND, SC_OR, SC_XOR } sc_kind;

typedef struct {
  uint32_t n; /* inputs (= updates = results) */
  int32_t rank;
  int64_t op_dims[STRIDED_MAX_RANK], op_stride[STRIDED_MAX_RANK];
  int64_t win[STRIDED_MAX_RANK];        /* window size per operand dim (1 if inserted/batching) */
  int64_t win_stride[STRIDED_MAX_RANK]; /* updates stride of the window dim feeding it, 0 if none */
  index_batch batch;                    /* update scatter dims */
  index_vec iv;
  sc_kind kind;
  strided_row_fn row; /* fast path for n == 1 */
  shl_dtype dt;
  size_t esz;
  int64_t op_n, upd_n; /* elements of an input, of an updates operand */
} scatter_params;

/* ---- row loops: dst[i*ds] = dst[i*ds] OP src[i*ss] (byte strides) ---- */

#define ROW(name, T, EXPR)                                                                  \
  static void name(void *ctx, uint8_t *d, const uint8_t *s, int64_t n, int64_t ds, int64_t ss) { \
    (void)ctx;                                                                              \
    if (ds == (int64_t)sizeof(T) && (ss == (int64_t)sizeof(T) || ss == 0)) {                \
      /* Contiguous rows (the common whole-row update) vectorize, also with \
       * one update value (broadcast updates). */                                          \
      int64_t si = ss / (int64_t)sizeof(T);                                                 \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                \
        T a, b;                                                                             \
        memcpy(&a, d + i * (int64_t)sizeof(T), sizeof a);                                   \
        memcpy(&b, s + i * si * (int64_t)sizeof(T), sizeof b);                              \
        T r = (EXPR);                                                                       \
        memcpy(d + i * (int64_t)sizeof(T), &r, sizeof r);                                   \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                       \
      T a, b;                                                                               \
      memcpy(&a, d + i * ds, sizeof a);                                                     \
      memcpy(&b, s + i * ss, sizeof b);                                                     \
      T r = (EXPR);                                                                         \
      memcpy(d + i * ds, &r, sizeof r);                                                     \
    }                                                                                       \
  }

typedef struct {
  uint64_t lo, hi;
} u128;
/* IEEE minimum/maximum: NaN propagates, -0 < +0. */
static inline double fmin_ieee(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline double fmax_ieee(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline float fminf_ieee(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static inline float fmaxf_ieee(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

ROW(rep_1, uint8_t, b)
ROW(rep_2, uint16_t, b)
ROW(rep_4, uint32_t, b)
ROW(rep_8, uint64_t, b)
ROW(rep_16, u128, b)

/* Integers wrap: computed in unsigned types of at least int width. */
#define INT_ROWS(sfx, U, S, W)                             \
  ROW(add_##sfx, U, (U)((W)a + (W)b))                      \
  ROW(mul_##sfx, U, (U)((W)a * (W)b))                      \
  ROW(and_##sfx, U, (U)(a & b))                            \
  ROW(or_##sfx, U, (U)(a | b))                             \
  ROW(xor_##sfx, U, (U)(a ^ b))                            \
  ROW(umin_##sfx, U, a < b ? a : b)                        \
  ROW(umax_##sfx, U, a > b ? a : b)                        \
  ROW(smin_##sfx, S, a < b ? a : b)                        \
  ROW(smax_##sfx, S, a > b ? a : b)
INT_ROWS(8, uint8_t, int8_t, uint32_t)
INT_ROWS(16, uint16_t, int16_t, uint32_t)
INT_ROWS(32, uint32_t, int32_t, uint32_t)
INT_ROWS(64, uint64_t, int64_t, uint64_t)

ROW(add_f32, float, a + b)
ROW(mul_f32, float, a * b)
ROW(min_f32, float, fminf_ieee(a, b))
ROW(max_f32, float, fmaxf_ieee(a, b))
ROW(add_f64, double, a + b)
ROW(mul_f64, double, a * b)
ROW(min_f64, double, fmin_ieee(a, b))
ROW(max_f64, double, fmax_ieee(a, b))
/* bf16 / f16 compute in f32 and round once per element, as XLA does. */
ROW(add_bf16, uint16_t, f32_to_bf16(bf16_to_f32(a) + bf16_to_f32(b)))
ROW(mul_bf16, uint16_t, f32_to_bf16(bf16_to_f32(a) * bf16_to_f32(b)))
ROW(min_bf16, uint16_t, f32_to_bf16(fminf_ieee(bf16_to_f32(a), bf16_to_f32(b))))
ROW(max_bf16, uint16_t, f32_to_bf16(fmaxf_ieee(bf16_to_f32(a), bf16_to_f32(b))))
ROW(add_f16, uint16_t, f32_to_f16(f16_to_f32(a) + f16_to_f32(b)))
ROW(mul_f16, uint16_t, f32_to_f16(f16_to_f32(a) * f16_to_f32(b)))
ROW(min_f16, uint16_t, f32_to_f16(fminf_ieee(f16_to_f32(a), f16_to_f32(b))))
ROW(max_f16, uint16_t, f32_to_f16(fmaxf_ieee(f16_to_f32(a), f16_to_f32(b))))
ROW(add_c64, cplx_f32, ((cplx_f32){a.re + b.re, a.im + b.im}))
ROW(mul_c64, cplx_f32, cmul_f32(a, b))
ROW(add_c128, cplx_f64, ((cplx_f64){a.re + b.re, a.im + b.im}))
ROW(mul_c128, cplx_f64, cmul_f64(a, b))

/* Other float formats (f8, f6, f4, tf32): through f32, dtype in ctx; the
 * layout and storage width are looked up once per row. */
#define SMALLF_LOOP(ST, EXPR)                                                            \
  for (int64_t i = 0; i < n; i++) {                                                      \
    ST x, y;                                                                             \
    memcpy(&x, d + i * ds, sizeof x);                                                    \
    memcpy(&y, s + i * ss, sizeof y);                                                    \
    float a = (float)fp_layout_to_f64(L, x), b = (float)fp_layout_to_f64(L, y);         \
    x = (ST)fp_layout_from_f64(L, (double)(EXPR));                                       \
    memcpy(d + i * ds, &x, sizeof x);                                                    \
  }
#define SMALLF_ROW(name, EXPR)                                                              \
  static void name(void *ctx, uint8_t *d, const uint8_t *s, int64_t n, int64_t ds, int64_t ss) { \
    shl_dtype t = *(const shl_dtype *)ctx;                                                  \
    fp_layout L = fp_layout_of(t);                                                          \
    if (dtype_bytes(t) == 4) {                                                              \
      SMALLF_LOOP(uint32_t, EXPR)                                                           \
    } else {                                                                                \
      SMALLF_LOOP(uint8_t, EXPR)                                                            \
    }                                                                                       \
  }
SMALLF_ROW(add_fx, a + b)
SMALLF_ROW(mul_fx, a * b)
SMALLF_ROW(min_fx, fminf_ieee(a, b))
SMALLF_ROW(max_fx, fmaxf_ieee(a, b))

static strided_row_fn replace_row(size_t esz) {
  switch (esz) {
    case 1: return rep_1;
    case 2: return rep_2;
    case 4: return rep_4;
    case 8: return rep_8;
    case 16: return rep_16;
    default: return NULL;
  }
}

#define PICK_INT(sfx)                        \
  switch (k) {                               \
    case SC_ADD: return add_##sfx;           \
    case SC_MUL: return mul_##sfx;           \
    case SC_AND: return and_##sfx;           \
    case SC_OR: return or_##sfx;             \
    case SC_XOR: return xor_##sfx;           \
    case SC_MIN: return sgn ? smin_##sfx : umin_##sfx; \
    case SC_MAX: return sgn ? smax_##sfx : umax_##sfx; \
    default: return NULL;                    \
  }

#define PICK_FLOAT(sfx)                      \
  switch (k) {                               \
    case SC_ADD: return add_##sfx;           \
    case SC_MUL: return mul_##sfx;           \
    case SC_MIN: return min_##sfx;           \
    case SC_MAX: return max_##sfx;           \
    default: return NULL;                    \
  }

/* The row loop of a binary update computation on dtype t, or NULL (run the region). */
static strided_row_fn binop_row(sc_kind k, shl_dtype t) {
  if (t == DT_I1) {
    /* Booleans: add/max are or, multiply/min are and. */
    switch (k) {
      case SC_ADD:
      case SC_MAX:
      case SC_OR: return or_8;
      case SC_MUL:
      case SC_MIN:
      case SC_AND: return and_8;
      case SC_XOR: return xor_8;
      default: return NULL;
    }
  }
  if (ku_plain_int(t)) {
    bool sgn = dtype_is_signed(t);
    switch (dtype_bytes(t)) {
      case 1: PICK_INT(8)
      case 2: PICK_INT(16)
      case 4: PICK_INT(32)
      case 8: PICK_INT(64)
      default: return NULL;
    }
  }
  switch (t) {
    case DT_F32: PICK_FLOAT(f32)
    case DT_F64: PICK_FLOAT(f64)
    case DT_BF16: PICK_FLOAT(bf16)
    case DT_F16: PICK_FLOAT(f16)
    case DT_C64: return k == SC_ADD ? add_c64 : k == SC_MUL ? mul_c64 : NULL;
    case DT_C128: return k == SC_ADD ? add_c128 : k == SC_MUL ? mul_c128 : NULL;
    default: break;
  }
  if (dtype_is_float(t)) PICK_FLOAT(fx)
  return NULL;
}

/* Recognizes the update computation of a single-input scatter. */
static sc_kind classify(const shl_region *r, shl_dtype t) {
  if (r->n_blocks != 1) return SC_REGION;
  const shl_block *b = r->blocks[0];
  if (b->n_args != 2) return SC_REGION;
  for (uint32_t i = 0; i < 2; i++) {
    const shl_type *at = b->args[i].type;
    if (at->kind != TY_TENSOR || at->rank != 0 || type_storage_dtype(at) != t) return SC_REGION;
  }
  const shl_op *first = b->first;
  if (first && op_is(first, OP_RETURN) && first->n_operands == 1) {
    if (first->operands[0] == &b->args[1]) return SC_REPLACE;
    if (first->operands[0] == &b->args[0]) return SC_KEEP;
    return SC_REGION;
  }
  switch (ku_body_binop(r)) {
    case OP_ADD: return SC_ADD;
    case OP_MULTIPLY: return SC_MUL;
    case OP_MINIMUM: return SC_MIN;
    case OP_MAXIMUM: return SC_MAX;
    case OP_AND: return SC_AND;
    case OP_OR: return SC_OR;
    case OP_XOR: return SC_XOR;
    default: return SC_REGION;
  }
}

static shl_status scatter_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  uint32_t n = op->n_results;
  if (n == 0 || op->n_operands != 2 * n + 1 || op->n_regions != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "needs N inputs, scatter indices, N updates and N results");
  const shl_type *opt = op->operands[0]->type, *sit = op->operands[n]->type, *ut = op->operands[n + 1]->type;
  for (uint32_t i = 0; i < 2 * n + 1; i++) ST_TRY(index_static_tensor(op, op->operands[i]->type, "every operand"));
  for (uint32_t i = 0; i < n; i++) {
    if (!type_eq(op->operands[i]->type, op->results[i].type) &&
        type_storage_dtype(op->operands[i]->type) != type_storage_dtype(op->results[i].type))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "result element types must match the inputs");
    const shl_type *a = op->operands[i]->type, *u = op->operands[n + 1 + i]->type;
    if (type_storage_dtype(u) != type_storage_dtype(a))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "with updates of another element type than the inputs is not supported");
    if (a->rank != opt->rank || u->rank != ut->rank) return op_error(op, SHLOC_ERR_VERIFY, "inputs or updates differ in rank");
    for (int32_t d = 0; d < a->rank; d++)
      if (a->dims[d] != opt->dims[d]) return op_error(op, SHLOC_ERR_VERIFY, "inputs differ in shape");
    for (int32_t d = 0; d < u->rank; d++)
      if (u->dims[d] != ut->dims[d]) return op_error(op, SHLOC_ERR_VERIFY, "updates differ in shape");
  }
  if (!dtype_is_int(sit->dtype)) return op_error(op, SHLOC_ERR_VERIFY, "scatter indices must be integers");
  const shl_attr *dn = op_attr(op, "scatter_dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "needs 'scatter_dimension_numbers'");
  index_list uwd, iwd, ibd, sibd, map;
  int64_t ivd = 0;
  ST_TRY(index_field(op, dn, "update_window_dims", &uwd));
  ST_TRY(index_field(op, dn, "inserted_window_dims", &iwd));
  ST_TRY(index_field(op, dn, "input_batching_dims", &ibd));
  ST_TRY(index_field(op, dn, "scatter_indices_batching_dims", &sibd));
  ST_TRY(index_field(op, dn, "scatter_dims_to_operand_dims", &map));
  attr_as_int(attr_struct_field(dn, "index_vector_dim"), &ivd);
  if (ibd.n != sibd.n) return op_error(op, SHLOC_ERR_VERIFY, "batching dimension lists differ in length");

  scatter_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->n = n;
  p->rank = opt->rank;
  p->op_n = type_num_elements(opt);
  p->upd_n = type_num_elements(ut);
  p->dt = type_storage_dtype(opt);
  p->esz = dtype_bytes(p->dt);
  memcpy(p->op_dims, opt->dims, (size_t)opt->rank * sizeof *opt->dims);
  strided_row_major(opt->rank, opt->dims, p->op_stride);
  int64_t us[STRIDED_MAX_RANK];
  strided_row_major(ut->rank, ut->dims, us);

  /* update_window_dims[i] feeds the i-th operand dim not inserted and not batching. */
  for (int32_t d = 0; d < opt->rank; d++) p->win[d] = 1;
  int32_t d = 0;
  for (size_t i = 0; i < uwd.n; i++) {
    while (d < opt->rank && (index_has(&iwd, d) || index_has(&ibd, d))) d++;
    int64_t w = uwd.v[i];
    if (d >= opt->rank || w < 0 || w >= ut->rank)
      return op_error(op, SHLOC_ERR_VERIFY, "update_window_dims do not match the operand");
    p->win[d] = ut->dims[w];
    p->win_stride[d] = us[w];
    d++;
  }
  int32_t sdims[STRIDED_MAX_RANK], ns = 0;
  for (int32_t ud = 0; ud < ut->rank; ud++)
    if (!index_has(&uwd, ud)) sdims[ns++] = ud;
  ST_TRY(index_batch_init(op, &p->batch, sit, ivd, ns, sdims, ut->dims, us));
  for (size_t i = 0; i < ibd.n; i++) {
    if (ibd.v[i] < 0 || ibd.v[i] >= opt->rank) return op_error(op, SHLOC_ERR_VERIFY, "input_batching_dims out of range");
    ST_TRY(index_batch_bind(op, &p->batch, sibd.v[i], p->op_stride[ibd.v[i]]));
  }
  ST_TRY(index_vec_init(op, &p->iv, sit, ivd, &map, opt->rank));

  p->kind = n == 1 ? classify(&op->regions[0], p->dt) : SC_REGION;
  if (p->kind == SC_REPLACE) p->row = replace_row(p->esz);
  else if (p->kind != SC_REGION && p->kind != SC_KEEP) p->row = binop_row(p->kind, p->dt);
  if (!p->row && p->kind != SC_KEEP) p->kind = SC_REGION;
  *params = p;
  return NULL;
}

/* The part of one update window that lands inside the results: box in
 * elements, offsets of its first element in results and updates (one
 * update value: stride 0).  False when nothing lands. */
static bool window_box(const scatter_params *p, bool one_upd, const shl_buf *si, int64_t sofs, int64_t uofs, int64_t oofs,
                       strided_box *box, int64_t *dst, int64_t *src, int64_t *row0) {
  int64_t start[STRIDED_MAX_RANK] = {0};
  for (int32_t k = 0; k < p->iv.n; k++) start[p->iv.op_dim[k]] = index_vec_value(&p->iv, si, sofs, k);
  box->rank = p->rank;
  *dst = oofs;
  *src = one_upd ? 0 : uofs;
  for (int32_t d = 0; d < p->rank; d++) {
    int64_t lo = start[d] < 0 ? -start[d] : 0;
    int64_t hi = p->op_dims[d] - start[d];
    if (hi > p->win[d]) hi = p->win[d];
    if (hi <= lo) return false;
    box->dims[d] = hi - lo;
    box->ds[d] = p->op_stride[d];
    box->ss[d] = one_upd ? 0 : p->win_stride[d];
    *dst += (start[d] + lo) * p->op_stride[d];
    *src += lo * box->ss[d];
    if (d == 0) *row0 = start[d] + lo;
  }
  return true;
}

/* The single-op update computations, by the threads that own rows [r0, r1)
 * of the results' dimension 0: each result element is updated by one
 * thread, in the order of the scatter positions, so the results are those
 * of the serial order. */
/* The part of the window of scatter position b that lands in rows [r0, r1)
 * of the results (finished box, element offsets, the rows [*lo, *hi) of
 * dimension 0 it touches); false when none does. */
static bool clipped_window(const scatter_params *p, bool one_upd, shl_buf *const *in, int64_t b, int64_t r0, int64_t r1,
                           strided_box *box, int64_t *dst, int64_t *src, int64_t *lo, int64_t *hi) {
  int64_t uofs, sofs, oofs, row = 0;
  index_batch_offsets(&p->batch, b, &uofs, &sofs, &oofs);
  if (!window_box(p, one_upd, in[p->n], sofs, uofs, oofs, box, dst, src, &row)) return false;
  *lo = 0;
  *hi = 1;
  if (p->rank > 0) {
    *lo = row > r0 ? row : r0;
    *hi = row + box->dims[0] < r1 ? row + box->dims[0] : r1;
    if (*lo >= *hi) return false;
    *dst += (*lo - row) * box->ds[0];
    *src += (*lo - row) * box->ss[0];
    box->dims[0] = *hi - *lo;
  }
  strided_finish(box, p->esz);
  return true;
}

/* Rows [r, r + m) of the results (dimension 0) set to the fill value. */
static void fill_rows(const scatter_params *p, uint8_t *res, const void *fill, int64_t r, int64_t m) {
  int64_t row = p->rank > 0 ? p->op_stride[0] : 1;
  strided_fill(res + (size_t)(r * row) * p->esz, m * row, fill, p->esz);
}

/* With `fill` (a one-element input), the rows are filled here: each just
 * before the first window that lands in it, the rest at the end. */
static shl_status rows_part(const scatter_params *p, shl_buf *const *in, shl_buf *const *out, int64_t r0, int64_t r1,
                            const void *fill) {
  uint32_t n = p->n;
  shl_dtype dt = p->dt;
  int64_t esz = (int64_t)p->esz, win = 1;
  bool one_upd = in[n + 1]->n == 1 && p->upd_n > 1;
  uint8_t *res = out[0]->data, *filled = fill ? calloc((size_t)(r1 - r0) + 1, 1) : NULL;
  if (fill && !filled) return st_oom();
  for (int32_t d = 0; d < p->rank; d++) win *= p->win[d];
  for (int64_t b = 0; b < p->batch.count; b++) {
    strided_box box;
    int64_t dst, src, lo, hi;
    /* Result rows a window updates are unpredictable: a contiguous one is
     * requested SCATTER_AHEAD windows before it is updated. */
    if (win * esz >= 256 && b + SCATTER_AHEAD < p->batch.count &&
        clipped_window(p, one_upd, in, b + SCATTER_AHEAD, r0, r1, &box, &dst, &src, &lo, &hi) && box.rank == 1 &&
        box.ds[0] == esz) {
      const uint8_t *q = res + dst * esz;
      for (int64_t o = 0; o < box.dims[0] * esz; o += 64) __builtin_prefetch(q + o, 1, 3);
    }
    if (!clipped_window(p, one_upd, in, b, r0, r1, &box, &dst, &src, &lo, &hi)) continue;
    if (fill)
      for (int64_t r = lo; r < hi; r++)
        if (!filled[r - r0]) {
          fill_rows(p, res, fill, r, 1);
          filled[r - r0] = 1;
        }
    strided_walk(&box, res + dst * esz, (const uint8_t *)in[n + 1]->data + src * esz, p->row, &dt, false);
  }
  if (fill)
    for (int64_t r = r0; r < r1;) {
      int64_t e = r;
      while (e < r1 && !filled[e - r0]) e++;
      if (e > r) fill_rows(p, res, fill, r, e - r);
      r = e + 1;
    }
  free(filled);
  return NULL;
}

/* Runs the update computation for every element of the box (element strides). */
static shl_status region_box(exec_ctx *ec, const scatter_params *p, ku_scalar_fn *fn, const strided_box *box, int64_t dst,
                             int64_t src, shl_buf *const *in, shl_buf *const *out) {
  int64_t total = strided_count(box), idx[STRIDED_MAX_RANK] = {0};
  void *args[2 * STRIDED_MAX_RANK], *res[STRIDED_MAX_RANK];
  uint32_t n = p->n;
  for (int64_t e = 0; e < total; e++) {
    for (uint32_t k = 0; k < n; k++) {
      size_t ek = dtype_bytes(out[k]->dtype), eu = dtype_bytes(in[n + 1 + k]->dtype);
      args[k] = res[k] = (uint8_t *)out[k]->data + (size_t)dst * ek;
      args[n + k] = (uint8_t *)in[n + 1 + k]->data + (size_t)src * eu;
    }
    ST_TRY(ku_scalar_call(ec, fn, args, res));
    for (int32_t d = box->rank - 1; d >= 0; d--) {
      dst += box->ds[d];
      src += box->ss[d];
      if (++idx[d] < box->dims[d]) break;
      dst -= box->ds[d] * box->dims[d];
      src -= box->ss[d] * box->dims[d];
      idx[d] = 0;
    }
  }
  return NULL;
}

static shl_status scatter_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const scatter_params *p = po->params;
  uint32_t n = p->n;
  /* one-element inputs of a larger operand (see above) */
  const void *fill = n == 1 && in[0]->n == 1 && p->op_n > 1 ? in[0]->data : NULL;
  bool fast = p->kind != SC_REGION && p->kind != SC_KEEP && p->batch.count > 0;
  for (uint32_t k = 0; k < n; k++) {
    if (!out[k]->nbytes || out[k]->data == in[k]->data || (fill && fast)) continue;
    if (in[k]->n == 1 && p->op_n > 1) strided_fill(out[k]->data, p->op_n, in[k]->data, dtype_bytes(out[k]->dtype));
    else memcpy(out[k]->data, in[k]->data, out[k]->nbytes);
  }
  if (p->kind == SC_KEEP || p->batch.count == 0) return NULL;
  if (n > STRIDED_MAX_RANK) return op_error(po->op, SHLOC_ERR_UNSUPPORTED, "too many scatter inputs");
  if (p->kind != SC_REGION) {
    int64_t rows = p->rank > 0 ? p->op_dims[0] : 1;
    int nt = rows > 1 && (p->upd_n >= SCATTER_PAR_MIN || (fill && p->op_n >= SCATTER_PAR_MIN)) ? omp_get_max_threads() : 1;
    if (nt > rows) nt = (int)rows;
    bool oom = false;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(|| : oom)
    {
      int t = omp_get_thread_num(), m = omp_get_num_threads();
      shl_status st = rows_part(p, in, out, rows * t / m, rows * (t + 1) / m, fill);
      if (st) {
        shloc_status_free(st);
        oom = true;
      }
    }
    return oom ? st_oom() : NULL;
  }
  bool one_upd = in[n + 1]->n == 1 && p->upd_n > 1;
  ku_scalar_fn fn;
  ST_TRY(ku_scalar_fn_init(&fn, po->regions[0], &po->op->regions[0]));
  shl_status st = NULL;
  for (int64_t b = 0; b < p->batch.count && !st; b++) {
    int64_t uofs, sofs, oofs, dst, src, row;
    index_batch_offsets(&p->batch, b, &uofs, &sofs, &oofs);
    strided_box box;
    if (window_box(p, one_upd, in[n], sofs, uofs, oofs, &box, &dst, &src, &row))
      st = region_box(ec, p, &fn, &box, dst, src, in, out);
  }
  ku_scalar_fn_free(&fn);
  return st;
}

const shl_kernel kernel_scatter = {scatter_prepare, scatter_run};
