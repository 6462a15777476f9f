/* Register programs for fused groups (see fuse.h): a group whose members
 * are all f32 ops with vector forms, reading f32 leaves in one pass, is
 * compiled to an ew_prog.  Its values then stay in registers a few vectors
 * at a time instead of passing through a scratch tile per op and chunk.
 *
 * Nodes are emitted in order, each computing into the accumulator: its
 * operand already there, else one fetched (from a source or a scratch
 * register); the accumulator's value is put into a register first when a
 * later node (or this one's other operand) reads it. */
#include <stdlib.h>

#include "fuse.h"

static bool prog_eligible(const fused_params *fp) {
  if (fp->rows != 1 || fp->n_passes != 1 || fp->n_out > FUSE_PROG_MAX_IO) return false;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    if (nd->kind == FN_REDUCE) return false;
    if (nd->kind == FN_EW && nd->code == EWP_NONE) return false;
    if (nd->kind == FN_LEAF &&
        (nd->dt != DT_F32 || (nd->loc != LOC_EXT && nd->loc != LOC_SCALAR && nd->loc != LOC_FILL)))
      return false;
  }
  return true;
}

enum { NONE = -1 };

typedef struct {
  fused_params *fp;
  const uint32_t *last; /* per node: its last reader, UINT32_MAX if none */
  int *reg;             /* per node: its register (constants, put values), or NONE */
  int *src;             /* per leaf: its source index, or NONE */
  bool used[EWP_MAX_REGS];
  ew_prog_ins *ins;
  uint32_t n_ins;
  bool ok;
} emitter;

static void emit(emitter *e, uint8_t code, uint8_t flags, int a, int dst) {
  e->ins[e->n_ins++] = (ew_prog_ins){code, flags, (uint8_t)a, (uint8_t)dst};
}

static int reg_take(emitter *e) {
  for (int r = 0; r < EWP_MAX_REGS; r++)
    if (!e->used[r]) {
      e->used[r] = true;
      return r;
    }
  e->ok = false;
  return 0;
}

/* Leaf s's source index (a new one on its first use). */
static int source(emitter *e, uint32_t s) {
  if (e->src[s] == NONE) {
    if (e->fp->n_src == FUSE_PROG_MAX_IO) {
      e->ok = false;
      return 0;
    }
    e->fp->src_node[e->fp->n_src] = s;
    e->src[s] = (int)e->fp->n_src++;
  }
  return e->src[s];
}

/* Where node s is read from: a source (*flags EWP_SRC) or its register. */
static int operand(emitter *e, uint32_t s, uint8_t *flags) {
  const fnode *nd = &e->fp->nodes[s];
  *flags = 0;
  if (nd->kind != FN_LEAF || nd->loc == LOC_SCALAR) return e->reg[s];
  *flags = EWP_SRC;
  return source(e, s);
}

/* Puts the accumulator's node v into a register unless it is there already. */
static void put(emitter *e, uint32_t v) {
  if (e->reg[v] != NONE) return;
  e->reg[v] = reg_take(e);
  emit(e, EWP_PUT, 0, 0, e->reg[v]);
}

static void prog_emit(emitter *e) {
  const fnode *nodes = e->fp->nodes;
  uint32_t nn = e->fp->n_nodes;
  for (uint32_t k = 0; k < nn; k++)
    if (nodes[k].kind == FN_LEAF && nodes[k].loc == LOC_SCALAR && e->last[k] != UINT32_MAX) {
      e->reg[k] = reg_take(e);
      emit(e, EWP_CONST, 0, source(e, k), e->reg[k]);
    }
  int64_t acc = NONE;
  for (uint32_t k = 0; k < nn && e->ok; k++) {
    const fnode *nd = &nodes[k];
    if (nd->kind != FN_EW) continue;
    uint32_t j = 0;
    if (acc != NONE && nd->in[nd->n_in - 1] == (uint32_t)acc && nd->in[0] != (uint32_t)acc) j = nd->n_in - 1;
    else if (nd->n_in == 2 && nodes[nd->in[0]].kind == FN_LEAF && nodes[nd->in[0]].loc == LOC_SCALAR) j = 1;
    uint32_t s = nd->in[j];
    /* the accumulator is overwritten below: keep a value read again */
    if (acc != NONE && ((e->last[acc] != UINT32_MAX && e->last[acc] > k) ||
                        (nd->n_in == 2 && nd->in[1 - j] == (uint32_t)acc)))
      put(e, (uint32_t)acc);
    if (s != (uint32_t)acc) {
      uint8_t flags;
      int a = operand(e, s, &flags);
      emit(e, EWP_GET, flags, a, 0);
    }
    uint8_t flags = 0;
    int a = 0;
    if (nd->n_in == 2) {
      a = operand(e, nd->in[1 - j], &flags);
      if (j == 1) flags |= EWP_SWAP;
    }
    emit(e, nd->code, flags, a, 0);
    acc = k;
    if (nd->out >= 0) emit(e, EWP_STORE, 0, 0, nd->out);
    for (uint32_t i = 0; i < nd->n_in; i++) {
      uint32_t t = nd->in[i];
      if (e->last[t] == k && nodes[t].kind == FN_EW && e->reg[t] != NONE) e->used[e->reg[t]] = false;
    }
  }
}

shl_status fuse_prog_build(plan_ctx *pc, fused_params *fp) {
  fp->prog.n_ins = 0;
  fp->n_src = 0;
  if (!prog_eligible(fp)) return NULL;
  uint32_t nn = fp->n_nodes;
  uint32_t *last = malloc((nn + 1) * sizeof *last);
  int *reg = malloc((nn + 1) * sizeof *reg), *src = malloc((nn + 1) * sizeof *src);
  /* per node at most a put, a get, the op and a store */
  emitter e = {.fp = fp, .last = last, .reg = reg, .src = src, .ok = true,
               .ins = plan_alloc(pc, (4 * (size_t)nn + 1) * sizeof *e.ins)};
  fp->src_node = plan_alloc(pc, (nn + 1) * sizeof *fp->src_node);
  if (!last || !reg || !src || !e.ins || !fp->src_node) {
    free(last), free(reg), free(src);
    return st_oom();
  }
  for (uint32_t k = 0; k < nn; k++) {
    last[k] = UINT32_MAX;
    reg[k] = src[k] = NONE;
  }
  for (uint32_t k = 0; k < nn; k++)
    if (fp->nodes[k].kind == FN_EW)
      for (uint32_t j = 0; j < fp->nodes[k].n_in; j++) last[fp->nodes[k].in[j]] = k;
  prog_emit(&e);
  if (e.ok) {
    fp->prog.ins = e.ins;
    fp->prog.n_ins = e.n_ins;
  } else {
    fp->n_src = 0; /* too many live values or sources: node by node */
  }
  free(last), free(reg), free(src);
  return NULL;
}
