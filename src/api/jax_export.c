/* Public access to jax.export envelope metadata (include/shloc/jax_export.h). */
#include <stdlib.h>
#include <string.h>

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

static bool is_index_scalar(const shl_type *t) {
  return t->kind == TY_TENSOR && t->rank == 0 && (t->dtype == DT_I32 || t->dtype == DT_I64 || t->dtype == DT_SI32 ||
                                                  t->dtype == DT_SI64 || t->dtype == DT_UI32 || t->dtype == DT_UI64);
}

shloc_status shloc_jax_export_layout(const shloc_jax_export *e, const shloc_func *f, shloc_jax_layout *out) {
  const shl_op *main_fn = (const shl_op *)f; /* a shloc_func is its func.func op */
  const shl_type *ft = func_type(main_fn);
  memset(out, 0, sizeof *out);
  out->n_platform = (uint32_t)shloc_jax_export_num_platform_args(e);
  out->n_tokens = (uint32_t)shloc_jax_export_num_token_args(e);
  out->n_kept = (uint32_t)e->n_kept;
  out->platform_index = -1;
  for (size_t i = 0; i < e->n_platforms; i++)
    if (strcmp(e->platforms[i], "cpu") == 0) out->platform_index = (int)i;
  /* As JAX's call_exported: a disabled platform check runs branch 0. */
  for (size_t i = 0; out->platform_index < 0 && i < e->n_disabled_checks; i++)
    if (strcmp(e->disabled_checks[i], "platform") == 0) out->platform_index = 0;
  uint32_t want_in = out->n_platform + out->n_tokens + out->n_kept, want_out = out->n_tokens + (uint32_t)e->n_out;
  shl_str name = func_sym_name(main_fn);
  if (ft->n_in != want_in || ft->n_out != want_out)
    return op_error(main_fn, SHLOC_ERR_INVALID_ARG,
                    "@%.*s takes %u arguments and returns %u results, but the envelope's calling convention "
                    "(version %u: %u platform index, %u tokens, %u kept arrays; %u tokens, %zu results) needs %u and %u",
                    (int)name.n, name.p, ft->n_in, ft->n_out, e->calling_convention_version, out->n_platform,
                    out->n_tokens, out->n_kept, out->n_tokens, e->n_out, want_in, want_out);
  if (out->n_platform && !is_index_scalar(ft->in[0]))
    return op_error(main_fn, SHLOC_ERR_INVALID_ARG, "argument #0 of @%.*s should be the platform index (an i32 or i64 scalar)",
                    (int)name.n, name.p);
  for (uint32_t i = 0; i < out->n_tokens; i++) {
    if (ft->in[out->n_platform + i]->kind != TY_TOKEN)
      return op_error(main_fn, SHLOC_ERR_INVALID_ARG, "argument #%u of @%.*s should be the token of ordered effect %u",
                      out->n_platform + i, (int)name.n, name.p, i);
    if (ft->out[i]->kind != TY_TOKEN)
      return op_error(main_fn, SHLOC_ERR_INVALID_ARG, "result #%u of @%.*s should be the token of ordered effect %u", i,
                      (int)name.n, name.p, i);
  }
  return NULL;
}
