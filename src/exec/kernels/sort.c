/* stablehlo.sort and chlo.top_k.  sort is a stable merge sort of index
 * permutations per slice (stable whether or not is_stable is set); the
 * comparator runs through exec_region unless it is a plain `compare LT/GT`
 * of the first operand's pair. */
#include <stdlib.h>

#include "kutil.h"

typedef struct {
  int64_t len, stride, n_slices; /* sorted dimension size, its stride, slices */
  int fast_dir;                  /* 1 LT, 2 GT on operand 0; 0 = run the comparator */
} sort_params;

static int sort_fast_pattern(const shl_region *r) {
  const shl_block *b = r->blocks[0];
  const shl_op *o = b->first;
  if (r->n_blocks != 1 || b->n_args < 2 || !o || !o->next || o->next->next) return 0;
  if (!op_is(o, OP_COMPARE) || o->n_operands != 2 || o->operands[0] != &b->args[0] || o->operands[1] != &b->args[1])
    return 0;
  const shl_op *ret = o->next;
  if (!op_is(ret, OP_RETURN) || ret->n_operands != 1 || ret->operands[0] != &o->results[0]) return 0;
  shl_dtype t = type_storage_dtype(b->args[0].type);
  if (!dtype_is_float(t) && !(ku_plain_int(t) && dtype_bits(t) <= 32)) return 0;
  if (ku_enum_is(op_attr(o, "compare_type"), "TOTALORDER")) return 0;
  const shl_attr *d = op_attr(o, "comparison_direction");
  if (ku_enum_is(d, "LT")) return 1;
  if (ku_enum_is(d, "GT")) return 2;
  return 0;
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
  int64_t n = type_num_elements(t);
  p->len = t->rank ? t->dims[dim] : 1;
  p->stride = 1;
  for (int32_t d = (int32_t)dim + 1; d < t->rank; d++) p->stride *= t->dims[d];
  p->n_slices = p->len ? n / p->len : 0;
  p->fast_dir = sort_fast_pattern(&op->regions[0]);
  *params = p;
  return NULL;
}

typedef struct {
  exec_ctx *ec;
  ku_scalar_fn f;
  void **args;
  shl_buf *const *in;
  uint32_t n;
  int64_t base, stride;
  const double *keys; /* fast path: operand 0 of the slice as doubles */
  int fast_dir;
} sort_cmp;

/* less(a, b): the comparator says element a goes before element b. */
static shl_status sort_less(sort_cmp *c, int64_t a, int64_t b, bool *less) {
  if (c->fast_dir) {
    *less = c->fast_dir == 1 ? c->keys[a] < c->keys[b] : c->keys[a] > c->keys[b];
    return NULL;
  }
  for (uint32_t k = 0; k < c->n; k++) {
    size_t sz = dtype_bytes(c->in[k]->dtype);
    uint8_t *d = c->in[k]->data;
    c->args[2 * k] = d + (size_t)(c->base + a * c->stride) * sz;
    c->args[2 * k + 1] = d + (size_t)(c->base + b * c->stride) * sz;
  }
  return ku_scalar_pred(c->ec, &c->f, c->args, less);
}

/* Bottom-up stable merge sort of perm[0..n) (tmp: scratch of n). */
static shl_status merge_sort(sort_cmp *c, int64_t *perm, int64_t *tmp, int64_t n) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        bool less;
        ST_TRY(sort_less(c, perm[j], perm[i], &less));
        tmp[k++] = less ? perm[j++] : perm[i++];
      }
      while (i < mid) tmp[k++] = perm[i++];
      while (j < hi) tmp[k++] = perm[j++];
    }
    memcpy(perm, tmp, (size_t)n * sizeof *perm);
  }
  return NULL;
}

static shl_status sort_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const sort_params *p = po->params;
  uint32_t n = po->op->n_operands;
  if (!p->n_slices || !p->len) return NULL;
  sort_cmp c = {.ec = ec, .in = in, .n = n, .stride = p->stride, .fast_dir = p->fast_dir};
  int64_t *perm = malloc((size_t)p->len * 2 * sizeof *perm);
  double *keys = NULL, *all = NULL;
  bool fn_ready = false;
  c.args = malloc((2 * n + 1) * sizeof *c.args);
  shl_status st = perm && c.args ? NULL : st_oom();
  if (!st && p->fast_dir) {
    all = malloc((size_t)in[0]->n * sizeof *all);
    keys = malloc((size_t)p->len * sizeof *keys);
    if (!all || !keys) st = st_oom();
    else ku_to_f64_n(in[0]->dtype, in[0]->data, all, in[0]->n);
    c.keys = keys;
  } else if (!st) {
    st = ku_scalar_fn_init(&c.f, po->regions[0], &po->op->regions[0]);
    fn_ready = !st;
  }
  for (int64_t q = 0; !st && q < p->n_slices; q++) {
    int64_t base = q / p->stride * p->len * p->stride + q % p->stride;
    c.base = base;
    for (int64_t i = 0; i < p->len; i++) perm[i] = i;
    if (keys)
      for (int64_t i = 0; i < p->len; i++) keys[i] = all[base + i * p->stride];
    st = merge_sort(&c, perm, perm + p->len, p->len);
    for (uint32_t k = 0; !st && k < n; k++) {
      size_t sz = dtype_bytes(in[k]->dtype);
      const uint8_t *s = in[k]->data;
      uint8_t *d = out[k]->data;
      for (int64_t i = 0; i < p->len; i++)
        memcpy(d + (size_t)(base + i * p->stride) * sz, s + (size_t)(base + perm[i] * p->stride) * sz, sz);
    }
  }
  if (fn_ready) ku_scalar_fn_free(&c.f);
  free(perm);
  free(keys);
  free(all);
  free(c.args);
  return st;
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
