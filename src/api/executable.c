/* Public executables: a planned function run on caller-described tensors. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "ffi/ffi.h"
#include "shloc/executable.h"

/* The public description of a signature type; false when the type has none
 * (tuples, element types outside XLA's numbering).  '?' dimensions read as
 * SHLOC_DIM_DYNAMIC and unranked tensors as rank -1, both with nbytes 0. */
static bool describe(const shl_type *t, shloc_tensor *out) {
  *out = (shloc_tensor){.dtype = XLA_FFI_DataType_INVALID};
  if (t->kind == TY_TOKEN) {
    out->dtype = XLA_FFI_DataType_TOKEN;
    return true;
  }
  if (t->kind != TY_TENSOR) return false;
  _Static_assert(SHLOC_DIM_DYNAMIC == SHL_DYN, "public and internal '?' markers agree");
  out->dtype = ffi_dtype_to_xla(type_storage_dtype(t));
  out->rank = t->rank;
  out->dims = t->dims;
  out->nbytes = type_is_static(t) ? (size_t)type_num_bytes(t) : 0;
  return out->dtype != XLA_FFI_DataType_INVALID;
}

static shl_status signature_error(const shl_op *f, const char *role, size_t i) {
  return op_error(f, SHLOC_ERR_UNSUPPORTED,
                  "%s #%zu has a type the public API cannot describe (tensors and tokens only)", role, i);
}

shloc_status shloc_executable_create(shloc_module *m, const char *func, shloc_ffi_registry *registry,
                                     shloc_executable **out) {
  *out = NULL;
  if (!func) func = "main";
  const shl_op *f = module_find_func(m, str_of(func));
  if (!f) return st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "no function @%s in the module", func);
  const shl_type *ft = func_type(f);
  shloc_tensor d;
  for (uint32_t i = 0; i < ft->n_in; i++)
    if (!describe(ft->in[i], &d)) return signature_error(f, "argument", i);
  for (uint32_t i = 0; i < ft->n_out; i++)
    if (!describe(ft->out[i], &d)) return signature_error(f, "result", i);
  exec_config cfg = {.registry = (ffi_registry *)registry};
  return executable_create(m, f, &cfg, out);
}

shloc_status shloc_executable_create_func(shloc_module *m, const shloc_func *f, const shloc_executable_options *opts,
                                          shloc_executable **out) {
  *out = NULL;
  if (!f) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no function given");
  exec_config cfg = {0};
  if (opts)
    cfg = (exec_config){.registry = (ffi_registry *)opts->registry,
                        .probe_dir = opts->probe_dir,
                        .print = opts->print,
                        .print_user = opts->print_user};
  return executable_create(m, (const shl_op *)f, &cfg, out); /* a shloc_func is its func.func op */
}

void shloc_executable_destroy(shloc_executable *x) { executable_destroy(x); }

uint64_t shloc_executable_checks_run(const shloc_executable *x) { return executable_checks_run(x); }

size_t shloc_executable_num_args(const shloc_executable *x) { return func_type(executable_func(x))->n_in; }
size_t shloc_executable_num_results(const shloc_executable *x) { return func_type(executable_func(x))->n_out; }

shloc_status shloc_executable_arg_type(const shloc_executable *x, size_t i, shloc_tensor *out) {
  const shl_type *ft = func_type(executable_func(x));
  if (i >= ft->n_in) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "argument index %zu out of range", i);
  describe(ft->in[i], out);
  return NULL;
}

shloc_status shloc_executable_result_type(const shloc_executable *x, size_t i, shloc_tensor *out) {
  const shl_type *ft = func_type(executable_func(x));
  if (i >= ft->n_out) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "result index %zu out of range", i);
  describe(ft->out[i], out);
  return NULL;
}

/* "f32[2,3]" for messages. */
static void fmt_tensor(const shloc_tensor *t, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s[", ffi_dtype_xla_name(t->dtype));
  for (int32_t k = 0; k < t->rank && n < cap; k++)
    n += (size_t)snprintf(buf + n, cap - n, k ? ",%lld" : "%lld", (long long)(t->dims ? t->dims[k] : -1));
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Checks the arguments and wraps them as buffers (ptrs[i] = &bufs[i]); an
 * argument for a type with '?' dimensions gets its concrete type in types[i]. */
static shl_status wrap_args(const shl_op *f, const shloc_tensor *args, shl_buf *bufs, shl_buf **ptrs, shl_type *types) {
  const shl_type *ft = func_type(f);
  for (uint32_t i = 0; i < ft->n_in; i++) {
    shloc_tensor want;
    describe(ft->in[i], &want);
    const shl_type *t = args[i].dtype == want.dtype && args[i].rank >= 0 && (args[i].dims || !args[i].rank)
                            ? exec_arg_type(ft->in[i], args[i].rank, args[i].dims, &types[i])
                            : NULL;
    size_t nbytes = t && t->kind == TY_TENSOR ? (size_t)type_num_bytes(t) : 0;
    if (!t || (nbytes && !args[i].data)) {
      char got_s[256], want_s[256];
      fmt_tensor(&args[i], got_s, sizeof got_s);
      fmt_tensor(&want, want_s, sizeof want_s);
      return op_error(f, SHLOC_ERR_INVALID_ARG, "argument #%u is %s%s, expected %s", i, got_s,
                      t ? " without data" : "", want_s);
    }
    buf_init(&bufs[i], t, args[i].data);
    ptrs[i] = &bufs[i];
  }
  return NULL;
}

/* Runs with caller-provided result memory (into) or malloc'd results. */
static shloc_status run(shloc_executable *x, const shloc_tensor *args, size_t n_args, shloc_tensor *results,
                        size_t n_results, bool into) {
  const shl_op *f = executable_func(x);
  const shl_type *ft = func_type(f);
  if (n_args != ft->n_in || n_results != ft->n_out)
    return op_error(f, SHLOC_ERR_INVALID_ARG, "takes %u arguments and %u results, got %zu and %zu", ft->n_in,
                    ft->n_out, n_args, n_results);
  shl_buf *bufs = calloc(ft->n_in + ft->n_out + 1, sizeof *bufs);
  shl_buf **ptrs = calloc(ft->n_in + 1, sizeof *ptrs);
  void **outs = calloc(ft->n_out + 1, sizeof *outs);
  shl_type *types = calloc(ft->n_in + 1, sizeof *types);
  const shl_type *const *out_types = NULL;
  shl_status st = NULL;
  if (!bufs || !ptrs || !outs || !types) st = st_oom();
  if (!st) st = wrap_args(f, args, bufs, ptrs, types);
  if (!st && into) st = executable_result_types(x, ptrs, &out_types); /* refined for the arguments' shapes */
  for (uint32_t i = 0; !st && into && i < ft->n_out; i++) {
    shloc_tensor want;
    describe(out_types[i], &want);
    if (want.nbytes && (!results[i].data || results[i].nbytes < want.nbytes))
      st = op_error(f, SHLOC_ERR_INVALID_ARG, "result #%u needs a buffer of %zu bytes, got %s of %zu bytes", i,
                    want.nbytes, results[i].data ? "one" : "none", results[i].data ? results[i].nbytes : (size_t)0);
    outs[i] = results[i].data;
  }
  shl_buf *res = bufs + ft->n_in;
  if (!st) st = into ? executable_run_into(x, ptrs, outs, res) : executable_run(x, ptrs, res);
  if (!st)
    for (uint32_t i = 0; i < ft->n_out; i++) {
      describe(res[i].type, &results[i]);
      results[i].data = res[i].data;
    }
  free(types);
  free(bufs);
  free(ptrs);
  free(outs);
  return st;
}

shloc_status shloc_executable_run(shloc_executable *x, const shloc_tensor *args, size_t n_args, shloc_tensor *results,
                                  size_t n_results) {
  return run(x, args, n_args, results, n_results, false);
}

shloc_status shloc_executable_run_into(shloc_executable *x, const shloc_tensor *args, size_t n_args,
                                       shloc_tensor *results, size_t n_results) {
  return run(x, args, n_args, results, n_results, true);
}
