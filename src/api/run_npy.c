/* Running a function on .npy files (include/shloc/executable.h,
 * shloc_npy_run_func): what `shloc run` does between parsing the module and
 * reporting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/jax_dims.h"
#include "exec/exec.h"
#include "shloc/executable.h"
#include "support/npy.h"
#include "text/print_value.h"

static char *type_text(const shl_type *t) {
  char *s = NULL;
  shl_status st = print_type_text(t, &s);
  if (st) shloc_status_free(st);
  return s;
}

/* Arguments and results must be tensors (of any shape: '?' dimensions take
 * the inputs' sizes): what .npy files hold (tokens too when a jax.export
 * calling convention supplies them). */
static shl_status check_signature(const shl_op *f, bool tokens) {
  const shl_type *ft = func_type(f);
  for (uint32_t k = 0; k < ft->n_in + ft->n_out; k++) {
    bool in = k < ft->n_in;
    uint32_t i = in ? k : k - ft->n_in;
    const shl_type *t = in ? ft->in[i] : ft->out[i];
    if (t->kind == TY_TENSOR && npy_descr_for(type_storage_dtype(t))) continue;
    if (tokens && t->kind == TY_TOKEN) continue;
    char *s = type_text(t);
    shl_status st = op_error(f, SHLOC_ERR_UNSUPPORTED, "%s #%u has type %s; shloc run supports tensors only",
                             in ? "argument" : "result", i, s ? s : "?");
    free(s);
    return st;
  }
  return NULL;
}

/* "tensor<4x9xf32> (<f4)" for what a file holds. */
static void describe_npy(const npy_array *a, shl_dtype expected, char *buf, size_t cap) {
  shl_dtype dt = npy_descr_accepts(a->descr, expected) ? expected : npy_dtype_for_descr(a->descr);
  size_t n = (size_t)snprintf(buf, cap, "tensor<");
  for (int i = 0; i < a->rank && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, "%lldx", (long long)a->dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, "%s> (%s)", dt != DT_INVALID ? dtype_name(dt) : "?", a->descr);
}

/* Checks loaded input `i` against the argument type (frees it on mismatch);
 * *concrete gets the argument's type with the input's shape (in `storage`
 * when t has '?' dimensions). */
static shl_status check_input(const char *path, uint32_t i, const shl_type *t, npy_array *a, shl_type *storage,
                              const shl_type **concrete) {
  shl_dtype dt = type_storage_dtype(t);
  *concrete = npy_descr_accepts(a->descr, dt) ? exec_arg_type(t, a->rank, a->dims, storage) : NULL;
  if (*concrete) return NULL;
  char got[NPY_MAX_RANK * 21 + 64];
  describe_npy(a, dt, got, sizeof got);
  char *want = type_text(t);
  shl_status st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "argument #%u (%s): expected %s, got %s", i, path,
                           want ? want : "?", got);
  free(want);
  npy_array_free(a);
  return st;
}

/* Loads input `i` and checks it against the argument type (as check_input). */
static shl_status load_input(const char *path, uint32_t i, const shl_type *t, npy_array *a, shl_type *storage,
                             const shl_type **concrete) {
  ST_TRY(npy_read_file(path, a));
  return check_input(path, i, t, a, storage, concrete);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void free_results(shl_buf *res, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    free(res[i].data);
    res[i].data = NULL;
  }
}

/* One run: into buffers allocated once (kept in res across runs), or, with
 * fresh_outputs, into new malloc'd ones after releasing the previous run's. */
static shl_status run_once(const shloc_npy_run *o, shloc_executable *x, shl_buf *const *args, shl_buf *res,
                           uint32_t n_out, void **bufs) {
  if (o->fresh_outputs) {
    free_results(res, n_out);
    return executable_run(x, args, res);
  }
  if (!bufs[0] && n_out) {
    const shl_type *const *out; /* refined for the inputs' shapes */
    ST_TRY(executable_result_types(x, args, &out));
    for (uint32_t i = 0; i < n_out; i++) {
      int64_t bytes = type_num_bytes(out[i]);
      size_t nb = bytes > 0 ? (size_t)bytes : 1; /* tokens have no bytes */
      if (!(bufs[i] = exec_malloc(nb))) {
        char what[32];
        snprintf(what, sizeof what, "result #%u", i);
        return st_oom_size(what, nb);
      }
    }
  }
  return executable_run_into(x, args, bufs, res);
}

/* Runs o->repeat times; res holds the last run's results (malloc'd). */
static shl_status run_repeated(const shloc_npy_run *o, shloc_executable *x, shl_buf *const *args, shl_buf *res,
                               uint32_t n_out) {
  long repeat = o->repeat > 0 ? o->repeat : 1;
  void **bufs = calloc(n_out + 1, sizeof *bufs);
  if (!bufs) return st_oom();
  shl_status st = NULL;
  for (long r = 0; !st && r < repeat; r++) {
    double t0 = now_ms();
    st = run_once(o, x, args, res, n_out, bufs);
    if (o->run_ms && r < o->repeat) o->run_ms[r] = now_ms() - t0;
  }
  if (st) /* with fresh_outputs, a failed run has released its buffers */
    for (uint32_t i = 0; i < n_out; i++) {
      if (!o->fresh_outputs) free(bufs[i]);
      res[i].data = NULL;
    }
  free(bufs);
  return st;
}

/* Results from `first` on (the ones after a jax.export module's tokens). */
static shl_status emit_results(const shloc_npy_run *o, const shl_type *ft, const shl_buf *res, uint32_t first) {
  for (uint32_t i = first; i < ft->n_out; i++) {
    const shl_type *t = res[i].type; /* the declared type, refined */
    if (i - first < o->n_outputs)
      ST_TRY(npy_write_file_atomic(o->outputs[i - first], npy_descr_for(type_storage_dtype(t)), t->dims, t->rank,
                                   res[i].data, res[i].nbytes));
    if (!o->print) continue;
    char *s;
    size_t n;
    ST_TRY(print_dense_value(t, res[i].data, res[i].nbytes, &s, &n));
    bool ok = o->print(o->print_user, s, n);
    free(s);
    if (!ok) return st_error(SHLOC_ERR_IO, NULL, NULL, "cannot write result #%u", i - first);
  }
  return NULL;
}

/* A jax.export envelope's inputs: the caller passes one array per input of
 * the exported function (in_avals); @main gets the platform index, one token
 * per ordered effect and the kept inputs (shloc_jax_export_layout).  Every
 * input is checked against its aval, symbolic dimensions included. */
static shl_status load_jax_inputs(const shloc_npy_run *o, const shloc_jax_export *e, const shloc_jax_layout *l,
                                  const shl_op *f, npy_array *ins, uint32_t *loaded, shl_buf *bufs, shl_buf **args,
                                  shl_type *types, int64_t *platform) {
  const shl_type *ft = func_type(f);
  jax_dimvars vars = {.n = 0};
  for (; *loaded < e->n_in; (*loaded)++) {
    uint32_t i = *loaded;
    ST_TRY(npy_read_file(o->inputs[i], &ins[i]));
    shl_status st = jax_dim_bind(&e->in_avals[i], ins[i].dims, ins[i].rank, &vars);
    if (st) return st_annotate(st, "input #%u (%s)", i, o->inputs[i]);
  }
  for (uint32_t i = 0; i < e->n_in; i++) {
    const shloc_jax_aval *a = &e->in_avals[i];
    shl_status st = jax_dim_check(a, ins[i].dims, ins[i].rank, &vars);
    const char *mlir = jax_mlir_dtype(a->dtype);
    shl_dtype dt = mlir ? dtype_from_name(mlir, strlen(mlir)) : DT_INVALID;
    if (!st && (dt == DT_INVALID || !npy_descr_accepts(ins[i].descr, dt)))
      st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "element type %s does not hold JAX dtype %s", ins[i].descr,
                    a->dtype);
    if (st) return st_annotate(st, "input #%u (%s)", i, o->inputs[i]);
  }
  /* As JAX refuses to call a function on a platform it was not exported
   * for, unless the envelope disables that check. */
  if (e->n_platforms && l->platform_index < 0)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                    "%s was exported for platforms that do not include cpu (see shloc inspect)", f->pos.file);
  uint32_t at = 0;
  if (l->n_platform) {
    /* i32 or i64 (shloc_jax_export_layout checked): little-endian, the low bytes hold the index. */
    *platform = l->platform_index;
    buf_init(&bufs[at], ft->in[at], platform);
    args[at] = &bufs[at];
    at++;
  }
  for (uint32_t t = 0; t < l->n_tokens; t++, at++) {
    buf_init(&bufs[at], ft->in[at], NULL);
    args[at] = &bufs[at];
  }
  for (uint32_t j = 0; j < l->n_kept; j++, at++) {
    uint32_t k = e->module_kept_var_idx[j];
    const shl_type *t;
    ST_TRY(check_input(o->inputs[k], k, ft->in[at], &ins[k], &types[at], &t));
    buf_init(&bufs[at], t, ins[k].data);
    args[at] = &bufs[at];
  }
  return NULL;
}

/* The argument and result counts the caller works with: the exported
 * function's for an envelope, else the function's own. */
static shl_status check_counts(const shloc_npy_run *o, const shloc_jax_export *je, const shl_op *f) {
  const shl_type *ft = func_type(f);
  uint32_t n_user_in = je ? (uint32_t)je->n_in : ft->n_in, n_user_out = je ? (uint32_t)je->n_out : ft->n_out;
  shl_str name = je ? str_of(je->function_name) : func_sym_name(f);
  const char *what = je ? "the exported function " : "@";
  if (o->n_inputs != n_user_in)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s%.*s takes %u argument%s, got %zu --input file%s", what,
                    (int)name.n, name.p, n_user_in, n_user_in == 1 ? "" : "s", o->n_inputs,
                    o->n_inputs == 1 ? "" : "s");
  if (o->n_outputs && o->n_outputs != n_user_out)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s%.*s returns %u result%s, got %zu -o file%s", what,
                    (int)name.n, name.p, n_user_out, n_user_out == 1 ? "" : "s", o->n_outputs,
                    o->n_outputs == 1 ? "" : "s");
  return NULL;
}

shloc_status shloc_npy_run_func(shloc_module *m, const shloc_func *func, shloc_ffi_registry *registry,
                                const shloc_npy_run *o) {
  if (!func) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no function given");
  const shl_op *f = (const shl_op *)func; /* a shloc_func is its func.func op */
  const shl_type *ft = func_type(f);
  const shloc_jax_export *je = o->jax_convention ? shloc_module_jax_export(m) : NULL;
  shloc_jax_layout jl = {.n_platform = 0};
  shl_status st = je ? shloc_jax_export_layout(je, func, &jl) : NULL;
  if (!st) st = check_signature(f, je != NULL);
  if (!st) st = check_counts(o, je, f);
  if (st) return st;
  uint32_t n_in = ft->n_in, n_out = ft->n_out, n_user_in = (uint32_t)o->n_inputs, loaded = 0;
  npy_array *ins = calloc(n_user_in + 1, sizeof *ins);
  shl_buf *bufs = calloc(n_in + 1, sizeof *bufs), **args = calloc(n_in + 1, sizeof *args);
  shl_buf *res = calloc(n_out + 1, sizeof *res);
  shl_type *types = calloc(n_in + 1, sizeof *types);
  shloc_executable *x = NULL;
  int64_t platform = 0;
  bool ran = false;
  shloc_npy_phases ph = {0};
  double t0 = now_ms();
  if (!ins || !bufs || !args || !res || !types) st = st_oom();
  if (!st && je) st = load_jax_inputs(o, je, &jl, f, ins, &loaded, bufs, args, types, &platform);
  for (; !st && !je && loaded < n_in; loaded++) {
    const shl_type *t;
    st = load_input(o->inputs[loaded], loaded, ft->in[loaded], &ins[loaded], &types[loaded], &t);
    if (st) break;
    buf_init(&bufs[loaded], t, ins[loaded].data);
    args[loaded] = &bufs[loaded];
  }
  double t1 = now_ms();
  ph.inputs_ms = t1 - t0;
  if (!st) st = executable_create(m, f, &(exec_config){.registry = (ffi_registry *)registry}, &x);
  if (!st) { /* refine and plan for the inputs' shapes before timing (nothing for static functions) */
    const shl_type *const *out;
    st = executable_result_types(x, args, &out);
  }
  ph.plan_ms = now_ms() - t1;
  if (!st) {
    st = run_repeated(o, x, args, res, n_out);
    ran = !st;
  }
  double t2 = now_ms();
  if (!st) st = emit_results(o, ft, res, jl.n_tokens);
  ph.outputs_ms = now_ms() - t2;
  if (o->phases) *o->phases = ph;
  if (ran) free_results(res, n_out);
  for (uint32_t i = 0; i < loaded; i++) npy_array_free(&ins[i]);
  free(ins);
  free(types);
  free(bufs);
  free(args);
  free(res);
  executable_destroy(x);
  return st;
}
