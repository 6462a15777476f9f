/* A structural copy of a module (see ir.h, module_clone). */
#include <stdlib.h>

#include "ir.h"
#include "support/ptrmap.h"

typedef struct {
  shl_arena *a;
  shl_ptrmap vmap; /* old value -> new value */
} clone_ctx;

static shl_op *clone_op(clone_ctx *c, const shl_op *old);

static bool clone_block(clone_ctx *c, const shl_block *old, shl_region *into) {
  const shl_type **types = ARENA_ARRAY(c->a, const shl_type *, old->n_args + 1);
  if (!types) return false;
  for (uint32_t i = 0; i < old->n_args; i++) types[i] = old->args[i].type;
  shl_block *nb = block_create(c->a, old->n_args, types);
  if (!nb || !region_append_block(c->a, into, nb)) return false;
  nb->label = old->label;
  nb->arg_locs = old->arg_locs;
  for (uint32_t i = 0; i < old->n_args; i++) {
    nb->args[i].pos = old->args[i].pos;
    if (!ptrmap_put(&c->vmap, &old->args[i], &nb->args[i])) return false;
  }
  return true;
}

/* Blocks first (a branch may name a later block's arguments), then ops. */
static bool clone_region(clone_ctx *c, const shl_region *old, shl_region *into) {
  for (uint32_t k = 0; k < old->n_blocks; k++)
    if (!clone_block(c, old->blocks[k], into)) return false;
  for (uint32_t k = 0; k < old->n_blocks; k++)
    for (const shl_op *o = old->blocks[k]->first; o; o = o->next) {
      shl_op *no = clone_op(c, o);
      if (!no) return false;
      block_append(into->blocks[k], no);
    }
  return true;
}

static shl_op *clone_op(clone_ctx *c, const shl_op *old) {
  shl_value **ops = ARENA_ARRAY(c->a, shl_value *, old->n_operands + 1);
  const shl_type **rt = ARENA_ARRAY(c->a, const shl_type *, old->n_results + 1);
  if (!ops || !rt) return NULL;
  for (uint32_t i = 0; i < old->n_operands; i++) {
    shl_value *v = ptrmap_get(&c->vmap, old->operands[i]);
    /* Values defined outside what is copied (none in a verified module) stay shared. */
    ops[i] = v ? v : old->operands[i];
  }
  for (uint32_t i = 0; i < old->n_results; i++) rt[i] = old->results[i].type;
  shl_op *no = op_create(c->a, old->def, old->name, old->n_operands, ops, old->n_results, rt, old->n_attrs,
                         old->attrs, old->n_regions);
  if (!no) return NULL;
  no->loc = old->loc;
  no->pos = old->pos;
  for (uint32_t i = 0; i < old->n_results; i++)
    if (!ptrmap_put(&c->vmap, &old->results[i], &no->results[i])) return NULL;
  for (uint32_t r = 0; r < old->n_regions; r++)
    if (!clone_region(c, &old->regions[r], &no->regions[r])) return NULL;
  return no;
}

shloc_module *module_shell(const shloc_module *m) {
  shloc_module *dst = calloc(1, sizeof *dst);
  if (!dst) return NULL;
  arena_init(&dst->arena);
  dst->ctx = m->ctx;
  dst->filename = m->filename;
  dst->implicit_top = m->implicit_top;
  /* Borrowed, like the types and attributes: the copy prints as the original would. */
  dst->loc_defs = m->loc_defs;
  dst->resources = m->resources;
  return dst;
}

shl_status module_clone(const shloc_module *m, shloc_module **out) {
  *out = NULL;
  shloc_module *dst = module_shell(m);
  if (!dst) return st_oom();
  dst->jax_export = m->jax_export;
  clone_ctx c = {.a = &dst->arena};
  ptrmap_init(&c.vmap, c.a);
  dst->top = clone_op(&c, m->top);
  if (!dst->top) {
    arena_free(&dst->arena);
    free(dst);
    return st_oom();
  }
  *out = dst;
  return NULL;
}
