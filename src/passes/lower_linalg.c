/* StableHLO -> upstream MLIR text: module, functions, calls, constants and
 * control flow; the op families live in lower_linalg_{ew,shape,dot}.c. */
#include "passes/lower_linalg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/chlo_legalize.h"
#include "passes/lower_custom_calls.h"
#include "passes/lower_linalg_emit.h"

uint32_t ll_fresh(ll_emit *e) { return e->next_id++; }

void ll_tmp(ll_emit *e, uint32_t id) {
  pr_puts(&e->pr, "%v");
  pr_uint(&e->pr, id);
}

static uint32_t value_num(ll_emit *e, const shl_value *v) {
  shl_value *mv = (shl_value *)v; /* the id field is the pass's scratch */
  if (!mv->id) mv->id = ll_fresh(e) + 1;
  return mv->id - 1;
}

void ll_val(ll_emit *e, const shl_value *v) {
  if (v->id & LL_DIRECT) {
    ll_tmp(e, (v->id & ~LL_DIRECT) - 1);
    return;
  }
  if (v->def && v->def->n_results > 1) {
    ll_tmp(e, value_num(e, &v->def->results[0]));
    pr_printf(&e->pr, "#%u", (unsigned)v->index);
    return;
  }
  ll_tmp(e, value_num(e, v));
}

void ll_results(ll_emit *e, const shl_op *op) {
  if (!op->n_results) return;
  ll_tmp(e, value_num(e, &op->results[0]));
  if (op->n_results > 1) pr_printf(&e->pr, ":%u", (unsigned)op->n_results);
  pr_puts(&e->pr, " = ");
}

const char *ll_dtype(shl_dtype dt) {
  static const char *const ints[] = {"i8", "i8", "i16", "i32", "i64"};
  switch (dtype_class(dt)) {
  case DTC_SINT:
  case DTC_UINT:
    if (dt == DT_INDEX) return "i64";
    return ints[dtype_bits(dt) <= 8 ? 0 : dtype_bits(dt) == 16 ? 2 : dtype_bits(dt) == 32 ? 3 : 4];
  case DTC_FLOAT:
    if (dtype_bits(dt) <= 8) return "i8";
    if (dt == DT_TF32) return "i32";
    return dtype_name(dt);
  default: return dtype_name(dt);
  }
}

bool ll_native_dtype(shl_dtype dt) {
  switch (dtype_class(dt)) {
  case DTC_BOOL: return true;
  case DTC_SINT:
  case DTC_UINT: return dtype_bits(dt) >= 8 && dt != DT_INDEX;
  case DTC_FLOAT: return dt == DT_F16 || dt == DT_BF16 || dt == DT_F32 || dt == DT_F64;
  default: return false;
  }
}

void ll_elem(ll_emit *e, shl_dtype dt) { pr_puts(&e->pr, ll_dtype(dt)); }

static void shaped_type(ll_emit *e, const char *kind, const shl_type *t) {
  pr_puts(&e->pr, kind);
  pr_puts(&e->pr, "<");
  for (int i = 0; i < t->rank; i++) pr_printf(&e->pr, "%lldx", (long long)t->dims[i]);
  ll_elem(e, type_storage_dtype(t));
  pr_puts(&e->pr, ">");
}

void ll_type(ll_emit *e, const shl_type *t) { shaped_type(e, "tensor", t); }
void ll_memref_type(ll_emit *e, const shl_type *t) { shaped_type(e, "memref", t); }

static void map_domain(ll_emit *e, int rank) {
  pr_puts(&e->pr, "affine_map<(");
  for (int i = 0; i < rank; i++) pr_printf(&e->pr, "%sd%d", i ? ", " : "", i);
  pr_puts(&e->pr, ") -> (");
}

void ll_map(ll_emit *e, int rank, const int64_t *dims, int n) {
  map_domain(e, rank);
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0) pr_printf(&e->pr, "%s0", i ? ", " : "");
    else pr_printf(&e->pr, "%sd%d", i ? ", " : "", (int)dims[i]);
  }
  pr_puts(&e->pr, ")>");
}

void ll_identity_map(ll_emit *e, int rank) {
  map_domain(e, rank);
  for (int i = 0; i < rank; i++) pr_printf(&e->pr, "%sd%d", i ? ", " : "", i);
  pr_puts(&e->pr, ")>");
}

void ll_iterators(ll_emit *e, int rank, const bool *reduction) {
  pr_puts(&e->pr, "iterator_types = [");
  for (int i = 0; i < rank; i++)
    pr_printf(&e->pr, "%s\"%s\"", i ? ", " : "", reduction && reduction[i] ? "reduction" : "parallel");
  pr_puts(&e->pr, "]");
}

uint32_t ll_empty(ll_emit *e, const shl_type *t) {
  uint32_t id = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, id);
  pr_puts(&e->pr, " = tensor.empty() : ");
  ll_type(e, t);
  return id;
}

void ll_generic_outs_open(ll_emit *e, const shl_op *op, const shl_type *rt, const char *et) {
  uint32_t empty = ll_empty(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  ll_identity_map(e, rt->rank);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, rt->rank, NULL);
  pr_puts(&e->pr, "} outs(");
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, ll_fresh(e));
  pr_printf(&e->pr, ": %s):", et);
}


/* Work (elements computed) from which an op is split across threads: below,
 * waking the threads costs more than it saves. */
#define LL_PARALLEL_MIN ((int64_t)1 << 17)
/* Tiles per parallel op: enough for an even share on a few cores. */
#define LL_PARALLEL_TILES 64

void ll_parallel(ll_emit *e, const int64_t *dims, int rank, const char *et, int64_t work) {
  if (!e->parallel || rank < 1 || dims[0] < 2 || work < LL_PARALLEL_MIN) return;
  char type[64 * 21 + 32];
  size_t n = (size_t)snprintf(type, sizeof type, "tensor<");
  for (int k = 0; k < rank && n < sizeof type; k++) n += (size_t)snprintf(type + n, sizeof type - n, "%lldx", (long long)dims[k]);
  if (n >= sizeof type || (size_t)snprintf(type + n, sizeof type - n, "%s>", et) >= sizeof type - n) return;
  /* One step per type (fused ops keep their consumer's result type). */
  char key[sizeof type + 32];
  snprintf(key, sizeof key, "filter_result_type = %s in", type);
  if (e->sched.buf && strstr(e->sched.buf, key)) return;
  int64_t tiles = dims[0] < LL_PARALLEL_TILES ? dims[0] : LL_PARALLEL_TILES;
  int64_t tile = (dims[0] + tiles - 1) / tiles;
  uint32_t k = e->n_sched++;
  pr_printf(&e->sched,
            "\n    %%m%u = transform.structured.match ops{[\"linalg.generic\", \"linalg.transpose\"]} %s %%root"
            " : (!transform.any_op) -> !transform.any_op"
            "\n    transform.foreach %%m%u : !transform.any_op {"
            "\n    ^bb0(%%op: !transform.any_op):"
            "\n      %%t, %%f = transform.structured.tile_using_forall %%op tile_sizes [%lld]"
            " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"
            "\n    }",
            k, key, k, (long long)tile);
}

void ll_parallel_type(ll_emit *e, const shl_type *t) {
  if (t->kind == TY_TENSOR && type_is_static(t) && ll_native_dtype(t->dtype))
    ll_parallel(e, t->dims, t->rank, ll_dtype(t->dtype), type_num_elements(t));
}

shl_status ll_refuse(const shl_op *op, const char *why) {
  return op_error(op, SHLOC_ERR_UNSUPPORTED, "cannot be lowered to linalg yet: %s", why);
}

static bool type_ok(const shl_type *t) { return t->kind == TY_TENSOR && type_is_static(t); }

static bool type_native(const shl_type *t) {
  shl_dtype d = t->dtype;
  return type_ok(t) &&
         (ll_native_dtype(d) || d == DT_C64 || d == DT_C128 || ll_narrow_float(d) || ll_sub_byte_int(d));
}

shl_status ll_check_types(const shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_native(op->operands[i]->type)) return ll_refuse(op, "element type without a native pattern");
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_native(op->results[i].type)) return ll_refuse(op, "element type without a native pattern");
  return NULL;
}

/* Ops that depend on other devices, the host or tokens: never called out. */
static bool callout_allowed(const shl_op *op) {
  switch (op_id(op)) {
  case OP_ALL_GATHER: case OP_ALL_REDUCE: case OP_ALL_TO_ALL: case OP_REDUCE_SCATTER:
  case OP_COLLECTIVE_BROADCAST: case OP_COLLECTIVE_PERMUTE: case OP_COLLECTIVE_REDUCE:
  case OP_REPLICA_ID: case OP_PARTITION_ID: case OP_INFEED: case OP_OUTFEED: case OP_SEND: case OP_RECV:
  case OP_AFTER_ALL: case OP_CREATE_TOKEN: case OP_ASYNC_START: case OP_ASYNC_DONE:
  case OP_CUSTOM_CALL: case OP_INTERPRETER_RUN_PARALLEL:
    return false;
  default: break;
  }
  if (op->def->traits & T_TERM) return false;
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_ok(op->operands[i]->type)) return false;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_ok(op->results[i].type)) return false;
  return true;
}

static void type_list(ll_emit *e, uint32_t n, const shl_type *const *ts) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, ts[i]);
  }
}

static void value_types(ll_emit *e, shl_value *const *vs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, vs[i]->type);
  }
}

static void value_list(ll_emit *e, shl_value *const *vs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, vs[i]);
  }
}

static void result_types(ll_emit *e, const shl_op *op) {
  for (uint32_t i = 0; i < op->n_results; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, op->results[i].type);
  }
}

typedef enum { TERM_FUNC, TERM_YIELD, TERM_CONDITION } term_kind;

static shl_status emit_block(ll_emit *e, const shl_block *b, term_kind term);

static shl_status emit_terminator(ll_emit *e, const shl_op *op, term_kind term) {
  pr_newline(&e->pr);
  if (term == TERM_CONDITION) {
    if (op->n_operands != 1) return ll_refuse(op, "a while condition must return one value");
    uint32_t c = ll_fresh(e);
    ll_tmp(e, c);
    pr_puts(&e->pr, " = tensor.extract ");
    ll_val(e, op->operands[0]);
    pr_puts(&e->pr, "[] : tensor<i1>");
    return NULL; /* the caller prints scf.condition with the loop's arguments */
  }
  pr_puts(&e->pr, term == TERM_FUNC ? "func.return" : "scf.yield");
  if (op->n_operands) {
    pr_puts(&e->pr, " ");
    value_list(e, op->operands, op->n_operands);
    pr_puts(&e->pr, " : ");
    value_types(e, op->operands, op->n_operands);
  }
  return NULL;
}

static shl_status emit_region_body(ll_emit *e, const shl_region *r, term_kind term) {
  if (r->n_blocks != 1) return ll_refuse(r->parent, "regions with several blocks are not covered");
  return emit_block(e, r->blocks[0], term);
}

/* scf.while: the condition region ends in scf.condition over its own
 * arguments, the body region in scf.yield. */
static shl_status emit_while(ll_emit *e, const shl_op *op) {
  const shl_block *cb = op->regions[0].n_blocks == 1 ? op->regions[0].blocks[0] : NULL;
  const shl_block *bb = op->regions[1].n_blocks == 1 ? op->regions[1].blocks[0] : NULL;
  if (!cb || !bb) return ll_refuse(op, "regions with several blocks are not covered");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "scf.while (");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, &cb->args[i]);
    pr_puts(&e->pr, " = ");
    ll_val(e, op->operands[i]);
  }
  pr_puts(&e->pr, ") : (");
  value_types(e, op->operands, op->n_operands);
  pr_puts(&e->pr, ") -> (");
  result_types(e, op);
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  ST_TRY(emit_block(e, cb, TERM_CONDITION));
  uint32_t cond = e->next_id - 1; /* the extract emitted by the terminator */
  pr_newline(&e->pr);
  pr_puts(&e->pr, "scf.condition(");
  ll_tmp(e, cond);
  pr_puts(&e->pr, ") ");
  for (uint32_t i = 0; i < cb->n_args; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, &cb->args[i]);
  }
  pr_puts(&e->pr, " : ");
  result_types(e, op);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} do {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  for (uint32_t i = 0; i < bb->n_args; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, &bb->args[i]);
    pr_puts(&e->pr, ": ");
    ll_type(e, bb->args[i].type);
  }
  pr_puts(&e->pr, "):");
  e->pr.indent += 1;
  ST_TRY(emit_block(e, bb, TERM_YIELD));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  return NULL;
}

/* scf.if on the extracted i1 predicate. */
static shl_status emit_if(ll_emit *e, const shl_op *op) {
  uint32_t c = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, c);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, "[] : tensor<i1>");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "scf.if ");
  ll_tmp(e, c);
  if (op->n_results) {
    pr_puts(&e->pr, " -> (");
    result_types(e, op);
    pr_puts(&e->pr, ")");
  }
  pr_puts(&e->pr, " {");
  e->pr.indent += 1;
  ST_TRY(emit_region_body(e, &op->regions[0], TERM_YIELD));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} else {");
  e->pr.indent += 1;
  ST_TRY(emit_region_body(e, &op->regions[1], TERM_YIELD));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  return NULL;
}

/* scf.index_switch: an index outside [0, n-1) takes the last branch, as the
 * spec says, which is the switch's default. */
static shl_status emit_case(ll_emit *e, const shl_op *op) {
  uint32_t c = ll_fresh(e), idx = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, c);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, "[] : tensor<i32>");
  pr_newline(&e->pr);
  ll_tmp(e, idx);
  pr_puts(&e->pr, " = arith.index_cast ");
  ll_tmp(e, c);
  pr_puts(&e->pr, " : i32 to index");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "scf.index_switch ");
  ll_tmp(e, idx);
  if (op->n_results) {
    pr_puts(&e->pr, " -> ");
    result_types(e, op);
  }
  for (uint32_t i = 0; i < op->n_regions; i++) {
    pr_newline(&e->pr);
    if (i + 1 < op->n_regions) pr_printf(&e->pr, "case %u {", (unsigned)i);
    else pr_puts(&e->pr, "default {");
    e->pr.indent += 1;
    ST_TRY(emit_region_body(e, &op->regions[i], TERM_YIELD));
    e->pr.indent -= 1;
    pr_newline(&e->pr);
    pr_puts(&e->pr, "}");
  }
  return NULL;
}

static shl_status emit_constant(ll_emit *e, const shl_op *op) {
  const shl_attr *v = op_attr(op, "value");
  if (!v || v->kind != AT_DENSE) return ll_refuse(op, "only dense constants are covered");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "arith.constant ");
  shl_dtype dt = op->results[0].type->dtype;
  if (ll_narrow_float(dt) || ll_sub_byte_int(dt)) {
    /* the storage bytes (bit patterns; sub-byte integers extended) */
    const uint8_t *d = attr_dense_data(v);
    if (!d) return st_oom();
    pr_puts(&e->pr, "dense<\"0x");
    for (size_t i = 0; i < v->u.dense.nbytes; i++) pr_printf(&e->pr, "%02X", (unsigned)d[i]);
    pr_puts(&e->pr, "\">");
  } else {
    pr_dense_literal(&e->pr, v);
  }
  pr_puts(&e->pr, " : ");
  ll_type(e, op->results[0].type);
  return NULL;
}

/* True when the module defines (not just declares) function `name`. */
static bool is_defined(const ll_emit *e, shl_str name) {
  for (const shl_op *f = e->top->first; f; f = f->next)
    if (op_is(f, OP_FUNC) && func_body(f) && str_eq(func_sym_name(f), name)) return true;
  return false;
}

/* @name, with the function prefix for defined functions. */
static void func_symbol(ll_emit *e, shl_str name) {
  if (*e->func_prefix && is_defined(e, name)) {
    char *joined = NULL;
    size_t n = strlen(e->func_prefix);
    if ((joined = malloc(n + name.n))) {
      memcpy(joined, e->func_prefix, n);
      memcpy(joined + n, name.p, name.n);
      pr_symbol_name(&e->pr, (shl_str){joined, n + name.n});
      free(joined);
      return;
    }
    e->pr.oom = true;
  }
  pr_symbol_name(&e->pr, name);
}

/* func.call, or a composite as a call of its decomposition. */
static shl_status emit_call(ll_emit *e, const shl_op *op) {
  const shl_attr *callee = op_attr(op, op_is(op, OP_COMPOSITE) ? "decomposition" : "callee");
  if (!callee || callee->kind != AT_SYMREF) return ll_refuse(op, "a call needs a callee");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "func.call ");
  func_symbol(e, callee->u.sym.root);
  pr_puts(&e->pr, "(");
  value_list(e, op->operands, op->n_operands);
  pr_puts(&e->pr, ") : (");
  value_types(e, op->operands, op->n_operands);
  pr_puts(&e->pr, ") -> (");
  result_types(e, op);
  pr_puts(&e->pr, ")");
  return NULL;
}

/* Native patterns; SHLOC_ERR_UNSUPPORTED when there is none for this op
 * with these types (the caller then calls the op out). */
static shl_status emit_native(ll_emit *e, const shl_op *op) {
  bool handled = false;
  shl_status st = ll_shape_op(e, op, &handled);
  if (st || handled) return st;
  ST_TRY(ll_check_types(op));
  if (op_is(op, OP_CONSTANT)) return emit_constant(e, op);
  if (ll_is_elementwise(op)) return ll_elementwise(e, op);
  if (op_is(op, OP_DOT_GENERAL)) return ll_dot_general(e, op);
  if (op_is(op, OP_REDUCE)) return ll_reduce(e, op);
  if (op_is(op, OP_MAP)) return ll_map_op(e, op);
  return ll_refuse(op, "no lowering for this op");
}

shl_status ll_emit_native(ll_emit *e, const shl_op *op) { return emit_native(e, op); }

/* The tensor a tuple value holds at `index`, when the tuple is built in
 * this function (tuple ops, possibly nested and taken apart again). */
static const shl_value *tuple_element(const shl_value *t, int64_t index) {
  const shl_op *d = t->def;
  if (!d) return NULL;
  if (op_is(d, OP_TUPLE)) return index >= 0 && index < d->n_operands ? d->operands[index] : NULL;
  int64_t inner;
  if (op_is(d, OP_GET_TUPLE_ELEMENT) && attr_as_int(op_attr(d, "index"), &inner)) {
    const shl_value *v = tuple_element(d->operands[0], inner);
    return v ? tuple_element(v, index) : NULL;
  }
  return NULL;
}

/* Tuples vanish: get_tuple_element of a tuple built here is a cast of the
 * element (a tuple-typed result emits nothing; its uses are resolved). */
static shl_status emit_tuple_op(ll_emit *e, const shl_op *op) {
  if (op_is(op, OP_TUPLE) || op->results[0].type->kind == TY_TUPLE) return NULL;
  int64_t index;
  const shl_value *v = attr_as_int(op_attr(op, "index"), &index) ? tuple_element(op->operands[0], index) : NULL;
  if (!v) return ll_refuse(op, "only tuples built in the same function are covered");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "tensor.cast ");
  ll_val(e, v);
  pr_puts(&e->pr, " : ");
  ll_type(e, v->type);
  pr_puts(&e->pr, " to ");
  ll_type(e, op->results[0].type);
  return NULL;
}

static shl_status emit_op(ll_emit *e, const shl_op *op) {
  if (!op_is(op, OP_TUPLE) && !op_is(op, OP_GET_TUPLE_ELEMENT)) {
    for (uint32_t i = 0; i < op->n_operands; i++)
      if (!type_ok(op->operands[i]->type)) return ll_refuse(op, "only static tensors are covered");
    for (uint32_t i = 0; i < op->n_results; i++)
      if (!type_ok(op->results[i].type)) return ll_refuse(op, "only static tensors are covered");
  }
  switch (op_id(op)) {
  case OP_WHILE: return emit_while(e, op);
  case OP_IF: return emit_if(e, op);
  case OP_CASE: return emit_case(e, op);
  case OP_FUNC_CALL:
  case OP_COMPOSITE: return emit_call(e, op);
  case OP_TUPLE:
  case OP_GET_TUPLE_ELEMENT: return emit_tuple_op(e, op);
  default: break;
  }
  if (ll_is_check(op)) return ll_check(e, op);
  if (!callout_allowed(op)) return ll_refuse(op, "it needs other devices, the host or tokens");
  /* A native pattern may stop half-way: its text and numbers are rolled back. */
  size_t len = e->pr.len;
  uint32_t next = e->next_id;
  shl_status st = emit_native(e, op);
  if (!st || shloc_status_code(st) != SHLOC_ERR_UNSUPPORTED) return st;
  shloc_status_free(st);
  e->pr.len = len;
  e->next_id = next;
  return ll_callout(e, op);
}

static shl_status emit_block(ll_emit *e, const shl_block *b, term_kind term) {
  for (const shl_op *op = b->first; op; op = op->next) {
    if (op->def->traits & T_TERM) {
      if (op->next) return ll_refuse(op, "a terminator must end its block");
      return emit_terminator(e, op, term);
    }
    ST_TRY(emit_op(e, op));
  }
  return NULL;
}

static void arg_attrs(ll_emit *e, const shl_op *f, uint32_t i) {
  const shl_attr *aa = op_attr(f, "arg_attrs");
  if (!aa || aa->kind != AT_ARRAY || i >= aa->u.arr.n) return;
  const shl_attr *d = aa->u.arr.items[i];
  if (d->kind != AT_DICT || !d->u.dict.n) return;
  pr_puts(&e->pr, " ");
  pr_attr(&e->pr, d);
}

static shl_status emit_func(ll_emit *e, const shl_op *f) {
  const shl_type *ft = func_type(f);
  shl_block *body = func_body(f);
  if (!ft || ft->kind != TY_FUNCTION) return ll_refuse(f, "a function needs a type");
  for (uint32_t i = 0; i < ft->n_in; i++)
    if (!type_ok(ft->in[i])) return ll_refuse(f, "only static tensors are covered");
  for (uint32_t i = 0; i < ft->n_out; i++)
    if (!type_ok(ft->out[i])) return ll_refuse(f, "only static tensors are covered");
  const shl_attr *vis = op_attr(f, "sym_visibility");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "func.func ");
  if (vis && vis->kind == AT_STRING) {
    pr_str(&e->pr, vis->u.str);
    pr_puts(&e->pr, " ");
  }
  func_symbol(e, func_sym_name(f));
  pr_puts(&e->pr, "(");
  for (uint32_t i = 0; i < ft->n_in; i++) {
    if (i) pr_puts(&e->pr, ", ");
    if (body) {
      ll_val(e, &body->args[i]);
      pr_puts(&e->pr, ": ");
    }
    ll_type(e, ft->in[i]);
    arg_attrs(e, f, i);
  }
  pr_puts(&e->pr, ") -> (");
  type_list(e, ft->n_out, ft->out);
  pr_puts(&e->pr, ")");
  const shl_attr *cc = op_attr(f, PASS_CUSTOM_CALL_ATTR);
  /* Every function gets upstream's C interface (_mlir_ciface_NAME over
   * memref descriptors): defined ones for their callers in C, declarations
   * because the shim and libshloc's runtime implement that interface. */
  pr_puts(&e->pr, " attributes {llvm.emit_c_interface");
  if (cc) {
    pr_puts(&e->pr, ", " PASS_CUSTOM_CALL_ATTR " = ");
    pr_attr(&e->pr, cc);
  }
  pr_puts(&e->pr, "}");
  if (!body) return NULL;
  pr_puts(&e->pr, " {");
  e->pr.indent += 1;
  ST_TRY(emit_block(e, body, TERM_FUNC));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  return NULL;
}

/* Every custom call but the checks becomes a call of an external function;
 * checks are lowered to the check runtime by ll_check. */
static shl_status collect_targets(shl_arena *a, const shl_region *r, const char ***v, size_t *n, size_t *cap) {
  for (uint32_t bi = 0; bi < r->n_blocks; bi++)
    for (const shl_op *op = r->blocks[bi]->first; op; op = op->next) {
      const shl_attr *t = op_is(op, OP_CUSTOM_CALL) ? op_attr(op, "call_target_name") : NULL;
      if (t && t->kind == AT_STRING && !ll_is_check_target(t->u.str)) {
        if (*n == *cap) {
          size_t ncap = *cap ? *cap * 2 : 8;
          const char **nv = realloc(*v, ncap * sizeof *nv);
          if (!nv) return st_oom();
          *v = nv;
          *cap = ncap;
        }
        char *name = arena_alloc(a, t->u.str.n + 1);
        if (!name) return st_oom();
        memcpy(name, t->u.str.p, t->u.str.n);
        name[t->u.str.n] = '\0';
        (*v)[(*n)++] = name;
      }
      for (uint32_t k = 0; k < op->n_regions; k++) ST_TRY(collect_targets(a, &op->regions[k], v, n, cap));
    }
  return NULL;
}

static shl_status lower_custom_calls_but_checks(shloc_module *m) {
  const char **targets = NULL;
  size_t n = 0, cap = 0;
  static const char *const none[] = {""}; /* a non-NULL empty list selects no target */
  shl_status st = collect_targets(&m->arena, &m->top->regions[0], &targets, &n, &cap);
  pass_lcc_options o = {targets ? targets : none, n};
  if (!st) st = pass_lower_custom_calls(m, &o);
  free(targets);
  return st;
}

shl_status pass_lower_linalg(shloc_module *m, char **out, size_t *out_len) {
  return pass_lower_linalg_with(m, NULL, out, out_len);
}

shl_status pass_lower_linalg_with(shloc_module *m, const pass_lower_linalg_options *opts, char **out,
                                  size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  ST_TRY(lower_custom_calls_but_checks(m));
  /* CHLO ops compile as their StableHLO decompositions (upstream's formulas,
   * what a portable artifact holds); an op whose types no formula covers
   * stays and is called out. */
  if (pass_has_chlo(m)) ST_TRY(pass_legalize_chlo(m, PASS_CHLO_KEEP_UNCOVERED, NULL));
  ll_emit e = {.top = m->top->regions[0].blocks[0],
               .func_prefix = opts && opts->func_prefix ? opts->func_prefix : "",
               .parallel = opts && opts->schedule};
  if (e.parallel) *opts->schedule = NULL;
  e.globals.indent = 1;
  pr_puts(&e.pr, "module {");
  e.pr.indent = 1;
  shl_status st = NULL;
  for (const shl_op *op = m->top->regions[0].blocks[0]->first; op && !st; op = op->next) {
    if (op_is(op, OP_FUNC)) st = emit_func(&e, op);
    else st = ll_refuse(op, "only func.func is covered at module level");
  }
  if (e.n_sites) pr_putn(&e.pr, e.globals.buf, e.globals.len); /* already indented by one */
  ll_check_declarations(&e);
  ll_blas_declarations(&e);
  ll_libm_declarations(&e);
  ll_complex_declarations(&e);
  e.pr.indent = 0;
  pr_newline(&e.pr);
  pr_puts(&e.pr, "}\n");
  if (!st && e.n_sched)
    pr_puts(&e.sched, "\n    transform.yield\n  }\n}\n");
  if (!st && (e.pr.oom || e.globals.oom || e.sched.oom)) st = st_oom();
  free(e.globals.buf);
  if (st) {
    free(e.pr.buf);
    free(e.sched.buf);
    return st;
  }
  if (e.n_sched) {
    /* The steps were written without their module: prepend it. */
    shl_printer sc = {0};
    pr_puts(&sc, "// Tiling schedule of `shloc compile` (transform dialect): large elementwise,\n"
                 "// transpose and split-reduction ops become scf.forall loops, run by OpenMP threads.\n"
                 "module attributes {transform.with_named_sequence} {\n"
                 "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {");
    pr_putn(&sc, e.sched.buf, e.sched.len);
    free(e.sched.buf);
    if (sc.oom) {
      free(sc.buf);
      free(e.pr.buf);
      return st_oom();
    }
    *opts->schedule = sc.buf;
  }
  *out = e.pr.buf;
  *out_len = e.pr.len;
  return NULL;
}

int64_t ll_parallel_rows(const ll_emit *e, int64_t rows, int64_t work) {
  if (!e->parallel || rows < 2 || work < LL_PARALLEL_MIN) return 0;
  int64_t tiles = rows < LL_PARALLEL_TILES ? rows : LL_PARALLEL_TILES;
  return (rows + tiles - 1) / tiles;
}
