/* stablehlo.reduce_window and stablehlo.select_and_scatter.  Windows visit
 * only elements inside the (dilated) operand: padding positions are skipped,
 * as XLA does (equivalent to the spec's padding with the init value when the
 * body treats the init value as an identity). */
#include <math.h>
#include <omp.h>

#include "reduce.h"

typedef struct {
  int32_t rank;
  int64_t in_dims[KU_MAX_RANK], in_strides[KU_MAX_RANK];
  int64_t out_dims[KU_MAX_RANK];
  int64_t win[KU_MAX_RANK], stride[KU_MAX_RANK], base_dil[KU_MAX_RANK], win_dil[KU_MAX_RANK], pad_lo[KU_MAX_RANK];
  int64_t n_out, n_win;
} win_geom;

static shl_status geom_init(const shl_op *op, const shl_type *in_t, const shl_type *out_t, win_geom *g) {
  if (!type_is_static(in_t) || !type_is_static(out_t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  int32_t r = in_t->rank;
  if (r > KU_MAX_RANK || out_t->rank != r) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank mismatch or too large");
  g->rank = r;
  size_t n;
  if (!ku_ints(op, "window_dimensions", g->win, KU_MAX_RANK, &n) || (int32_t)n != r)
    return op_error(op, SHLOC_ERR_VERIFY, "needs window_dimensions of the operand's rank");
  for (int32_t d = 0; d < r; d++) g->stride[d] = g->base_dil[d] = g->win_dil[d] = 1, g->pad_lo[d] = 0;
  if (ku_ints(op, "window_strides", g->stride, KU_MAX_RANK, &n) && (int32_t)n != r)
    return op_error(op, SHLOC_ERR_VERIFY, "window_strides must have the operand's rank");
  if (ku_ints(op, "base_dilations", g->base_dil, KU_MAX_RANK, &n) && (int32_t)n != r)
    return op_error(op, SHLOC_ERR_VERIFY, "base_dilations must have the operand's rank");
  if (ku_ints(op, "window_dilations", g->win_dil, KU_MAX_RANK, &n) && (int32_t)n != r)
    return op_error(op, SHLOC_ERR_VERIFY, "window_dilations must have the operand's rank");
  int64_t pad[2 * KU_MAX_RANK];
  if (ku_ints(op, "padding", pad, 2 * KU_MAX_RANK, &n)) {
    if ((int32_t)n != 2 * r) return op_error(op, SHLOC_ERR_VERIFY, "padding must be %dx2", r);
    for (int32_t d = 0; d < r; d++) g->pad_lo[d] = pad[2 * d];
  }
  for (int32_t d = 0; d < r; d++)
    if (g->stride[d] < 1 || g->base_dil[d] < 1 || g->win_dil[d] < 1 || g->win[d] < 0)
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid window attributes");
  memcpy(g->in_dims, in_t->dims, (size_t)r * sizeof(int64_t));
  memcpy(g->out_dims, out_t->dims, (size_t)r * sizeof(int64_t));
  ku_strides(r, g->in_dims, g->in_strides);
  g->n_out = type_num_elements(out_t);
  g->n_win = 1;
  for (int32_t d = 0; d < r; d++) g->n_win *= g->win[d];
  return NULL;
}

/* Input offsets of the in-bounds elements of the window of output index
 * `oi` (row-major window order); returns their count. */
static int64_t window_offsets(const win_geom *g, const int64_t *oi, int64_t *offs) {
  int64_t wi[KU_MAX_RANK] = {0}, cnt = 0;
  for (int64_t w = 0; w < g->n_win; w++) {
    int64_t off = 0;
    bool ok = true;
    for (int32_t d = 0; d < g->rank && ok; d++) {
      int64_t p = oi[d] * g->stride[d] + wi[d] * g->win_dil[d] - g->pad_lo[d];
      if (p < 0 || p % g->base_dil[d]) ok = false;
      else if (p / g->base_dil[d] >= g->in_dims[d]) ok = false;
      else off += p / g->base_dil[d] * g->in_strides[d];
    }
    if (ok) offs[cnt++] = off;
    for (int32_t d = g->rank - 1; d >= 0; d--) {
      if (++wi[d] < g->win[d]) break;
      wi[d] = 0;
    }
  }
  return cnt;
}

static void index_next(int32_t rank, const int64_t *dims, int64_t *idx) {
  for (int32_t d = rank - 1; d >= 0; d--) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

/* ---- reduce_window ---- */

typedef struct {
  win_geom g;
  uint32_t n_in;
  shl_dtype *promote; /* per operand: widen to this type first (see reduce.h); NULL: none */
  shl_opid binop;
  /* Fast path.  Without base dilation, a window that lies inside the
   * operand reads base + rel[w] (rel: NULL otherwise).  When the last
   * dimension is a plain unit window, `row` outputs along it (contiguous
   * in operand and result) are reduced together; orank dims are walked. */
  int64_t *rel;
  int64_t row;
  int32_t orank;
} rw_params;

static shl_status rw_fast_setup(plan_ctx *pc, rw_params *p) {
  const win_geom *g = &p->g;
  p->row = 1;
  p->orank = g->rank;
  for (int32_t d = 0; d < g->rank; d++)
    if (g->base_dil[d] != 1 || g->win[d] < 1) return NULL;
  p->rel = plan_alloc(pc, (size_t)(g->n_win + 1) * sizeof *p->rel);
  if (!p->rel) return st_oom();
  int64_t wi[KU_MAX_RANK] = {0};
  for (int64_t w = 0; w < g->n_win; w++) {
    int64_t off = 0;
    for (int32_t d = 0; d < g->rank; d++) off += wi[d] * g->win_dil[d] * g->in_strides[d];
    p->rel[w] = off;
    for (int32_t d = g->rank - 1; d >= 0; d--) {
      if (++wi[d] < g->win[d]) break;
      wi[d] = 0;
    }
  }
  int32_t l = g->rank - 1;
  if (l >= 0 && g->win[l] == 1 && g->stride[l] == 1 && g->pad_lo[l] == 0 && g->out_dims[l] == g->in_dims[l] &&
      g->out_dims[l] > 1) {
    p->row = g->out_dims[l];
    p->orank = l;
  }
  return NULL;
}

/* Whether the window of output index oi (first `rank` dims) lies inside
 * the operand; *base is then the offset of its first element. */
static bool window_inside(const win_geom *g, const int64_t *oi, int32_t rank, int64_t *base) {
  int64_t off = 0;
  for (int32_t d = 0; d < rank; d++) {
    int64_t s = oi[d] * g->stride[d] - g->pad_lo[d];
    if (s < 0 || s + (g->win[d] - 1) * g->win_dil[d] >= g->in_dims[d]) return false;
    off += s * g->in_strides[d];
  }
  *base = off;
  return true;
}

static shl_status rw_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands % 2 || !op->n_operands || op->n_results != op->n_operands / 2 || op->n_regions != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects N inputs, N init values and N results");
  uint32_t n = op->n_operands / 2;
  rw_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  ST_TRY(geom_init(op, op->operands[0]->type, op->results[0].type, &p->g));
  const shl_block *body = op->regions[0].blocks[0];
  if (body->n_args != 2 * n) return op_error(op, SHLOC_ERR_VERIFY, "body must take %u arguments", 2 * n);
  ST_TRY(reduce_promotion(pc, op, body, &p->promote));
  p->n_in = n;
  p->binop = n == 1 ? ku_body_binop(&op->regions[0]) : OP_UNKNOWN;
  if (p->binop != OP_UNKNOWN && !fold_fast_ok(p->binop, type_storage_dtype(body->args[0].type))) p->binop = OP_UNKNOWN;
  p->rel = NULL;
  if (p->binop != OP_UNKNOWN) ST_TRY(rw_fast_setup(pc, p));
  *params = p;
  return NULL;
}

/* Rows of `row` outputs: inside windows fold base + rel[w] into the result
 * row; windows that touch padding go element by element through
 * window_offsets (offs: n_win + 1 entries per thread). */
static void rw_fast(shl_dtype dt, const rw_params *p, const void *in, const void *init, void *out, int64_t *offs_all) {
  const win_geom *g = &p->g;
  size_t es = dtype_bytes(dt);
  int64_t L = p->row, nrow = g->n_out / L;
#pragma omp parallel for schedule(static) if (g->n_out * g->n_win >= (1 << 16))
  for (int64_t o = 0; o < nrow; o++) {
    int64_t oi[KU_MAX_RANK], base, rem = o;
    for (int32_t d = p->orank - 1; d >= 0; d--) {
      oi[d] = rem % g->out_dims[d];
      rem /= g->out_dims[d];
    }
    uint8_t *drow = (uint8_t *)out + (size_t)(o * L) * es;
    if (p->rel && window_inside(g, oi, p->orank, &base)) {
      fold_fill(dt, init, L, drow);
      fold_rows(dt, p->binop, (const uint8_t *)in + (size_t)base * es, p->rel, g->n_win, L, drow);
      continue;
    }
    int64_t *offs = offs_all + (size_t)omp_get_thread_num() * (size_t)(g->n_win + 1);
    for (int64_t j = 0; j < L; j++) {
      if (p->orank < g->rank) oi[p->orank] = j;
      int64_t cnt = window_offsets(g, oi, offs);
      fold_lists(dt, p->binop, in, NULL, 1, offs, cnt, init, drow + (size_t)j * es);
    }
  }
}

static shl_status rw_general(exec_ctx *ec, const plan_op *po, const rw_params *p, shl_buf *const *in,
                             shl_buf *const *out, int64_t *offs) {
  uint32_t n = p->n_in;
  ku_scalar_fn f;
  ST_TRY(ku_scalar_fn_init(&f, po->regions[0], &po->op->regions[0]));
  void **args = malloc((2 * n + 1) * sizeof *args);
  shl_status st = args ? NULL : st_oom();
  int64_t oi[KU_MAX_RANK] = {0};
  for (int64_t o = 0; !st && o < p->g.n_out; o++) {
    int64_t cnt = window_offsets(&p->g, oi, offs);
    for (uint32_t k = 0; k < n; k++) {
      size_t sz = dtype_bytes(out[k]->dtype);
      args[k] = (uint8_t *)out[k]->data + (size_t)o * sz;
      memcpy(args[k], in[n + k]->data, sz);
    }
    for (int64_t j = 0; !st && j < cnt; j++) {
      for (uint32_t k = 0; k < n; k++) args[n + k] = (uint8_t *)in[k]->data + (size_t)offs[j] * dtype_bytes(in[k]->dtype);
      st = ku_scalar_call(ec, &f, args, args);
    }
    index_next(p->g.rank, p->g.out_dims, oi);
  }
  free(args);
  ku_scalar_fn_free(&f);
  return st;
}

static shl_status rw_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const rw_params *p = po->params;
  if (p->g.n_out == 0) return NULL;
  shl_buf views[2 * KU_MAX_PROMOTED], *ptrs[2 * KU_MAX_PROMOTED];
  void *mem = NULL;
  if (p->promote) {
    ST_TRY(reduce_promote(po->op, p->promote, 2 * p->n_in, in, views, ptrs, &mem));
    in = ptrs;
  }
  int nt = p->binop != OP_UNKNOWN ? omp_get_max_threads() : 1;
  int64_t *offs = malloc((size_t)nt * (size_t)(p->g.n_win + 1) * sizeof *offs);
  shl_status st = offs ? NULL : st_oom();
  if (!st && p->binop != OP_UNKNOWN) rw_fast(in[0]->dtype, p, in[0]->data, in[1]->data, out[0]->data, offs);
  else if (!st) st = rw_general(ec, po, p, in, out, offs);
  free(offs);
  free(mem);
  return st;
}

const shl_kernel kernel_reduce_window = {rw_prepare, rw_run};

/* ---- select_and_scatter ---- */

typedef struct {
  win_geom g; /* operand -> source geometry */
  int select_dir; /* fast select: 1 GE, 2 GT, 3 LE, 4 LT; 0 = run the body */
  bool scatter_add;
} ss_params;

/* select body `compare DIR, arg0, arg1` (float, or integers up to 32 bits). */
static int ss_select_pattern(const shl_region *r) {
  const shl_block *b = r->blocks[0];
  const shl_op *o = b->first;
  if (r->n_blocks != 1 || b->n_args != 2 || !o || !o->next || o->next->next) return 0;
  if (!op_is(o, OP_COMPARE) || o->n_operands != 2 || o->operands[0] != &b->args[0] || o->operands[1] != &b->args[1])
    return 0;
  const shl_op *ret = o->next;
  if (!ku_is_return(ret) || ret->n_operands != 1 || ret->operands[0] != &o->results[0]) return 0;
  shl_dtype t = type_storage_dtype(b->args[0].type);
  if (!dtype_is_float(t) && !(ku_plain_int(t) && dtype_bits(t) <= 32)) return 0;
  const shl_attr *ct = op_attr(o, "compare_type");
  if (ct && ku_enum_is(ct, "TOTALORDER")) return 0;
  const shl_attr *d = op_attr(o, "comparison_direction");
  if (ku_enum_is(d, "GE")) return 1;
  if (ku_enum_is(d, "GT")) return 2;
  if (ku_enum_is(d, "LE")) return 3;
  if (ku_enum_is(d, "LT")) return 4;
  return 0;
}

static shl_status ss_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 3 || op->n_results != 1 || op->n_regions != 2)
    return op_error(op, SHLOC_ERR_VERIFY, "expects operand, source, init_value and two bodies");
  ss_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  ST_TRY(geom_init(op, op->operands[0]->type, op->operands[1]->type, &p->g));
  shl_dtype t = type_storage_dtype(op->operands[0]->type);
  if (type_storage_dtype(op->results[0].type) != t || type_storage_dtype(op->operands[1]->type) != t ||
      type_storage_dtype(op->operands[2]->type) != t)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "with mixed element types is not supported");
  p->select_dir = ss_select_pattern(&op->regions[0]);
  shl_opid sc = ku_body_binop(&op->regions[1]);
  p->scatter_add = sc == OP_ADD && (t == DT_F32 || t == DT_F64 || t == DT_BF16 || t == DT_F16 || ku_plain_int(t));
  *params = p;
  return NULL;
}

static bool ss_better(int dir, double cur, double x) {
  /* The select body says whether `cur` stays selected over `x`. */
  switch (dir) {
    case 1: return cur >= x;
    case 2: return cur > x;
    case 3: return cur <= x;
    default: return cur < x;
  }
}

/* For each source element: the operand offset its window selects, or -1. */
static shl_status ss_select(exec_ctx *ec, const plan_op *po, const ss_params *p, const shl_buf *operand, int64_t *sel,
                            int64_t *offs) {
  const win_geom *g = &p->g;
  int64_t oi[KU_MAX_RANK] = {0};
  if (p->select_dir) {
    double *v = malloc((size_t)(operand->n + 1) * sizeof *v);
    if (!v) return st_oom();
    ku_to_f64_n(operand->dtype, operand->data, v, operand->n);
    for (int64_t s = 0; s < g->n_out; s++) {
      int64_t cnt = window_offsets(g, oi, offs), best = cnt ? offs[0] : -1;
      for (int64_t j = 1; j < cnt; j++)
        if (!ss_better(p->select_dir, v[best], v[offs[j]])) best = offs[j];
      sel[s] = best;
      index_next(g->rank, g->out_dims, oi);
    }
    free(v);
    return NULL;
  }
  ku_scalar_fn f;
  ST_TRY(ku_scalar_fn_init(&f, po->regions[0], &po->op->regions[0]));
  size_t sz = dtype_bytes(operand->dtype);
  shl_status st = NULL;
  for (int64_t s = 0; !st && s < g->n_out; s++) {
    int64_t cnt = window_offsets(g, oi, offs), best = cnt ? offs[0] : -1;
    for (int64_t j = 1; !st && j < cnt; j++) {
      void *args[2] = {(uint8_t *)operand->data + (size_t)best * sz, (uint8_t *)operand->data + (size_t)offs[j] * sz};
      bool keep = true;
      st = ku_scalar_pred(ec, &f, args, &keep);
      if (!keep) best = offs[j];
    }
    sel[s] = best;
    index_next(g->rank, g->out_dims, oi);
  }
  ku_scalar_fn_free(&f);
  return st;
}

#define ID(v) (v)
#define SS_ADD(T, ACC, LD, STO)                                                                                \
  do {                                                                                                      \
    T *o = out->data;                                                                                       \
    const T *s = source->data;                                                                              \
    for (int64_t i = 0; i < source->n; i++)                                                                 \
      if (sel[i] >= 0) o[sel[i]] = STO((ACC)(LD(o[sel[i]]) + LD(s[i])));                                    \
  } while (0)

static void ss_scatter_add(shl_buf *out, const shl_buf *source, const int64_t *sel) {
  switch (out->dtype) {
    case DT_F32: SS_ADD(float, float, ID, ID); break;
    case DT_F64: SS_ADD(double, double, ID, ID); break;
    case DT_BF16: SS_ADD(uint16_t, float, bf16_to_f32, f32_to_bf16); break;
    case DT_F16: SS_ADD(uint16_t, float, f16_to_f32, f32_to_f16); break;
    case DT_I8:
    case DT_UI8: SS_ADD(uint8_t, uint8_t, ID, ID); break;
    case DT_I16:
    case DT_UI16: SS_ADD(uint16_t, uint16_t, ID, ID); break;
    case DT_I32:
    case DT_UI32: SS_ADD(uint32_t, uint32_t, ID, ID); break;
    default: SS_ADD(uint64_t, uint64_t, ID, ID); break;
  }
}

static shl_status ss_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const ss_params *p = po->params;
  size_t sz = dtype_bytes(out[0]->dtype);
  for (int64_t i = 0; i < out[0]->n; i++) memcpy((uint8_t *)out[0]->data + (size_t)i * sz, in[2]->data, sz);
  if (p->g.n_out == 0) return NULL;
  int64_t *sel = malloc((size_t)(p->g.n_out + 1) * sizeof *sel), *offs = malloc((size_t)(p->g.n_win + 1) * sizeof *offs);
  shl_status st = sel && offs ? NULL : st_oom();
  if (!st) st = ss_select(ec, po, p, in[0], sel, offs);
  if (!st && p->scatter_add) {
    ss_scatter_add(out[0], in[1], sel);
  } else if (!st) {
    ku_scalar_fn f;
    st = ku_scalar_fn_init(&f, po->regions[1], &po->op->regions[1]);
    if (!st) {
      for (int64_t s = 0; !st && s < in[1]->n; s++) {
        if (sel[s] < 0) continue;
        void *acc = (uint8_t *)out[0]->data + (size_t)sel[s] * sz;
        void *args[2] = {acc, (uint8_t *)in[1]->data + (size_t)s * sz};
        st = ku_scalar_call(ec, &f, args, &acc);
      }
      ku_scalar_fn_free(&f);
    }
  }
  free(sel);
  free(offs);
  return st;
}

const shl_kernel kernel_select_and_scatter = {ss_prepare, ss_run};
