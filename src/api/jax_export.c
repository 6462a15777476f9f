/* Public access to jax.export envelope metadata (include/shloc/jax_export.h). */
#include <stdlib.h>

#include "bytecode/envelope.h"
#include "ir/ir.h"

const shloc_jax_export *shloc_module_jax_export(const shloc_module *m) { return m ? m->jax_export : NULL; }

/* A standalone envelope: the fields plus the arena that holds them. */
typedef struct {
  shloc_jax_export e; /* first: the caller's pointer is the holder's */
  shl_arena arena;
} holder;

shloc_status shloc_jax_export_read(const void *data, size_t len, const char *filename, shloc_jax_export **out) {
  *out = NULL;
  holder *h = calloc(1, sizeof *h);
  if (!h) return st_oom();
  arena_init(&h->arena);
  shloc_jax_export *e;
  shl_status st = envelope_decode(&h->arena, data, len, filename, &e);
  if (st) {
    arena_free(&h->arena);
    free(h);
    return st;
  }
  h->e = *e;
  *out = &h->e;
  return NULL;
}

void shloc_jax_export_free(shloc_jax_export *e) {
  if (!e) return;
  holder *h = (holder *)e;
  arena_free(&h->arena);
  free(h);
}

size_t shloc_jax_export_num_platform_args(const shloc_jax_export *e) { return e->n_platforms > 1 ? 1 : 0; }

size_t shloc_jax_export_num_token_args(const shloc_jax_export *e) {
  return e->calling_convention_version >= 9 ? e->n_ordered_effects : 0;
}
