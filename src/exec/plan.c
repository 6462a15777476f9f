/* The planner: walks a region once, gives every value a slot, materializes
 * constants, prepares each op's kernel, resolves values captured from
 * enclosing regions, and records slot lifetimes for the frame layout
 * (plan_frame.c). */
#include "plan.h"

#include "fuse.h"
#include "kernels/quant.h"
#include "plan_attrs.h"
#include "plan_frame.h"
#include "support/ptrmap.h"

void *plan_alloc(plan_ctx *pc, size_t n) { return arena_alloc(pc->arena, n); }
const shloc_module *plan_module(plan_ctx *pc) { return pc->m; }
const exec_config *plan_config(plan_ctx *pc) { return pc->cfg; }
uint32_t plan_num_results(const exec_plan *plan) { return plan->n_results; }

shl_status plan_state_new(plan_ctx *pc, void (*fn)(void *), uint32_t *id) {
  plan_kstate *k = plan_alloc(pc, sizeof *k);
  if (!k) return st_oom();
  *k = (plan_kstate){.fn = fn, .id = pc->n_kstates++, .next = pc->kstates};
  pc->kstates = k;
  *id = k->id;
  return NULL;
}

shl_status plan_on_release(plan_ctx *pc, void (*fn)(void *), void *arg) {
  plan_cleanup *c = plan_alloc(pc, sizeof *c);
  if (!c) return st_oom();
  *c = (plan_cleanup){fn, arg, pc->cleanups};
  pc->cleanups = c;
  return NULL;
}

static const shl_kernel *const kernel_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = &kernel_##ker,
#include "ir/ops.def"
#undef OP
};

/* Ops on quantized tensors run through the quantization kernels' dispatch. */
const shl_kernel *plan_kernel_of(const shl_op *op) {
  const shl_kernel *q = quant_kernel_for(op);
  return q ? q : kernel_table[op_id(op)];
}

/* value -> slot lookup while building: value->id holds slot+1 of the plan
 * recorded in a side map keyed by plan, so use a per-plan hash. */
typedef struct vmap {
  const shl_value **key;
  uint32_t *slot;
  size_t cap, len;
} vmap;

typedef struct builder {
  exec_plan *plan;
  struct builder *parent;
  vmap vals;
  plan_lives lives;
  uint32_t n_ops; /* ops planned so far */
} builder;

static bool vmap_put(plan_ctx *pc, vmap *m, const shl_value *v, uint32_t slot) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    const shl_value **nk = plan_alloc(pc, ncap * sizeof *nk);
    uint32_t *ns = plan_alloc(pc, ncap * sizeof *ns);
    if (!nk || !ns) return false;
    for (size_t i = 0; i < m->cap; i++)
      if (m->key[i]) {
        size_t j = ptrmap_hash(m->key[i]) & (ncap - 1);
        while (nk[j]) j = (j + 1) & (ncap - 1);
        nk[j] = m->key[i];
        ns[j] = m->slot[i];
      }
    m->key = nk;
    m->slot = ns;
    m->cap = ncap;
  }
  size_t j = ptrmap_hash(v) & (m->cap - 1);
  while (m->key[j] && m->key[j] != v) j = (j + 1) & (m->cap - 1);
  if (!m->key[j]) m->len++;
  m->key[j] = v;
  m->slot[j] = slot;
  return true;
}

static bool vmap_get(const vmap *m, const shl_value *v, uint32_t *slot) {
  if (!m->cap) return false;
  size_t j = ptrmap_hash(v) & (m->cap - 1);
  while (m->key[j]) {
    if (m->key[j] == v) {
      *slot = m->slot[j];
      return true;
    }
    j = (j + 1) & (m->cap - 1);
  }
  return false;
}

static exec_plan *new_plan(plan_ctx *pc, const shl_region *r) {
  exec_plan *p = plan_alloc(pc, sizeof *p);
  if (!p) return NULL;
  p->region = r;
  p->id = pc->n_plans++;
  p->next_all = pc->all;
  pc->all = p;
  return p;
}

/* The plan-arena array `a` of n items of sz bytes with room for one more:
 * `a` itself or a copy twice the size (the first one `first` items); NULL
 * when out of memory, with a and *cap unchanged. */
static void *grow(plan_ctx *pc, void *a, uint32_t n, uint32_t *cap, size_t sz, uint32_t first) {
  if (n < *cap) return a;
  uint32_t ncap = *cap ? *cap * 2 : first;
  void *na = plan_alloc(pc, (size_t)ncap * sz);
  if (!na) return NULL;
  if (n) memcpy(na, a, (size_t)n * sz);
  *cap = ncap;
  return na;
}

static shl_status new_slot(plan_ctx *pc, exec_plan *p, const shl_type *t, slot_kind k, uint32_t *out) {
  plan_slot *slots = grow(pc, p->slots, p->n_slots, &p->cap_slots, sizeof *slots, 32);
  if (!slots) return st_oom();
  p->slots = slots;
  p->slots[p->n_slots] = (plan_slot){.type = t, .kind = k};
  *out = p->n_slots++;
  return NULL;
}

/* Tuple values are flattened here: a value of tuple type gets one slot per
 * leaf (tensor or token, depth first), allocated consecutively, and maps to
 * its first leaf slot.  An op sees the leaves of its operands and results in
 * order (plan_op.n_in/n_out count leaves). */
uint32_t plan_leaf_count(const shl_type *t) {
  if (t->kind != TY_TUPLE) return 1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->n_in; i++) n += plan_leaf_count(t->in[i]);
  return n;
}

static shl_status new_value_slots(plan_ctx *pc, exec_plan *p, const shl_type *t, slot_kind k, uint32_t *first) {
  if (t->kind != TY_TUPLE) return new_slot(pc, p, t, k, first);
  *first = p->n_slots;
  for (uint32_t i = 0, s; i < t->n_in; i++) ST_TRY(new_value_slots(pc, p, t->in[i], k, &s));
  return NULL;
}

static shl_status resolve_full(plan_ctx *pc, builder *b, const shl_value *v, uint32_t *slot);

/* Resolves a value used in builder b, capturing it from enclosing plans.
 * A splat constant's slot may hold one element (fused groups only). */
static shl_status resolve(plan_ctx *pc, builder *b, const shl_value *v, uint32_t *slot) {
  if (vmap_get(&b->vals, v, slot)) return NULL;
  if (!b->parent) return st_error(SHLOC_ERR_VERIFY, NULL, NULL, "value used outside its scope");
  uint32_t ps;
  ST_TRY(resolve_full(pc, b->parent, v, &ps));
  exec_plan *p = b->plan;
  ST_TRY(new_value_slots(pc, p, v->type, SLOT_CAPTURE, slot));
  for (uint32_t k = 0; k < plan_leaf_count(v->type); k++) {
    plan_capture *caps = grow(pc, p->captures, p->n_captures, &p->cap_captures, sizeof *caps, 8);
    if (!caps) return st_oom();
    p->captures = caps;
    p->captures[p->n_captures++] = (plan_capture){ps + k, *slot + k};
  }
  if (!vmap_put(pc, &b->vals, v, *slot)) return st_oom();
  return NULL;
}

/* Only these kernels know that tuple operands and results arrive as leaves;
 * region arguments and results stay one buffer per value (callers of a
 * region count values). */
static shl_status check_tuples(const shl_op *op) {
  if (op_is(op, OP_TUPLE) || op_is(op, OP_GET_TUPLE_ELEMENT) || op_is(op, OP_CUSTOM_CALL) || op_is(op, OP_ASYNC_START) ||
      op_is(op, OP_ASYNC_DONE))
    return NULL;
  bool term = op->def->traits & T_TERM;
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (op->operands[i]->type->kind == TY_TUPLE)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "operand #%u is a tuple; the executor passes tuples only to "
                      "stablehlo.tuple, get_tuple_element and custom_call%s", i,
                      term ? " (not across region or function boundaries)" : "");
  for (uint32_t i = 0; i < op->n_results; i++)
    if (op->results[i].type->kind == TY_TUPLE)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "result #%u is a tuple; only stablehlo.tuple, get_tuple_element and "
                      "custom_call produce tuples in the executor", i);
  return NULL;
}

/* A constant's buffer: the attribute's own bytes when they are aligned for
 * the element type (kernels only read constant slots, and the module outlives
 * its executables), so a large constant is held once, not copied into the
 * plan; a misaligned value is copied into plan memory, and of a splat one
 * element (expand_splat makes the rest when a kernel needs them). */
static shl_status materialize(plan_ctx *pc, const shl_op *op, const shl_attr *v, void **out) {
  const shl_type *t = op->results[0].type;
  int64_t nbytes = type_num_bytes(t);
  if (nbytes < 0) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs a static shape to execute");
  if (!v || v->kind != AT_DENSE || !type_eq(v->type, t))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "value is not a dense elements attribute of the result type");
  size_t sz = dtype_bytes(type_storage_dtype(t));
  const void *src = nbytes ? attr_dense_data(v) : NULL;
  if (!v->u.dense.splat && src && (uintptr_t)src % (sz ? sz : 1) == 0) {
    *out = (void *)src;
    return NULL;
  }
  if (v->u.dense.splat && nbytes) nbytes = (int64_t)sz;
  uint8_t *d = plan_alloc(pc, (size_t)nbytes ? (size_t)nbytes : 1);
  if (!d) return st_oom();
  if (nbytes) memcpy(d, src, (size_t)nbytes);
  *out = d;
  return NULL;
}

/* Every element of splat constant slot s (JAX exports full-shape splats;
 * fused groups read them as scalars, so most never need this). */
static shl_status expand_splat(plan_ctx *pc, exec_plan *p, uint32_t s) {
  plan_slot *sl = &p->slots[s];
  if (sl->kind != SLOT_CONST || !sl->splat) return NULL;
  size_t nbytes = (size_t)type_num_bytes(sl->type), sz = dtype_bytes(type_storage_dtype(sl->type));
  uint8_t *d = plan_alloc(pc, nbytes ? nbytes : 1);
  if (!d) return st_oom();
  for (size_t i = 0; i + sz <= nbytes; i += sz) memcpy(d + i, sl->const_data, sz);
  sl->const_data = d;
  sl->splat = false;
  return NULL;
}

/* resolve, for a kernel that reads every element. */
static shl_status resolve_full(plan_ctx *pc, builder *b, const shl_value *v, uint32_t *slot) {
  ST_TRY(resolve(pc, b, v, slot));
  return expand_splat(pc, b->plan, *slot);
}

static shl_status build(plan_ctx *pc, builder *b, const shl_region *r);

static shl_status plan_nested(plan_ctx *pc, builder *parent, const shl_region *r, exec_plan **out) {
  exec_plan *p = new_plan(pc, r);
  if (!p) return st_oom();
  p->parent = parent->plan;
  builder b = {.plan = p, .parent = parent};
  ST_TRY(build(pc, &b, r));
  *out = p;
  return NULL;
}

static shl_status plan_args(plan_ctx *pc, builder *b, const shl_block *blk) {
  exec_plan *p = b->plan;
  p->n_args = blk->n_args;
  p->arg_slots = plan_alloc(pc, (blk->n_args + 1) * sizeof(uint32_t));
  if (!p->arg_slots) return st_oom();
  for (uint32_t i = 0; i < blk->n_args; i++) {
    if (blk->args[i].type->kind == TY_TUPLE)
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "block argument #%u is a tuple; the executor does not pass "
                      "tuples across region or function boundaries", i);
    ST_TRY(new_slot(pc, p, blk->args[i].type, SLOT_ARG, &p->arg_slots[i]));
    if (!vmap_put(pc, &b->vals, &blk->args[i], p->arg_slots[i])) return st_oom();
  }
  return NULL;
}

/* The terminator: the block's results, live past its last op. */
static shl_status plan_results(plan_ctx *pc, builder *b, const shl_op *op) {
  exec_plan *p = b->plan;
  p->n_results = op->n_operands;
  p->result_slots = plan_alloc(pc, (op->n_operands + 1) * sizeof(uint32_t));
  if (!p->result_slots) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) {
    ST_TRY(resolve_full(pc, b, op->operands[i], &p->result_slots[i]));
    if (!lives_use(&b->lives, p->result_slots[i], b->n_ops + 1)) return st_oom();
  }
  return NULL;
}

static shl_status plan_constant(plan_ctx *pc, builder *b, const shl_op *op) {
  uint32_t s;
  ST_TRY(new_slot(pc, b->plan, op->results[0].type, SLOT_CONST, &s));
  ST_TRY(materialize(pc, op, op_attr(op, "value"), &b->plan->slots[s].const_data));
  const shl_attr *v = op_attr(op, "value");
  b->plan->slots[s].splat = v->u.dense.splat && type_num_bytes(op->results[0].type) > 0;
  return vmap_put(pc, &b->vals, &op->results[0], s) ? NULL : st_oom();
}

/* Results alias their operands: later uses read the operand's slot, which
 * stays live as long as they need it. */
static shl_status plan_forward(plan_ctx *pc, builder *b, const shl_op *op) {
  for (uint32_t i = 0; i < op->n_results; i++) {
    uint32_t s;
    ST_TRY(resolve(pc, b, op->operands[i], &s));
    if (!vmap_put(pc, &b->vals, &op->results[i], s)) return st_oom();
  }
  return NULL;
}

/* A reshape of a value held in the frame or a constant (row-major, so the
 * same bytes): its result is a slot of the new type on the operand's
 * buffer, and nothing runs.  The frame layout keeps the buffer alive for
 * the view's uses (plan_slot.share).  Arguments and captured values are
 * bound per run, so their reshapes still copy.  *done = false: not a view. */
static shl_status plan_view(plan_ctx *pc, builder *b, const shl_op *op, bool *done) {
  exec_plan *p = b->plan;
  const shl_type *t = op->results[0].type;
  uint32_t s, v;
  *done = false;
  if (t->kind != TY_TENSOR || !type_is_static(t)) return NULL;
  ST_TRY(resolve(pc, b, op->operands[0], &s));
  plan_slot src = p->slots[s];
  if (src.kind != SLOT_FRAME && src.kind != SLOT_CONST) return NULL;
  if (!lives_use(&b->lives, s, b->n_ops)) return st_oom();
  ST_TRY(new_slot(pc, p, t, src.kind, &v));
  if (src.kind == SLOT_CONST) {
    p->slots[v].const_data = src.const_data;
    p->slots[v].splat = src.splat; /* a view of a splat is a splat */
  } else {
    p->slots[v].share = src.share ? src.share : s + 1;
    if (!lives_def(&b->lives, v, b->n_ops)) return st_oom();
  }
  *done = true;
  return vmap_put(pc, &b->vals, &op->results[0], v) ? NULL : st_oom();
}

/* A fused group (at its last member): inputs, outputs, no regions. */
static shl_status emit_fused(plan_ctx *pc, builder *b, plan_op *po, const fuse_site *site) {
  exec_plan *p = b->plan;
  uint32_t at = b->n_ops;
  po->kernel = &kernel_fused;
  po->params = site->params;
  po->n_in = site->n_in;
  po->n_out = site->n_out;
  po->in_slots = plan_alloc(pc, (site->n_in + 1) * sizeof(uint32_t));
  po->out_slots = plan_alloc(pc, (site->n_out + 1) * sizeof(uint32_t));
  if (!po->in_slots || !po->out_slots) return st_oom();
  for (uint32_t i = 0; i < site->n_in; i++) {
    ST_TRY(resolve(pc, b, site->in[i], &po->in_slots[i]));
    if (!lives_use(&b->lives, po->in_slots[i], at)) return st_oom();
  }
  for (uint32_t i = 0; i < site->n_out; i++) {
    ST_TRY(new_slot(pc, p, site->out[i]->type, SLOT_FRAME, &po->out_slots[i]));
    if (!lives_def(&b->lives, po->out_slots[i], at) || !vmap_put(pc, &b->vals, site->out[i], po->out_slots[i]))
      return st_oom();
  }
  return NULL;
}

/* An op's operands, one slot per leaf. */
static shl_status bind_operands(plan_ctx *pc, builder *b, const fuse_block *fb, plan_op *po) {
  const shl_op *op = po->op;
  for (uint32_t i = 0, j = 0; i < op->n_operands; i++) {
    uint32_t s;
    shl_status st = resolve_full(pc, b, fb ? fuse_operand(fb, op->operands[i]) : op->operands[i], &s);
    if (st) return st_at(st, &op->pos, op_name_cstr(op));
    for (uint32_t k = 0; k < plan_leaf_count(op->operands[i]->type); k++, j++) {
      po->in_slots[j] = s + k;
      if (!lives_use(&b->lives, po->in_slots[j], b->n_ops)) return st_oom();
    }
  }
  return NULL;
}

static shl_status plan_op_regions(plan_ctx *pc, builder *b, plan_op *po) {
  for (uint32_t r = 0; r < po->op->n_regions; r++) {
    exec_plan *sub = NULL;
    ST_TRY(plan_nested(pc, b, &po->op->regions[r], &sub));
    po->regions[r] = sub;
    /* Values the nested region captures stay alive until this op is done. */
    for (uint32_t c = 0; c < sub->n_captures; c++)
      if (!lives_use(&b->lives, sub->captures[c].parent_slot, b->n_ops)) return st_oom();
  }
  return NULL;
}

/* An op's results, new frame slots, one per leaf. */
static shl_status bind_results(plan_ctx *pc, builder *b, plan_op *po) {
  const shl_op *op = po->op;
  for (uint32_t i = 0, j = 0; i < op->n_results; i++) {
    if (!type_is_static(op->results[i].type) && op->results[i].type->kind == TY_TENSOR)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "result #%u has a dynamic shape; dynamic shapes are not executed yet", i);
    uint32_t s;
    ST_TRY(new_value_slots(pc, b->plan, op->results[i].type, SLOT_FRAME, &s));
    for (uint32_t k = 0; k < plan_leaf_count(op->results[i].type); k++, j++) {
      po->out_slots[j] = s + k;
      if (!lives_def(&b->lives, po->out_slots[j], b->n_ops)) return st_oom();
    }
    if (!vmap_put(pc, &b->vals, &op->results[i], s)) return st_oom();
  }
  return NULL;
}

/* An op run by its own kernel. */
static shl_status emit_op(plan_ctx *pc, builder *b, const fuse_block *fb, plan_op *po) {
  const shl_op *op = po->op;
  po->kernel = plan_kernel_of(op);
  po->n_in = po->n_out = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) po->n_in += plan_leaf_count(op->operands[i]->type);
  for (uint32_t i = 0; i < op->n_results; i++) po->n_out += plan_leaf_count(op->results[i].type);
  po->in_slots = plan_alloc(pc, (po->n_in + 1) * sizeof(uint32_t));
  po->out_slots = plan_alloc(pc, (po->n_out + 1) * sizeof(uint32_t));
  po->regions = plan_alloc(pc, (op->n_regions + 1) * sizeof(exec_plan *));
  if (!po->in_slots || !po->out_slots || !po->regions) return st_oom();
  if (!po->kernel->run) return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported by the executor");
  ST_TRY(bind_operands(pc, b, fb, po));
  ST_TRY(plan_op_regions(pc, b, po));
  ST_TRY(bind_results(pc, b, po));
  if (!po->kernel->prepare) return NULL;
  exec_plan *saved = pc->cur;
  pc->cur = b->plan;
  shl_status st = po->kernel->prepare(pc, op, &po->params);
  pc->cur = saved;
  return st ? st_at(st, &op->pos, op_name_cstr(op)) : NULL;
}

/* Op #pos of the block (every op counted, for the fusion analysis). */
static shl_status plan_one(plan_ctx *pc, builder *b, const fuse_block *fb, const shl_op *op, uint32_t pos) {
  ST_TRY(check_tuples(op));
  ST_TRY(plan_check_result_attrs(op));
  if (op->def->traits & T_TERM) return plan_results(pc, b, op);
  if (op_is(op, OP_CONSTANT) || op_is(op, OP_CHLO_CONSTANT) || op_is(op, OP_SDY_CONSTANT))
    return plan_constant(pc, b, op);
  const fuse_site *site = NULL;
  fuse_action act = fb ? fuse_action_at(fb, pos, &site) : FUSE_KEEP;
  if (act == FUSE_SKIP) return NULL;
  if (act == FUSE_KEEP && plan_forwards(op)) return plan_forward(pc, b, op);
  if (act == FUSE_KEEP && op_is(op, OP_RESHAPE)) {
    bool done;
    ST_TRY(plan_view(pc, b, op, &done));
    if (done) return NULL;
  }
  plan_op *po = &b->plan->ops[b->n_ops];
  po->op = op;
  ST_TRY(act == FUSE_EMIT ? emit_fused(pc, b, po, site) : emit_op(pc, b, fb, po));
  b->n_ops++;
  return NULL;
}

static shl_status build(plan_ctx *pc, builder *b, const shl_region *r) {
  exec_plan *p = b->plan;
  if (r->n_blocks != 1) return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "regions with %u blocks are not supported", r->n_blocks);
  const shl_block *blk = r->blocks[0];
  ST_TRY(plan_args(pc, b, blk));
  uint32_t n_ops = 0;
  for (const shl_op *op = blk->first; op; op = op->next) n_ops++;
  p->ops = plan_alloc(pc, (n_ops + 1) * sizeof *p->ops);
  if (!p->ops) return st_oom();
  fuse_block *fb = NULL;
  exec_plan *saved_cur = pc->cur;
  pc->cur = p;
  shl_status st = fuse_analyze(pc, blk, &fb);
  pc->cur = saved_cur;
  uint32_t pos = 0;
  for (const shl_op *op = blk->first; op && !st; op = op->next, pos++) {
    st = plan_one(pc, b, fb, op, pos);
    if (op->def->traits & T_TERM) break;
  }
  if (!st) {
    p->n_ops = b->n_ops;
    for (uint32_t i = 0; i < p->n_ops; i++) p->n_argv += p->ops[i].n_in + p->ops[i].n_out;
    st = plan_frame_layout(p, &b->lives);
  }
  fuse_free(fb);
  lives_free(&b->lives);
  return st;
}

shl_status plan_region(plan_ctx *pc, const shl_region *r, exec_plan **out) {
  exec_plan *p = new_plan(pc, r);
  if (!p) return st_oom();
  builder b = {.plan = p};
  ST_TRY(build(pc, &b, r));
  *out = p;
  return NULL;
}

shl_status plan_function(plan_ctx *pc, const shl_op *func, exec_plan **out) {
  shl_str name = func_sym_name(func);
  exec_plan *cached = strmap_get(&pc->funcs, name);
  if (cached) {
    *out = cached;
    return NULL;
  }
  if (!func_body(func)) return op_error(func, SHLOC_ERR_UNSUPPORTED, "is a declaration without a body");
  /* Insert before planning so that recursion finds it. */
  exec_plan *p = new_plan(pc, &func->regions[0]);
  if (!p) return st_oom();
  if (!strmap_put(&pc->funcs, name, p)) return st_oom();
  builder b = {.plan = p};
  ST_TRY(build(pc, &b, &func->regions[0]));
  *out = p;
  return NULL;
}
