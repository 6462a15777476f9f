/* stablehlo.sort and chlo.top_k.
 *
 * sort: comparators that order by a key of operand 0 -- `compare LT/GT` of
 * the first pair of arguments (integers; floats with TOTALORDER or FLOAT),
 * optionally after JAX's canonicalization (-0 -> +0, every NaN -> one NaN)
 * -- sort by an unsigned key whose order is the comparator's, with the
 * stable radix sort of sort_radix.c: a single 32/64-bit operand as keys
 * alone (mapped back to values afterwards), otherwise as (key, index) pairs
 * that then permute every operand.  FLOAT comparisons order NaN with
 * nothing, so slices holding a NaN fall back.
 * Any other comparator runs through exec_region inside a stable bottom-up
 * merge sort of index permutations; when the comparator is elementwise ops
 * only, threads share the merges of each width.  Both are stable whether or
 * not is_stable is set. */
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kutil.h"
#include "sort.h"

/* The general path: slices from SORT_PAR_MIN elements are sorted by up to
 * SORT_MAX_THREADS threads, which claim merges MERGE_GRAIN elements at a time. */
enum { SORT_PAR_MIN = 1 << 12, SORT_MAX_THREADS = 64, MERGE_GRAIN = 1 << 12 };

/* ---- recognising the comparator ---- */

typedef enum { V_ARG, V_ZERO, V_NAN, V_EQZ, V_ISNAN, V_CZ, V_CN, V_CANON, V_CMP } vkind;

typedef struct {
  const shl_value *v;
  vkind kind;
  int arg;       /* which of the first two arguments it derives from */
  uint64_t bits; /* V_NAN, V_CN, V_CANON, V_CMP: the NaN constant as f64 bits */
  bool lt, total, canon; /* V_CMP: ascending, TOTALORDER, of canonicalized values */
} vdesc;

enum { MAX_VALS = 32 };

static const vdesc *vfind(const vdesc *d, int n, const shl_value *v) {
  for (int i = 0; i < n; i++)
    if (d[i].v == v) return &d[i];
  return NULL;
}

static bool is(const vdesc *d, vkind k) { return d && d->kind == k; }

/* A scalar float constant: zero (either sign) or NaN. */
static bool float_const(const shl_op *o, vdesc *out) {
  const shl_attr *a = op_attr(o, "value");
  const shl_type *t = o->results[0].type;
  if (!a || a->kind != AT_DENSE || t->rank != 0 || !dtype_is_float(type_storage_dtype(t))) return false;
  shl_dtype dt = type_storage_dtype(t);
  uint64_t raw = 0;
  memcpy(&raw, attr_dense_data(a), dtype_bytes(dt));
  double v = fp_to_f64(dt, fp_load(dt, &raw));
  if (v == 0) out->kind = V_ZERO;
  else if (v != v) out->kind = V_NAN, out->bits = fp_f64_bits(v);
  else return false;
  return true;
}

static bool cmp_is(const shl_op *o, const char *dir, const char *type) {
  if (!ku_enum_is(op_attr(o, "comparison_direction"), dir)) return false;
  const shl_attr *ct = op_attr(o, "compare_type");
  return type ? ku_enum_is(ct, type) || (!ct && !strcmp(type, "FLOAT")) : true;
}

/* One op of the comparator -> its result's description; false when it is
 * not part of a recognised pattern. */
static bool describe(const shl_op *o, const vdesc *d, int n, bool is_float, vdesc *out) {
  const vdesc *x = o->n_operands > 0 ? vfind(d, n, o->operands[0]) : NULL;
  const vdesc *y = o->n_operands > 1 ? vfind(d, n, o->operands[1]) : NULL;
  const vdesc *z = o->n_operands > 2 ? vfind(d, n, o->operands[2]) : NULL;
  out->v = &o->results[0];
  if (op_is(o, OP_CONSTANT)) return is_float && float_const(o, out);
  if (op_is(o, OP_COMPARE) && x && y) {
    if (is_float && cmp_is(o, "EQ", "FLOAT") && ((is(x, V_ARG) && is(y, V_ZERO)) || (is(x, V_ZERO) && is(y, V_ARG)))) {
      out->kind = V_EQZ, out->arg = is(x, V_ARG) ? x->arg : y->arg;
      return true;
    }
    if (is_float && cmp_is(o, "NE", "FLOAT") && is(x, V_ARG) && is(y, V_ARG) && x->arg == y->arg) {
      out->kind = V_ISNAN, out->arg = x->arg;
      return true;
    }
    bool lt = cmp_is(o, "LT", NULL);
    if (!lt && !cmp_is(o, "GT", NULL)) return false;
    if (x->kind != y->kind || (x->kind != V_ARG && x->kind != V_CANON) || x->arg == y->arg) return false;
    const shl_attr *ct = op_attr(o, "compare_type");
    out->kind = V_CMP;
    out->total = ku_enum_is(ct, "TOTALORDER");
    if (is_float && !out->total && ct && !ku_enum_is(ct, "FLOAT")) return false;
    if (!is_float && x->kind != V_ARG) return false;
    /* compare(arg1, arg0) LT puts larger elements first. */
    out->lt = lt == (x->arg == 0);
    out->canon = x->kind == V_CANON;
    out->bits = x->bits;
    return true;
  }
  if (op_is(o, OP_SELECT) && x && y && z) {
    if (is(x, V_EQZ) && is(y, V_ZERO) && (is(z, V_ARG) || is(z, V_CN)) && z->arg == x->arg) {
      out->kind = is(z, V_ARG) ? V_CZ : V_CANON, out->arg = x->arg, out->bits = z->bits;
      return true;
    }
    if (is(x, V_ISNAN) && is(y, V_NAN) && (is(z, V_ARG) || is(z, V_CZ)) && z->arg == x->arg) {
      out->kind = is(z, V_ARG) ? V_CN : V_CANON, out->arg = x->arg, out->bits = y->bits;
      return true;
    }
  }
  return false;
}

/* Fills the keyed fields of p when the comparator orders by a key of operand 0. */
static void sort_recognise(const shl_region *r, sort_params *p) {
  const shl_block *b = r->blocks[0];
  p->keyed = false;
  if (r->n_blocks != 1 || b->n_args < 2) return;
  shl_dtype t = type_storage_dtype(b->args[0].type);
  bool is_float = dtype_is_float(t);
  if (!is_float && !ku_plain_int(t) && t != DT_I1) return;
  vdesc d[MAX_VALS];
  int n = 0;
  for (int k = 0; k < 2; k++) d[n++] = (vdesc){.v = &b->args[k], .kind = V_ARG, .arg = k};
  for (const shl_op *o = b->first; o; o = o->next) {
    if (ku_is_return(o)) {
      const vdesc *c = o->n_operands == 1 && !o->next ? vfind(d, n, o->operands[0]) : NULL;
      if (!is(c, V_CMP)) return;
      /* Only TOTALORDER on raw values tells -0 from +0 (see key_f32). */
      p->keyed = true;
      p->desc = !c->lt;
      p->is_float = is_float;
      p->canon_nan = is_float && c->canon && c->total;
      p->nan_fallback = is_float && !c->total;
      p->nan_bits = c->bits;
      return;
    }
    if (n == MAX_VALS || o->n_results != 1 || o->n_regions || !describe(o, d, n, is_float, &d[n])) return;
    n++;
  }
}

/* A run state's radix scratch, freed with the executable. */
static void cache_release(void *arg) {
  sort_cache *c = arg;
  free(c->mem);
  free(c);
}

static shl_status sort_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (!op->n_operands || op->n_results != op->n_operands || op->n_regions != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects N operands, N results and a comparator");
  const shl_type *t = op->operands[0]->type;
  if (!type_is_static(t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  int64_t dim = -1;
  attr_as_int(op_attr(op, "dimension"), &dim);
  if (dim < 0) dim += t->rank;
  if (t->rank == 0) dim = 0;
  else if (dim < 0 || dim >= t->rank) return op_error(op, SHLOC_ERR_VERIFY, "has an invalid dimension");
  if (op->regions[0].blocks[0]->n_args != 2 * op->n_operands)
    return op_error(op, SHLOC_ERR_VERIFY, "comparator must take %u arguments", 2 * op->n_operands);
  sort_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  int64_t n = type_num_elements(t);
  p->len = t->rank ? t->dims[dim] : 1;
  p->stride = 1;
  for (int32_t d = (int32_t)dim + 1; d < t->rank; d++) p->stride *= t->dims[d];
  p->n_slices = p->len ? n / p->len : 0;
  sort_recognise(&op->regions[0], p);
  if (p->len > UINT32_MAX) p->keyed = false;
  if (p->keyed) ST_TRY(plan_state_new(pc, cache_release, &p->cache_id));
  *params = p;
  return NULL;
}

/* ---- the general path ---- */

/* out[k][base + i*stride] = in[k][base + perm[i]*stride] for every operand. */
static void permute(uint32_t n_ops, shl_buf *const *in, shl_buf *const *out, int64_t base, int64_t len, int64_t st,
                    const int64_t *perm) {
  for (uint32_t k = 0; k < n_ops; k++) {
    size_t sz = dtype_bytes(in[k]->dtype);
    const uint8_t *s = in[k]->data;
    uint8_t *d = out[k]->data;
    for (int64_t i = 0; i < len; i++)
      memcpy(d + (size_t)(base + i * st) * sz, s + (size_t)(base + perm[i] * st) * sz, sz);
  }
}

typedef struct {
  exec_ctx *ec;
  ku_scalar_fn f;
  void **args;
  shl_buf *const *in;
  uint32_t n;
  int64_t base, stride;
} sort_cmp;

/* less(a, b): the comparator says element a goes before element b. */
static shl_status sort_less(sort_cmp *c, int64_t a, int64_t b, bool *less) {
  for (uint32_t k = 0; k < c->n; k++) {
    size_t sz = dtype_bytes(c->in[k]->dtype);
    uint8_t *d = c->in[k]->data;
    c->args[2 * k] = d + (size_t)(c->base + a * c->stride) * sz;
    c->args[2 * k + 1] = d + (size_t)(c->base + b * c->stride) * sz;
  }
  return ku_scalar_pred(c->ec, &c->f, c->args, less);
}

/* Merges src[lo, mid) and src[mid, hi) into dst[lo, hi), taking from the
 * right run only when its element goes before (stable). */
static shl_status merge_runs(sort_cmp *c, const int64_t *src, int64_t *dst, int64_t lo, int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    bool less;
    ST_TRY(sort_less(c, src[j], src[i], &less));
    dst[k++] = less ? src[j++] : src[i++];
  }
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
  return NULL;
}

/* Bottom-up stable merge sort of perm[0..n) (tmp: scratch of n): runs of
 * width w are merged pairwise for w = 1, 2, 4, ... */
static shl_status merge_sort(sort_cmp *c, int64_t *perm, int64_t *tmp, int64_t n) {
  int64_t *src = perm, *dst = tmp;
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w)
      ST_TRY(merge_runs(c, src, dst, lo, lo + w < n ? lo + w : n, lo + 2 * w < n ? lo + 2 * w : n));
    int64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != perm) memcpy(perm, src, (size_t)n * sizeof *perm);
  return NULL;
}

/* A thread of the general path: its own comparator call state and, for
 * helper threads, a run state of its own (the comparator's frames). */
typedef struct {
  exec_ctx ec;
  sort_cmp c;
  bool fn_ready;
  shl_status st;
} sort_worker;

static shl_status worker_init(sort_worker *w, exec_ctx *ec, const plan_op *po, shl_buf *const *in, int64_t stride,
                              bool helper) {
  uint32_t n_ops = po->op->n_operands;
  memset(w, 0, sizeof *w);
  w->ec = *ec;
  if (helper && !(w->ec.run = run_state_get(ec->x))) return st_oom();
  w->c = (sort_cmp){.ec = &w->ec, .in = in, .n = n_ops, .stride = stride};
  w->c.args = malloc((2 * n_ops + 1) * sizeof *w->c.args);
  if (!w->c.args) return st_oom();
  ST_TRY(ku_scalar_fn_init(&w->c.f, po->regions[0], &po->op->regions[0]));
  w->fn_ready = true;
  return NULL;
}

static void worker_free(sort_worker *w, const exec_ctx *ec) {
  if (w->fn_ready) ku_scalar_fn_free(&w->c.f);
  free(w->c.args);
  if (w->ec.run && w->ec.run != ec->run) run_state_put(ec->x, w->ec.run);
  shloc_status_free(w->st);
}

/* Whether the comparator is elementwise ops only (no side effects, no
 * nested regions), so that threads may call it in any order. */
static bool comparator_pure(const shl_region *r) {
  for (const shl_op *o = r->blocks[0]->first; o; o = o->next) {
    if (o->n_regions) return false;
    if ((o->def->traits & (T_EW | T_TERM)) || op_is(o, OP_CONSTANT) || op_is(o, OP_BROADCAST_IN_DIM) ||
        op_is(o, OP_RESHAPE) || op_is(o, OP_BITCAST_CONVERT))
      continue;
    return false;
  }
  return true;
}

/* merge_sort of one slice by nt threads: at each width the pairs of runs
 * are independent, so threads take them (about MERGE_GRAIN elements at a
 * time) from a counter per width; the merges are the serial ones, so the
 * permutation is the same whatever the comparator. */
static shl_status merge_sort_par(sort_worker *ws, int nt, int64_t *perm, int64_t *tmp, int64_t n) {
  int levels = 0;
  for (int64_t w = 1; w < n; w *= 2) levels++;
  _Atomic int64_t claimed[64];
  for (int l = 0; l < levels; l++) atomic_init(&claimed[l], 0);
  _Atomic bool failed = false;
#pragma omp parallel num_threads(nt)
  {
    sort_worker *me = &ws[omp_get_thread_num()];
    int64_t *src = perm, *dst = tmp, w = 1;
    for (int l = 0; l < levels; l++, w *= 2) {
      int64_t pairs = (n + 2 * w - 1) / (2 * w), grain = MERGE_GRAIN / (2 * w) + 1;
      for (;;) {
        int64_t q0 = atomic_fetch_add(&claimed[l], grain);
        if (q0 >= pairs || atomic_load(&failed)) break;
        for (int64_t q = q0; q < q0 + grain && q < pairs && !me->st; q++) {
          int64_t lo = q * 2 * w;
          me->st = merge_runs(&me->c, src, dst, lo, lo + w < n ? lo + w : n, lo + 2 * w < n ? lo + 2 * w : n);
        }
        if (me->st) atomic_store(&failed, true);
      }
#pragma omp barrier
      int64_t *t = src;
      src = dst;
      dst = t;
    }
  }
  for (int t = 0; t < nt; t++)
    if (ws[t].st) {
      shl_status st = ws[t].st;
      ws[t].st = NULL;
      return st;
    }
  if (levels % 2) memcpy(perm, tmp, (size_t)n * sizeof *perm);
  return NULL;
}

/* Sorts the slices listed in todo[0..n_todo) (all when todo is NULL) with the comparator. */
static shl_status general_slices(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out,
                                 const int64_t *todo, int64_t n_todo) {
  const sort_params *p = po->params;
  uint32_t n_ops = po->op->n_operands;
  int64_t len = p->len, st = p->stride;
  int nt = len >= SORT_PAR_MIN && comparator_pure(&po->op->regions[0]) ? omp_get_max_threads() : 1;
  if (nt > SORT_MAX_THREADS) nt = SORT_MAX_THREADS;
  sort_worker ws[SORT_MAX_THREADS];
  int ready = 0;
  int64_t *perm = malloc((size_t)len * 2 * sizeof *perm);
  shl_status st_ = perm ? NULL : st_oom();
  for (; !st_ && ready < nt; ready++) st_ = worker_init(&ws[ready], ec, po, in, st, ready > 0);
  for (int64_t j = 0; !st_ && j < n_todo; j++) {
    int64_t q = todo ? todo[j] : j, base = q / st * len * st + q % st;
    for (int t = 0; t < ready; t++) ws[t].c.base = base;
    for (int64_t i = 0; i < len; i++) perm[i] = i;
    st_ = nt > 1 ? merge_sort_par(ws, nt, perm, perm + len, len) : merge_sort(&ws[0].c, perm, perm + len, len);
    if (!st_) permute(n_ops, in, out, base, len, st, perm);
  }
  for (int t = 0; t < ready; t++) worker_free(&ws[t], ec);
  free(perm);
  return st_;
}

static shl_status sort_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const sort_params *p = po->params;
  if (!p->n_slices || !p->len) return NULL;
  if (!p->keyed) return general_slices(ec, po, in, out, NULL, p->n_slices);
  sort_cache **c = (sort_cache **)exec_state(ec, p->cache_id);
  if (!*c && !(*c = calloc(1, sizeof **c))) return st_oom();
  int64_t *nan_slices = malloc((size_t)p->n_slices * sizeof *nan_slices), n_nan = 0;
  if (!nan_slices) return st_oom();
  shl_status s = sort_keyed(p, *c, po->op->n_operands, in, out, nan_slices, &n_nan);
  if (!s && n_nan) s = general_slices(ec, po, in, out, nan_slices, n_nan);
  free(nan_slices);
  return s;
}

const shl_kernel kernel_sort = {sort_prepare, sort_run};

/* ---- chlo.top_k ---- */

typedef struct {
  uint64_t key;
  int64_t idx;
} tk_item;

/* Descending key, then ascending index. */
static int tk_cmp(const void *pa, const void *pb) {
  const tk_item *a = pa, *b = pb;
  if (a->key != b->key) return a->key > b->key ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* An unsigned key whose order is the element order; floats use the total
 * order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), as XLA's TopK. */
static void tk_keys(shl_dtype t, const void *src, tk_item *items, int64_t n) {
  if (dtype_is_float(t)) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t b = fp_f64_bits(ku_load_f64(t, src, i));
      items[i].key = (b >> 63) ? ~b : b | (1ull << 63);
    }
  } else if (dtype_class(t) == DTC_SINT) {
    size_t sz = dtype_bytes(t);
    for (int64_t i = 0; i < n; i++)
      items[i].key = (uint64_t)int_load(t, (const uint8_t *)src + (size_t)i * sz) ^ (1ull << 63);
  } else {
    size_t sz = dtype_bytes(t);
    for (int64_t i = 0; i < n; i++) items[i].key = (uint64_t)int_load(t, (const uint8_t *)src + (size_t)i * sz);
  }
}

static shl_status top_k_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 2) return op_error(op, SHLOC_ERR_VERIFY, "expects one operand and two results");
  const shl_type *t = op->operands[0]->type, *rt = op->results[0].type;
  if (!type_is_static(t) || !type_is_static(rt)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  if (t->rank < 1) return op_error(op, SHLOC_ERR_VERIFY, "needs an operand of rank >= 1");
  shl_dtype dt = type_storage_dtype(t);
  if (dtype_is_complex(dt) || dt == DT_QUANT) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on %s is not supported", dtype_name(dt));
  if (type_storage_dtype(op->results[1].type) != DT_I32) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs i32 indices");
  return NULL;
}

static shl_status top_k_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  int64_t n = in[0]->dims[in[0]->rank - 1], k = out[0]->dims[out[0]->rank - 1];
  if (k > n) return op_error(po->op, SHLOC_ERR_RUNTIME, "k exceeds the last dimension");
  int64_t rows = n ? in[0]->n / n : 0;
  if (!rows || !k) return NULL;
  tk_item *items = malloc((size_t)n * sizeof *items);
  if (!items) return st_oom();
  size_t sz = dtype_bytes(in[0]->dtype);
  for (int64_t r = 0; r < rows; r++) {
    const uint8_t *src = (const uint8_t *)in[0]->data + (size_t)(r * n) * sz;
    tk_keys(in[0]->dtype, src, items, n);
    for (int64_t i = 0; i < n; i++) items[i].idx = i;
    qsort(items, (size_t)n, sizeof *items, tk_cmp);
    uint8_t *vals = (uint8_t *)out[0]->data + (size_t)(r * k) * sz;
    int32_t *idx = (int32_t *)out[1]->data + r * k;
    for (int64_t i = 0; i < k; i++) {
      memcpy(vals + (size_t)i * sz, src + (size_t)items[i].idx * sz, sz);
      idx[i] = (int32_t)items[i].idx;
    }
  }
  free(items);
  return NULL;
}

const shl_kernel kernel_top_k = {top_k_prepare, top_k_run};
