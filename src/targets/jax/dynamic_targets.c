/* Static-shape cases of JAX's stablehlo.dynamic_* custom calls.  Each call
 * is turned, once at plan time, into the static op it stands for (an op made
 * in the plan arena, named after the target so that its errors name it),
 * prepared and run by that op's kernel:
 *
 *   stablehlo.dynamic_top_k(x, k)                     -> chlo.top_k, k = the result's last dim
 *   stablehlo.dynamic_rng_bit_generator(state, shape) -> rng_bit_generator {rng_algorithm}
 *   stablehlo.dynamic_reduce_window(xs..., inits..., window_dimensions,
 *       window_strides, base_dilations, window_dilations, padding)
 *                                                     -> reduce_window, body = called_computations[0]
 *   stablehlo.dynamic_approx_top_k(xs..., inits..., k) -> sort along mhlo.backend_config's
 *       reduction_dim with the comparator called_computations[0], keeping the
 *       first L (the results' size there): the exact top-L, which XLA's
 *       fallback computes too and which satisfies any recall target.
 *
 * The operands that carry shapes are checked against the result types when
 * the call runs (k, the output shape); window parameters must be constants. */
#include "dynamic_targets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/kernels/ew_common.h"
#include "exec/kernels/kutil.h"
#include "exec/plan.h"

typedef enum { DYN_TOP_K, DYN_APPROX_TOP_K, DYN_RNG, DYN_REDUCE_WINDOW } dyn_kind;

static const struct {
  const char *name;
  dyn_kind kind;
} targets[] = {
    {"stablehlo.dynamic_top_k", DYN_TOP_K},
    {"stablehlo.dynamic_approx_top_k", DYN_APPROX_TOP_K},
    {"stablehlo.dynamic_rng_bit_generator", DYN_RNG},
    {"stablehlo.dynamic_reduce_window", DYN_REDUCE_WINDOW},
};

struct dyn_target {
  dyn_kind kind;
  plan_op po;          /* the static op with its kernel, params and nested plan */
  exec_plan *body[1];
  uint32_t n_in;       /* leading call operands the static op takes */
  /* A call operand compared with `want` when the call runs (none: UINT32_MAX). */
  uint32_t check;
  const char *check_what;
  uint32_t n_want;
  int64_t want[KU_MAX_RANK];
  bool at_most;        /* approx_top_k without aggregation: k <= want[0] */
  int64_t dim;         /* approx_top_k: the reduction dimension */
};

bool dyn_target_is(shl_str name) {
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
    if (str_eq_c(name, targets[i].name)) return true;
  return false;
}

/* An error at the call naming the target (not just stablehlo.custom_call). */
static shl_status dyn_error(const shl_op *call, shl_str name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static shl_status dyn_error(const shl_op *call, shl_str name, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return op_error(call, SHLOC_ERR_VERIFY, "target '%.*s': %s", (int)(name.n > 64 ? 64 : name.n), name.p, msg);
}

static bool is_int_tensor(const shl_type *t, int32_t rank) {
  return t->kind == TY_TENSOR && t->rank == rank && dtype_is_int(t->dtype) && (rank == 0 || t->dims[0] >= 0);
}

/* The integers of a call operand defined by a stablehlo.constant. */
static bool const_ints(const shl_value *v, int64_t *out, size_t cap, size_t *n) {
  const shl_op *d = v->def;
  return d && op_is(d, OP_CONSTANT) && attr_as_ints(op_attr(d, "value"), out, cap, n) && *n <= cap;
}

/* The function called_computations[0] names. */
static shl_status callee(plan_ctx *pc, const shl_op *call, shl_str name, const shl_op **out) {
  const shl_attr *cc = op_attr(call, "called_computations");
  if (!cc || cc->kind != AT_ARRAY || cc->u.arr.n != 1 || cc->u.arr.items[0]->kind != AT_SYMREF)
    return dyn_error(call, name, "expects called_computations to have 1 element");
  const shl_op *f = module_find_func(plan_module(pc), cc->u.arr.items[0]->u.sym.root);
  if (!f || !func_body(f))
    return dyn_error(call, name, "called computation %.*s is not a function of this module",
                   (int)(cc->u.arr.items[0]->u.sym.text.n > 64 ? 64 : cc->u.arr.items[0]->u.sym.text.n),
                   cc->u.arr.items[0]->u.sym.text.p);
  *out = f;
  return NULL;
}

/* Builds the static op (operands: the call's first t->n_in; results of the
 * given types; sorted attributes; body: `body_fn`'s, planned as a function)
 * and prepares its kernel. */
static shl_status synthesize(plan_ctx *pc, const shl_op *call, shl_str name, shl_opid id, uint32_t n_results,
                             const shl_type *const *rtypes, shl_named_attr *attrs, uint32_t n_attrs,
                             const shl_op *body_fn, dyn_target *t) {
  uint32_t dup;
  if (n_attrs && !attrs_sort(attrs, n_attrs, &dup)) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "duplicate attribute");
  shl_op *op = op_create(pc->arena, &shl_op_table[id], name, t->n_in, call->operands, n_results, rtypes, n_attrs, attrs,
                         body_fn ? 1 : 0);
  if (!op) return st_oom();
  op->pos = call->pos;
  op->loc = call->loc;
  if (body_fn) {
    /* The region shows the callee's body to the kernel (it reads the block's
     * arguments and recognises simple bodies); the callee stays its owner. */
    shl_block **blocks = ARENA_ARRAY(pc->arena, shl_block *, 1);
    if (!blocks) return st_oom();
    blocks[0] = func_body(body_fn);
    op->regions[0].blocks = blocks;
    op->regions[0].n_blocks = 1;
    op->regions[0].parent = op;
    ST_TRY(plan_function(pc, body_fn, &t->body[0]));
    t->po.regions = t->body;
  }
  t->po.op = op;
  t->po.kernel = plan_kernel_of(op);
  t->po.n_in = t->n_in;
  t->po.n_out = n_results;
  if (t->po.kernel->prepare) ST_TRY(t->po.kernel->prepare(pc, op, &t->po.params));
  return NULL;
}

static shl_status prepare_top_k(plan_ctx *pc, const shl_op *call, shl_str name, dyn_target *t) {
  if (call->n_operands != 2 || call->n_results != 2) return dyn_error(call, name, "expects (operand, k) -> (values, indices)");
  const shl_type *x = call->operands[0]->type, *v = call->results[0].type;
  if (!is_int_tensor(call->operands[1]->type, 0)) return dyn_error(call, name, "expects k (operand #1) to be a 0-dimensional integer tensor");
  if (!type_is_static(x) || !type_is_static(v) || !type_is_static(call->results[1].type) || x->rank < 1 || v->rank != x->rank)
    return dyn_error(call, name, "runs only with static shapes of the same rank >= 1");
  int64_t k = v->dims[v->rank - 1];
  t->n_in = 1;
  t->check = 1;
  t->check_what = "k (operand #1)";
  t->n_want = 1;
  t->want[0] = k;
  static const shl_type i64 = {.kind = TY_SCALAR, .dtype = DT_I64};
  shl_named_attr a[1] = {{str_of("k"), attr_int(pc->arena, &i64, k), true}};
  if (!a[0].attr) return st_oom();
  const shl_type *rt[2] = {v, call->results[1].type};
  return synthesize(pc, call, name, OP_CHLO_TOP_K, 2, rt, a, 1, NULL, t);
}

static shl_status prepare_rng(plan_ctx *pc, const shl_op *call, shl_str name, dyn_target *t) {
  if (call->n_operands != 2 || call->n_results != 2)
    return dyn_error(call, name, "expects (initial_state, output_shape) -> (output_state, output)");
  const shl_type *shape = call->operands[1]->type, *bits = call->results[1].type;
  const shl_attr *alg = op_attr(call, "rng_algorithm");
  if (!alg || alg->kind != AT_ENUM) return dyn_error(call, name, "expects a #stablehlo<rng_algorithm ...> rng_algorithm");
  if (!is_int_tensor(shape, 1)) return dyn_error(call, name, "expects output_shape (operand #1) to be a 1-dimensional integer tensor");
  if (!type_is_static(bits) || shape->dims[0] != bits->rank || bits->rank > KU_MAX_RANK)
    return dyn_error(call, name, "runs only with a static output whose rank is output_shape's length");
  t->n_in = 1;
  t->check = 1;
  t->check_what = "output_shape (operand #1)";
  t->n_want = (uint32_t)bits->rank;
  for (int32_t i = 0; i < bits->rank; i++) t->want[i] = bits->dims[i];
  shl_named_attr a[1] = {{str_of("rng_algorithm"), alg, true}};
  const shl_type *rt[2] = {call->results[0].type, bits};
  return synthesize(pc, call, name, OP_RNG_BIT_GENERATOR, 2, rt, a, 1, NULL, t);
}

static shl_status prepare_reduce_window(plan_ctx *pc, const shl_op *call, shl_str name, dyn_target *t) {
  uint32_t n = call->n_results;
  if (!n || call->n_operands != 2 * n + 5) return dyn_error(call, name, "expects size(operands) = 2 * size(results) + 5");
  static const char *const names[5] = {"window_dimensions", "window_strides", "base_dilations", "window_dilations",
                                       "padding"};
  int32_t rank = call->operands[0]->type->rank;
  if (rank < 0 || rank > KU_MAX_RANK) return dyn_error(call, name, "needs ranked inputs");
  shl_named_attr a[5];
  for (int i = 0; i < 5; i++) {
    int64_t v[2 * KU_MAX_RANK];
    size_t cnt = 0;
    const shl_value *src = call->operands[2 * n + (uint32_t)i];
    if (!const_ints(src, v, 2 * KU_MAX_RANK, &cnt))
      return dyn_error(call, name, "%s (operand #%u) must be a constant (only static shapes are supported)", names[i],
                     2 * n + (uint32_t)i);
    if (cnt != (size_t)(i == 4 ? 2 * rank : rank))
      return dyn_error(call, name, "expects %s (operand #%u) to have %d values, got %zu", names[i], 2 * n + (uint32_t)i,
                     i == 4 ? 2 * rank : rank, cnt);
    a[i] = (shl_named_attr){str_of(names[i]), attr_dense_array_i64(pc->arena, v, (int64_t)cnt), true};
    if (!a[i].attr) return st_oom();
  }
  const shl_op *body;
  ST_TRY(callee(pc, call, name, &body));
  t->n_in = 2 * n;
  t->check = UINT32_MAX;
  const shl_type **rt = ARENA_ARRAY(pc->arena, const shl_type *, n);
  if (!rt) return st_oom();
  for (uint32_t i = 0; i < n; i++) rt[i] = call->results[i].type;
  return synthesize(pc, call, name, OP_REDUCE_WINDOW, n, rt, a, 5, body, t);
}

static shl_status prepare_approx_top_k(plan_ctx *pc, const shl_op *call, shl_str name, dyn_target *t) {
  uint32_t n = call->n_results;
  if (call->n_operands < 3 || call->n_operands != 2 * n + 1)
    return dyn_error(call, name, "expects (inputs..., init values..., k) with one result per input");
  const shl_attr *cfg = op_attr(call, "mhlo.backend_config");
  int64_t dim = -1;
  if (!cfg || cfg->kind != AT_DICT || !attr_as_int(attr_dict_get(cfg->u.dict.items, cfg->u.dict.n, "reduction_dim"), &dim))
    return dyn_error(call, name, "needs mhlo.backend_config with an i64 reduction_dim");
  const shl_attr *agg = attr_dict_get(cfg->u.dict.items, cfg->u.dict.n, "aggregate_to_topk");
  t->at_most = agg && agg->kind == AT_BOOL && !agg->u.b;
  const shl_type *x = call->operands[0]->type, *r = call->results[0].type;
  if (!type_is_static(x) || !type_is_static(r) || r->rank != x->rank) return dyn_error(call, name, "runs only with static shapes");
  if (dim < 0 || dim >= x->rank) return dyn_error(call, name, "reduction_dim is out of range");
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *xi = call->operands[i]->type, *ri = call->results[i].type;
    bool ok = type_is_static(xi) && type_is_static(ri) && xi->rank == x->rank && ri->rank == x->rank && ri->dtype == xi->dtype;
    for (int32_t d = 0; ok && d < x->rank; d++) ok = xi->dims[d] == x->dims[d];
    if (!ok) return dyn_error(call, name, "input %u does not match input 0 in shape or its result in element type", i);
    for (int32_t d = 0; d < x->rank; d++)
      if (d != dim ? ri->dims[d] != x->dims[d] : ri->dims[d] > x->dims[d])
        return dyn_error(call, name, "output %u has dimension %d of size %lld for an input of size %lld", i, d,
                       (long long)ri->dims[d], (long long)x->dims[d]);
  }
  if (!is_int_tensor(call->operands[2 * n]->type, 0)) return dyn_error(call, name, "expects k to be a 0-dimensional integer tensor");
  const shl_op *cmp;
  ST_TRY(callee(pc, call, name, &cmp));
  t->n_in = n;
  t->dim = dim;
  t->check = 2 * n;
  t->check_what = "k";
  t->n_want = 1;
  t->want[0] = r->dims[dim];
  static const shl_type i64 = {.kind = TY_SCALAR, .dtype = DT_I64};
  shl_named_attr a[2] = {{str_of("dimension"), attr_int(pc->arena, &i64, dim), true},
                         {str_of("is_stable"), attr_bool(pc->arena, true), true}};
  if (!a[0].attr || !a[1].attr) return st_oom();
  const shl_type **rt = ARENA_ARRAY(pc->arena, const shl_type *, n);
  if (!rt) return st_oom();
  for (uint32_t i = 0; i < n; i++) rt[i] = call->operands[i]->type; /* sorted in full, then cut */
  return synthesize(pc, call, name, OP_SORT, n, rt, a, 2, cmp, t);
}

shl_status dyn_target_prepare(plan_ctx *pc, const shl_op *op, dyn_target **out) {
  const shl_attr *tn = op_attr(op, "call_target_name");
  shl_str name = tn && tn->kind == AT_STRING ? tn->u.str : (shl_str){"", 0};
  dyn_target *t = plan_alloc(pc, sizeof *t);
  if (!t) return st_oom();
  memset(t, 0, sizeof *t);
  size_t k = 0;
  while (k < sizeof targets / sizeof *targets && !str_eq_c(name, targets[k].name)) k++;
  if (k == sizeof targets / sizeof *targets) return op_error(op, SHLOC_ERR_INVALID_ARG, "is not a dynamic target");
  t->kind = targets[k].kind;
  switch (t->kind) {
    case DYN_TOP_K: ST_TRY(prepare_top_k(pc, op, name, t)); break;
    case DYN_RNG: ST_TRY(prepare_rng(pc, op, name, t)); break;
    case DYN_REDUCE_WINDOW: ST_TRY(prepare_reduce_window(pc, op, name, t)); break;
    case DYN_APPROX_TOP_K: ST_TRY(prepare_approx_top_k(pc, op, name, t)); break;
  }
  *out = t;
  return NULL;
}

/* The shape operand against the static shape the op was prepared with. */
static shl_status check_shape_operand(const dyn_target *t, const shl_buf *b) {
  if (t->check == UINT32_MAX) return NULL;
  int64_t got[KU_MAX_RANK];
  if (b->n != (int64_t)t->n_want) return op_error(t->po.op, SHLOC_ERR_RUNTIME, "%s has %lld values, expected %u", t->check_what, (long long)b->n, t->n_want);
  ew_load_int(b->dtype, b->data, 0, (int)t->n_want, got);
  for (uint32_t i = 0; i < t->n_want; i++) {
    bool ok = t->at_most ? got[i] <= t->want[i] && got[i] >= 0 : got[i] == t->want[i];
    if (!ok)
      return op_error(t->po.op, SHLOC_ERR_RUNTIME, "%s value #%u is %lld, but the result type says %lld", t->check_what, i,
                      (long long)got[i], (long long)t->want[i]);
  }
  return NULL;
}

/* Copies the first out->dims[dim] entries along dim of `full` into out. */
static void keep_prefix(const shl_buf *full, int64_t dim, shl_buf *out) {
  int64_t outer = 1, inner = (int64_t)dtype_bytes(full->dtype);
  for (int64_t d = 0; d < dim; d++) outer *= full->dims[d];
  for (int32_t d = (int32_t)dim + 1; d < full->rank; d++) inner *= full->dims[d];
  int64_t fl = full->dims[dim] * inner, ol = out->dims[dim] * inner;
  for (int64_t o = 0; o < outer; o++) memcpy((uint8_t *)out->data + o * ol, (const uint8_t *)full->data + o * fl, (size_t)ol);
}

shl_status dyn_target_run(exec_ctx *ec, const dyn_target *t, shl_buf *const *in, shl_buf *const *out) {
  if (t->check != UINT32_MAX) ST_TRY(check_shape_operand(t, in[t->check]));
  if (t->kind != DYN_APPROX_TOP_K) return t->po.kernel->run(ec, &t->po, in, out);
  /* Sort in full into scratch buffers, keep the leading part. */
  uint32_t n = t->n_in;
  shl_buf *full = calloc(n + 1, sizeof *full);
  shl_buf **fp = calloc(n + 1, sizeof *fp);
  shl_status st = full && fp ? NULL : st_oom();
  for (uint32_t i = 0; i < n && !st; i++) {
    buf_init(&full[i], in[i]->type, NULL);
    if (!(full[i].data = malloc(full[i].nbytes + 1))) st = st_oom();
    fp[i] = &full[i];
  }
  if (!st) st = t->po.kernel->run(ec, &t->po, in, fp);
  for (uint32_t i = 0; i < n && !st; i++) keep_prefix(&full[i], t->dim, out[i]);
  for (uint32_t i = 0; full && i < n; i++) free(full[i].data);
  free(full);
  free(fp);
  return st;
}
