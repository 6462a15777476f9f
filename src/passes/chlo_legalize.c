/* The CHLO decomposition pass: walk, dispatch, replace (chlo_legalize.h). */
#include "chlo_impl.h"
#include "support/ptrmap.h"

static bool is_chlo(const shl_op *op) { return op_id(op) >= OP_CHLO_ACOS && op_id(op) <= OP_CHLO_SCAN; }

static cl_rule rule_for(const shl_op *op) {
  shl_opid id = op_id(op);
  bool complex = op->n_operands && dtype_is_complex(op->operands[0]->type->dtype);
  switch (id) {
    case OP_CHLO_ASIN_ACOS_KERNEL: return cl_rule_complex;
    case OP_CHLO_ATAN:
    case OP_CHLO_ATANH: return complex ? cl_rule_complex : cl_rule_simple;
    case OP_CHLO_ASIN:
    case OP_CHLO_ACOS:
    case OP_CHLO_ACOSH:
    case OP_CHLO_ASINH: return complex ? cl_rule_complex : cl_rule_inverse_trig;
    case OP_CHLO_ERF:
    case OP_CHLO_ERFC:
    case OP_CHLO_ERF_INV: return cl_rule_erf;
    case OP_CHLO_LGAMMA:
    case OP_CHLO_DIGAMMA:
    case OP_CHLO_BESSEL_I1E: return cl_rule_gamma;
    case OP_CHLO_TOP_K: return cl_rule_top_k;
    case OP_CHLO_RAGGED_DOT: return cl_rule_ragged_dot;
    case OP_CHLO_SCAN: return cl_rule_scan;
    case OP_CHLO_ZETA:
    case OP_CHLO_POLYGAMMA: return cl_rule_zeta;
    default: return cl_rule_simple;
  }
}

static bool has_chlo_in(const shl_op *op) {
  if (is_chlo(op)) return true;
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
      for (const shl_op *o = op->regions[r].blocks[k]->first; o; o = o->next)
        if (has_chlo_in(o)) return true;
  return false;
}

bool pass_has_chlo(const shloc_module *m) { return m && m->top && has_chlo_in(m->top); }

typedef struct {
  shloc_module *m;
  shl_ptrmap repl; /* result of a removed CHLO op -> the value replacing it */
  size_t replaced;
  unsigned flags; /* PASS_CHLO_* */
} cl_pass;

static shl_status walk_block(cl_pass *p, shl_block *b);

enum { NEW_PENDING = 1, NEW_PLACED = 2 };

static bool place(shl_ptrmap *state, shl_block *b, shl_op *before, shl_value *v);

/* The values ops inside regions take from the enclosing block (a while's
 * loop bound) are placed before the op holding the regions. */
static bool place_captured(shl_ptrmap *state, shl_block *b, shl_op *before, const shl_op *op) {
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
      for (const shl_op *o = op->regions[r].blocks[k]->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_operands; i++)
          if (!place(state, b, before, o->operands[i])) return false;
        if (!place_captured(state, b, before, o)) return false;
      }
  return true;
}

/* Puts the op defining v (when it is a pending new op) after the ops
 * defining its operands, in operand order, then those its regions use. */
static bool place(shl_ptrmap *state, shl_block *b, shl_op *before, shl_value *v) {
  shl_op *d = v->def;
  if (!d || ptrmap_get(state, d) != (void *)NEW_PENDING) return true;
  if (!ptrmap_put(state, d, (void *)NEW_PLACED)) return false;
  for (uint32_t i = 0; i < d->n_operands; i++)
    if (!place(state, b, before, d->operands[i])) return false;
  if (!place_captured(state, b, before, d)) return false;
  block_insert_before(b, before, d);
  return true;
}

/* The rules emit ops in C's (unspecified) argument evaluation order; the
 * new ops are relinked depth-first from the results, operands in order, so
 * the output is the same whichever compiler built shloc (and ops nothing
 * uses are dropped). */
static shl_status order_new_ops(shl_arena *a, shl_block *b, shl_op *first, shl_op *op, shl_value **res) {
  shl_ptrmap state;
  ptrmap_init(&state, a);
  shl_op *next;
  for (shl_op *o = first; o != op; o = next) {
    next = o->next;
    if (!ptrmap_put(&state, o, (void *)NEW_PENDING)) return st_oom();
    block_remove(b, o);
  }
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!place(&state, b, op, res[i])) return st_oom();
  return NULL;
}

static shl_status replace(cl_pass *p, shl_block *b, shl_op *op) {
  cl_emit e = {.a = &p->m->arena, .b = b, .src = op, .before = op, .flags = p->flags};
  shl_value **res = ARENA_ARRAY(e.a, shl_value *, op->n_results + 1);
  if (!res) return st_oom();
  shl_op *prev = op->prev;
  cl_rule rule = rule_for(op);
  rule(&e, op, res);
  for (uint32_t i = 0; i < op->n_results && !e.st; i++) {
    if (!res[i]) e.st = st_oom();
    else if (!type_eq(res[i]->type, op->results[i].type))
      e.st = op_error(op, SHLOC_ERR_UNSUPPORTED, "decomposition produced a result of another type");
  }
  if (e.st && (p->flags & PASS_CHLO_KEEP_UNCOVERED) && shloc_status_code(e.st) == SHLOC_ERR_UNSUPPORTED &&
      rule != cl_rule_scan && rule != cl_rule_ragged_dot) {
    /* The new ops only use each other and the op's operands: drop them. */
    shl_op *next;
    for (shl_op *o = prev ? prev->next : b->first; o != op; o = next) {
      next = o->next;
      block_remove(b, o);
    }
    shloc_status_free(e.st);
    return NULL;
  }
  for (uint32_t i = 0; i < op->n_results && !e.st; i++)
    if (!ptrmap_put(&p->repl, &op->results[i], res[i])) e.st = st_oom();
  if (e.st) return e.st;
  ST_TRY(order_new_ops(e.a, b, prev ? prev->next : b->first, op, res));
  block_remove(b, op);
  p->replaced++;
  return NULL;
}

/* Ops are visited in order, so a CHLO result is mapped before any use of it
 * (in this block or in a nested region) is reached. */
static shl_status walk_block(cl_pass *p, shl_block *b) {
  shl_op *next;
  for (shl_op *op = b->first; op; op = next) {
    next = op->next;
    for (uint32_t i = 0; i < op->n_operands; i++) {
      shl_value *v = ptrmap_get(&p->repl, op->operands[i]);
      if (v) op->operands[i] = v;
    }
    /* Regions first: a scan's body (with its CHLO ops decomposed) is moved
     * into the while replacing the scan. */
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++) ST_TRY(walk_block(p, op->regions[r].blocks[k]));
    if (is_chlo(op)) ST_TRY(replace(p, b, op));
  }
  return NULL;
}

shl_status pass_legalize_chlo(shloc_module *m, unsigned flags, size_t *replaced) {
  if (replaced) *replaced = 0;
  if (!m || !m->top) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no module");
  cl_pass p = {.m = m, .flags = flags};
  ptrmap_init(&p.repl, &m->arena);
  for (uint32_t r = 0; r < m->top->n_regions; r++)
    for (uint32_t k = 0; k < m->top->regions[r].n_blocks; k++) ST_TRY(walk_block(&p, m->top->regions[r].blocks[k]));
  if (replaced) *replaced = p.replaced;
  return p.replaced ? shloc_module_verify(m) : NULL;
}
