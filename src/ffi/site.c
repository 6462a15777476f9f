/* Call sites: everything about one stablehlo.custom_call that does not change
 * between executions is built here once (encoded attributes, call frame
 * template, buffer structs, pointer tables, handler state); a call only
 * stores buffer pointers and shapes and invokes the handler. */
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

struct ffi_site {
  char *target;
  int api_version;
  int n_args, n_rets;
  /* typed */
  XLA_FFI_Handler_Bundle bundle;
  XLA_FFI_CallFrame frame_template; /* execute-stage frame with no buffers filled */
  XLA_FFI_CallFrame frame;          /* the live frame handlers see */
  XLA_FFI_ExecutionContext ctx;
  ffi_state states[FFI_STATE_STAGES];
  char *attrs_block;
  XLA_FFI_ArgType *arg_types;
  XLA_FFI_RetType *ret_types;
  void **buf_ptrs;      /* n_args + n_rets; args first */
  XLA_FFI_Buffer *bufs; /* n_args + n_rets; args first */
  struct {
    shl_dtype from;       /* the element type each of bufs was last filled from */
    XLA_FFI_DataType to;  /* and its FFI type */
  } *buf_dt;
  /* legacy */
  shloc_legacy_fn legacy;
  bool out_is_table;
  const void **in;  /* n_args */
  void **out_table; /* n_rets */
  char *opaque;
  size_t opaque_len;
};

void ffi_site_destroy(ffi_site *s) {
  if (!s) return;
  for (int k = 0; k < FFI_STATE_STAGES; k++) ffi_state_clear(&s->states[k]);
  free(s->target);
  free(s->attrs_block);
  free(s->arg_types);
  free(s->ret_types);
  free(s->buf_ptrs);
  free(s->bufs);
  free(s->buf_dt);
  free(s->in);
  free(s->out_table);
  free(s->opaque);
  free(s);
}

void ffi_state_clear(ffi_state *s) {
  if (s->set && s->deleter) s->deleter(s->ptr);
  *s = (ffi_state){0};
}

static void *alloc_array(size_t n, size_t size) { return calloc(n ? n : 1, size); }

/* Calls one stage of the bundle on the live frame, completing a returned
 * future before returning. */
static shl_status run_stage(ffi_site *s, XLA_FFI_Handler *fn, XLA_FFI_ExecutionStage stage, const char *what) {
  /* A fresh frame each time, as XLA builds one per call: what a handler
   * wrote into the last one does not leak into this one. */
  s->frame = s->frame_template;
  s->frame.stage = stage;
  ffi_call_scope scope;
  ffi_call_scope *saved = ffi_scope_enter(&scope);
  XLA_FFI_Error *err = fn(&s->frame);
  ffi_scope_leave(saved);
  XLA_FFI_Future *future = s->frame.future;
  if (!err && !future && !scope.created) return NULL;
  if (future) {
    /* The handler promised to complete it; wait even when it also returned an
     * error, so nobody writes to a freed future. */
    XLA_FFI_Error *ferr = ffi_future_wait(future);
    if (err)
      ffi_error_free(ferr);
    else
      err = ferr;
  }
  ffi_scope_release(&scope, future);
  return ffi_error_take(err, s->target, what);
}

static shl_status prepare_typed(ffi_site *s, ffi_entry *e, const ffi_site_desc *d) {
  ST_TRY(ffi_entry_bundle(e, &s->bundle));
  XLA_FFI_Attrs *attrs;
  ST_TRY(ffi_attrs_encode(d->attrs, &s->attrs_block, &attrs));
  size_t nb = (size_t)d->n_args + (size_t)d->n_rets;
  s->arg_types = alloc_array((size_t)d->n_args, sizeof *s->arg_types);
  s->ret_types = alloc_array((size_t)d->n_rets, sizeof *s->ret_types);
  s->buf_ptrs = alloc_array(nb, sizeof *s->buf_ptrs);
  s->bufs = alloc_array(nb, sizeof *s->bufs);
  s->buf_dt = alloc_array(nb, sizeof *s->buf_dt);
  if (!s->arg_types || !s->ret_types || !s->buf_ptrs || !s->bufs || !s->buf_dt) return st_oom();
  for (size_t i = 0; i < nb; i++) s->buf_dt[i].from = DT_INVALID;
  for (int i = 0; i < d->n_args; i++) s->arg_types[i] = XLA_FFI_ArgType_BUFFER;
  for (int i = 0; i < d->n_rets; i++) s->ret_types[i] = XLA_FFI_RetType_BUFFER;
  for (size_t i = 0; i < nb; i++) s->buf_ptrs[i] = &s->bufs[i];
  s->ctx = (XLA_FFI_ExecutionContext){s->states, d->env ? d->env : &ffi_default_env, e->api_minor};
  s->frame_template = (XLA_FFI_CallFrame){
      .struct_size = XLA_FFI_CallFrame_STRUCT_SIZE,
      .extension_start = NULL,
      .api = ffi_api(),
      .ctx = &s->ctx,
      .stage = XLA_FFI_ExecutionStage_EXECUTE,
      .args = {XLA_FFI_Args_STRUCT_SIZE, NULL, d->n_args, s->arg_types, s->buf_ptrs},
      .rets = {XLA_FFI_Rets_STRUCT_SIZE, NULL, d->n_rets, s->ret_types, s->buf_ptrs + d->n_args},
      .attrs = *attrs,
      .future = NULL,
  };
  if (!s->bundle.instantiate) return NULL;
  /* Instantiation sees attributes only (as in XLA). */
  XLA_FFI_CallFrame keep = s->frame_template;
  s->frame_template.args.size = 0;
  s->frame_template.rets.size = 0;
  shl_status st = run_stage(s, s->bundle.instantiate, XLA_FFI_ExecutionStage_INSTANTIATE, "instantiate");
  s->frame_template = keep;
  return st;
}

static shl_status prepare_legacy(ffi_site *s, ffi_entry *e, const ffi_site_desc *d) {
  if (e->kind == FFI_KIND_TYPED)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "custom call '%s' is a typed FFI handler; the op needs api_version 4 (got %d)", d->target,
                    d->api_version);
  if (d->attrs)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "custom call '%s': api_version %d takes an opaque string, not an attribute dictionary", d->target,
                    d->api_version);
  s->legacy = e->legacy;
  s->out_is_table = d->tuple_result || d->n_rets != 1;
  s->in = alloc_array((size_t)d->n_args, sizeof *s->in);
  s->out_table = alloc_array((size_t)d->n_rets, sizeof *s->out_table);
  s->opaque = ffi_strndup(d->opaque ? d->opaque : "", d->opaque ? d->opaque_len : 0);
  s->opaque_len = d->opaque ? d->opaque_len : 0;
  if (!s->in || !s->out_table || !s->opaque) return st_oom();
  return NULL;
}

shl_status ffi_site_prepare(ffi_registry *r, const ffi_site_desc *d, ffi_site **out) {
  *out = NULL;
  if (!d->target) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call without a target name");
  if (d->n_args < 0 || d->n_rets < 0)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': negative operand or result count", d->target);
  if (d->api_version < 1 || d->api_version > 4)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "custom call '%s': unsupported api_version %d", d->target,
                    d->api_version);
  ffi_entry *e, builtin;
  ST_TRY(ffi_registry_find(r, d->target, d->platform, &builtin, &e));
  ffi_site *s = calloc(1, sizeof *s);
  if (!s) return st_oom();
  s->target = ffi_strndup(d->target, strlen(d->target));
  s->api_version = d->api_version;
  s->n_args = d->n_args;
  s->n_rets = d->n_rets;
  shl_status st = !s->target ? st_oom() : d->api_version == 4 ? prepare_typed(s, e, d) : prepare_legacy(s, e, d);
  if (st) {
    ffi_site_destroy(s);
    return st;
  }
  *out = s;
  return NULL;
}

/* Fills XLA_FFI_Buffer k (every field: a handler may have written to the
 * last one); the element type is mapped and checked only when it changes,
 * which for the executor's sites is once. */
static shl_status fill_buffer(ffi_site *s, int k, const ffi_buffer *src, const char *role, int i) {
  if (src->dtype != s->buf_dt[k].from || src->rank < 0 || (src->rank > 0 && !src->dims)) {
    XLA_FFI_DataType x = ffi_dtype_to_xla(src->dtype);
    if (x == XLA_FFI_DataType_INVALID || src->rank < 0 || (src->rank > 0 && !src->dims))
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "custom call '%s': %s %d has a type the XLA FFI cannot carry",
                      s->target, role, i);
    s->buf_dt[k].from = src->dtype;
    s->buf_dt[k].to = x;
  }
  s->bufs[k] = (XLA_FFI_Buffer){XLA_FFI_Buffer_STRUCT_SIZE, NULL, s->buf_dt[k].to, src->data, src->rank,
                                (int64_t *)src->dims};
  return NULL;
}

static shl_status call_typed(ffi_site *s, const ffi_buffer *args, const ffi_buffer *rets) {
  for (int i = 0; i < s->n_args; i++) ST_TRY(fill_buffer(s, i, &args[i], "operand", i));
  for (int i = 0; i < s->n_rets; i++) ST_TRY(fill_buffer(s, s->n_args + i, &rets[i], "result", i));
  if (!s->bundle.prepare && !s->bundle.initialize)
    return run_stage(s, s->bundle.execute, XLA_FFI_ExecutionStage_EXECUTE, NULL);
  shl_status st = NULL;
  if (s->bundle.prepare) st = run_stage(s, s->bundle.prepare, XLA_FFI_ExecutionStage_PREPARE, "prepare");
  if (!st && s->bundle.initialize)
    st = run_stage(s, s->bundle.initialize, XLA_FFI_ExecutionStage_INITIALIZE, "initialize");
  if (!st) st = run_stage(s, s->bundle.execute, XLA_FFI_ExecutionStage_EXECUTE, NULL);
  /* Prepare and initialize state lives for one execution. */
  ffi_state_clear(&s->states[XLA_FFI_ExecutionStage_PREPARE]);
  ffi_state_clear(&s->states[XLA_FFI_ExecutionStage_INITIALIZE]);
  return st;
}

static shl_status call_legacy(ffi_site *s, const ffi_buffer *args, const ffi_buffer *rets) {
  for (int i = 0; i < s->n_args; i++) s->in[i] = args[i].data;
  for (int i = 0; i < s->n_rets; i++) s->out_table[i] = rets[i].data;
  void *out = s->out_is_table ? (void *)s->out_table : rets[0].data;
  return ffi_legacy_call(s->api_version, s->legacy, out, s->in, s->opaque, s->opaque_len, s->target);
}

shl_status ffi_site_call(ffi_site *s, const ffi_exec_env *env, const ffi_buffer *args, const ffi_buffer *rets) {
  if (s->api_version != 4) return call_legacy(s, args, rets);
  s->ctx.env = env ? env : &ffi_default_env;
  return call_typed(s, args, rets);
}
