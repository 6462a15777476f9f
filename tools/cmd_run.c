/* shloc run FILE: runs a function on .npy inputs; writes .npy outputs and/or
 * prints the results as dense literals; optionally times repeated runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "exec/exec.h"
#include "ffi/ffi.h"
#include "shloc/spmd.h"
#include "support/npy.h"
#include "text/print_value.h"

static const char usage_text[] =
    "usage: shloc run FILE [--entry NAME] [--input A.npy ...] [-o OUT.npy ...] [--print]\n"
    "                 [--ffi TARGET=LIB.so:SYMBOL ...] [--plugin LIB.so ...] [--repeat N] [--time]\n"
    "                 [--fresh-outputs] [--replicas R] [--partitions P] [--input-per-device]\n"
    "\n"
    "Parses and verifies FILE ('-' = stdin), then runs its entry function (--entry NAME;\n"
    "default @main, or the only function) once per --repeat.\n"
    "\n"
    "  --input A.npy   one per function argument, in order (also: -i); shape and\n"
    "                  element type must match the argument's type, whose '?'\n"
    "                  dimensions (or unranked type) take the input's sizes: the\n"
    "                  program is then refined to them (errors number arguments\n"
    "                  from 0, like %arg0)\n"    "                  For a jax.export envelope (Exported.serialize()): one per input\n"
    "                  of the exported function (its in_avals, unused ones included);\n"
    "                  shloc adds the platform index (of cpu), the tokens of ordered\n"
    "                  effects and drops inputs JAX did not keep; symbolic dimensions\n"
    "                  (b, 2*b + 1) are checked; results are the function's, without\n"
    "                  tokens (--entry NAME turns this off)\n"
    "  -o OUT.npy      one per result, in order; each file is written atomically\n"
    "  --print         print each result as `dense<...> : tensor<...>` on stdout;\n"
    "                  this is the default when neither -o nor --time is given\n"
    "  --ffi T=LIB:SYM register symbol SYM of shared library LIB as custom-call target T\n"
    "                  (the op's api_version says whether it is a typed XLA FFI handler\n"
    "                  or a legacy function)\n"
    "  --plugin LIB    load a handler plugin library (shloc_plugin_register or\n"
    "                  XLA_FFI_Handler_Register calls in its initialisers)\n"
    "  --repeat N      run N times (default 1); outputs come from the last run\n"
    "  --time          print the median (and minimum) time per run to stderr, e.g.\n"
    "                  'shloc run: 5 runs, median 12.345 ms, min 12.001 ms'; parsing,\n"
    "                  verification and planning are not included\n"
    "  --fresh-outputs allocate the result buffers anew for every run (and free the\n"
    "                  previous run's), as a caller that keeps no buffers would; by\n"
    "                  default repeated runs write into the same result buffers\n"
    "  --replicas R, --partitions P\n"
    "                  run on R x P devices, one thread each (default: the module's\n"
    "                  mhlo.num_replicas / mhlo.num_partitions; a module with more than\n"
    "                  one device runs on them; a flag contradicting the module is an\n"
    "                  error).  Every device gets the global inputs (shard_map bodies\n"
    "                  take their tiles by their shardings); results must agree\n"
    "  --input-per-device\n"
    "                  inputs and outputs are per device: --input x.npy reads x.dev0.npy,\n"
    "                  x.dev1.npy, ... (device K = replica * P + partition), each the\n"
    "                  device's own value or its tile of the argument's sharding;\n"
    "                  -o y.npy writes y.devK.npy, cut by the result's sharding\n"
    "\n"
    ".npy element types (NumPy descr; C order; little-endian, big-endian inputs are swapped):\n"
    "  i1 '|b1'   i8 '|i1'  i16 '<i2'  i32 '<i4'  i64 '<i8'   (si* the same)\n"
    "  ui8 '|u1'  ui16 '<u2'  ui32 '<u4'  ui64 '<u8'\n"
    "  i2/i4 '|i1', ui2/ui4 '|u1' (one byte per element)\n"
    "  f16 '<f2'  f32 and tf32 '<f4'  f64 '<f8'  complex<f32> '<c8'  complex<f64> '<c16'\n"
    "  bf16 '<V2' (raw bits, what ml_dtypes writes; '<u2' accepted on input)\n"
    "  f8*/f6*/f4 '|V1' (raw bits, one byte per element; '|u1' accepted on input)\n"
    "  quantized tensors use their storage type.  Outputs are written with these descrs.\n"
    "\n"
    "Exit status: 0 on success, 1 on any error, 2 on bad usage.\n";

typedef struct {
  const char **v;
  int n;
} arg_list;

static bool list_add(arg_list *l, const char *s) {
  const char **nv = realloc(l->v, (size_t)(l->n + 1) * sizeof *nv);
  if (!nv) return false;
  nv[l->n++] = s;
  l->v = nv;
  return true;
}

typedef struct {
  const char *path, *entry;
  arg_list inputs, outputs, ffi, plugins;
  bool print, time, fresh, per_device;
  long repeat;
  long replicas, partitions; /* 0: the module's */
} run_opts;

/* Reports a status: MLIR-style when it points into the module, otherwise as
 * "shloc run: error: message" (npy and registry errors name their file). */
static void report(shloc_status st, const char *text, size_t len) {
  const char *file = NULL;
  shloc_status_location(st, &file, NULL, NULL);
  if (file) {
    cli_report(st, text, len);
    return;
  }
  fprintf(stderr, "shloc run: error: %s\n", shloc_status_message(st));
  shloc_status_free(st);
}

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

static shl_status build_registry(const run_opts *o, ffi_registry **out) {
  *out = NULL;
  if (!o->ffi.n && !o->plugins.n) return NULL;
  ST_TRY(ffi_registry_create(out));
  for (int i = 0; i < o->ffi.n; i++) {
    const char *arg = o->ffi.v[i], *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "--ffi '%s': expected TARGET=LIB.so:SYMBOL", arg);
    char *target = strndup(arg, (size_t)(eq - arg));
    if (!target) return st_oom();
    shl_status st = ffi_registry_add_symbol(*out, target, eq + 1, FFI_KIND_SYMBOL);
    free(target);
    if (st) return st_annotate(st, "--ffi %s", arg);
  }
  for (int i = 0; i < o->plugins.n; i++) {
    shl_status st = ffi_registry_load_plugin(*out, o->plugins.v[i]);
    if (st) return st_annotate(st, "--plugin %s", o->plugins.v[i]);
  }
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void free_results(shl_buf *res, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    free(res[i].data);
    res[i].data = NULL;
  }
}

/* One run: into buffers allocated once (kept in res across runs), or, with
 * --fresh-outputs, into new malloc'd ones after releasing the previous run's. */
static shl_status run_once(const run_opts *o, shloc_executable *x, shl_buf *const *args, shl_buf *res, uint32_t n_out,
                           void **bufs) {
  if (o->fresh) {
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
static shl_status run_repeated(const run_opts *o, shloc_executable *x, shl_buf *const *args, shl_buf *res, uint32_t n_out) {
  double *ms = malloc((size_t)o->repeat * sizeof *ms);
  void **bufs = calloc(n_out + 1, sizeof *bufs);
  if (!ms || !bufs) {
    free(ms);
    free(bufs);
    return st_oom();
  }
  shl_status st = NULL;
  for (long r = 0; !st && r < o->repeat; r++) {
    double t0 = now_ms();
    st = run_once(o, x, args, res, n_out, bufs);
    ms[r] = now_ms() - t0;
  }
  if (!st && o->time) {
    qsort(ms, (size_t)o->repeat, sizeof *ms, cmp_double);
    long h = o->repeat / 2;
    double med = o->repeat % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
    fprintf(stderr, "shloc run: %ld run%s, median %.3f ms, min %.3f ms\n", o->repeat, o->repeat == 1 ? "" : "s", med,
            ms[0]);
  }
  if (st) /* with --fresh-outputs, a failed run has released its buffers */
    for (uint32_t i = 0; i < n_out; i++) {
      if (!o->fresh) free(bufs[i]);
      res[i].data = NULL;
    }
  free(ms);
  free(bufs);
  return st;
}

/* Results from `first` on (the ones after a jax.export module's tokens). */
static shl_status emit_results(const run_opts *o, const shl_type *ft, const shl_buf *res, uint32_t first) {
  bool print = o->print || (!o->outputs.n && !o->time);
  for (uint32_t i = first; i < ft->n_out; i++) {
    const shl_type *t = res[i].type; /* the declared type, refined */
    if (i - first < (uint32_t)o->outputs.n)
      ST_TRY(npy_write_file_atomic(o->outputs.v[i - first], npy_descr_for(type_storage_dtype(t)), t->dims, t->rank,
                                   res[i].data, res[i].nbytes));
    if (!print) continue;
    char *s;
    size_t n;
    ST_TRY(print_dense_value(t, res[i].data, res[i].nbytes, &s, &n));
    fwrite(s, 1, n, stdout);
    fputc('\n', stdout);
    free(s);
  }
  return NULL;
}

/* A jax.export envelope's inputs: the user passes one array per input of
 * the exported function (in_avals); @main gets the platform index, one token
 * per ordered effect and the kept inputs (see cli_jax_plan).  Every input is
 * checked against its aval, symbolic dimensions included. */
static shl_status load_jax_inputs(const run_opts *o, const shloc_jax_export *e, const cli_jax_layout *l,
                                  const shl_op *f, npy_array *ins, uint32_t *loaded, shl_buf *bufs, shl_buf **args,
                                  shl_type *types, int64_t *platform) {
  const shl_type *ft = func_type(f);
  cli_dimvars vars = {.n = 0};
  for (; *loaded < e->n_in; (*loaded)++) {
    uint32_t i = *loaded;
    ST_TRY(npy_read_file(o->inputs.v[i], &ins[i]));
    shl_status st = cli_dim_bind(&e->in_avals[i], ins[i].dims, ins[i].rank, &vars);
    if (st) return st_annotate(st, "input #%u (%s)", i, o->inputs.v[i]);
  }
  for (uint32_t i = 0; i < e->n_in; i++) {
    const shloc_jax_aval *a = &e->in_avals[i];
    shl_status st = cli_dim_check(a, ins[i].dims, ins[i].rank, &vars);
    const char *mlir = cli_jax_mlir_dtype(a->dtype);
    shl_dtype dt = mlir ? dtype_from_name(mlir, strlen(mlir)) : DT_INVALID;
    if (!st && (dt == DT_INVALID || !npy_descr_accepts(ins[i].descr, dt)))
      st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "element type %s does not hold JAX dtype %s", ins[i].descr, a->dtype);
    if (st) return st_annotate(st, "input #%u (%s)", i, o->inputs.v[i]);
  }
  /* As JAX refuses to call a function on a platform it was not exported
   * for, unless the envelope disables that check. */
  if (e->n_platforms && l->platform_index < 0)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                    "%s was exported for platforms that do not include cpu (see shloc inspect)", o->path);
  uint32_t at = 0;
  if (l->n_platform) {
    /* i32 or i64 (cli_jax_plan checked): little-endian, the low bytes hold the index. */
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
    ST_TRY(check_input(o->inputs.v[k], k, ft->in[at], &ins[k], &types[at], &t));
    buf_init(&bufs[at], t, ins[k].data);
    args[at] = &bufs[at];
  }
  return NULL;
}

static bool print_stdout(void *user, const char *data, size_t len) {
  (void)user;
  return fwrite(data, 1, len, stdout) == len;
}

/* A multi-device run (shloc/spmd.h); returns the process exit status. */
static int run_spmd(const run_opts *o, shloc_module *m, const char *text, size_t len) {
  shl_status st = NULL;
  if (o->ffi.n || o->plugins.n || o->repeat > 1 || o->time || o->fresh)
    st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                  "--ffi, --plugin, --repeat, --time and --fresh-outputs are not supported on several devices");
  shloc_spmd_npy_run r = {.inputs = o->inputs.v, .n_inputs = (size_t)o->inputs.n, .outputs = o->outputs.v,
                          .n_outputs = (size_t)o->outputs.n, .replicas = (uint32_t)o->replicas,
                          .partitions = (uint32_t)o->partitions, .per_device = o->per_device,
                          .print = o->print || !o->outputs.n ? print_stdout : NULL};
  if (!st) st = shloc_spmd_run_npy(m, o->entry, &r);
  if (st) report(st, text, len);
  return st ? 1 : 0;
}

/* Parses, plans and runs; returns the process exit status. */
static int run_module(const run_opts *o, shloc_context *ctx, const char *text, size_t len) {
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  ffi_registry *reg = NULL;
  npy_array *ins = NULL;
  shl_buf *bufs = NULL, **args = NULL, *res = NULL;
  shl_type *types = NULL;
  uint32_t n_in = 0, n_out = 0, loaded = 0;
  bool ran = false;
  shl_status st = shloc_module_parse(ctx, o->path, text, len, 1, &m);
  if (!st) st = shloc_module_verify(m);
  uint32_t grid_r = 1, grid_p = 1;
  if (!st) st = shloc_spmd_devices(m, &grid_r, &grid_p);
  if (!st && (o->replicas || o->partitions || o->per_device || grid_r * grid_p > 1)) {
    int rc = run_spmd(o, m, text, len);
    shloc_module_destroy(m);
    return rc;
  }
  const shl_op *f = NULL;
  if (!st) {
    f = cli_entry_func(m, o->entry);
    if (!f && o->entry) st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "%s: no function @%s", o->path, o->entry);
    else if (!f)
      st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "%s: no entry function: expected @main or exactly one function (use --entry)",
                    o->path);
  }
  const shl_type *ft = f ? func_type(f) : NULL;
  /* An envelope's @main follows JAX's calling convention (unless --entry
   * picks another function): the user passes what the exported function took. */
  const shloc_jax_export *je = !st && !o->entry ? shloc_module_jax_export(m) : NULL;
  cli_jax_layout jl = {.n_platform = 0};
  int64_t platform = 0;
  if (je) st = cli_jax_plan(je, f, &jl);
  if (!st) st = check_signature(f, je != NULL);
  uint32_t n_user_in = 0, n_user_out = 0; /* what the user passes and gets */
  if (!st) {
    n_in = ft->n_in;
    n_out = ft->n_out;
    n_user_in = je ? (uint32_t)je->n_in : n_in;
    n_user_out = je ? (uint32_t)je->n_out : n_out;
    shl_str name = je ? str_of(je->function_name) : func_sym_name(f);
    const char *what = je ? "the exported function " : "@";
    if ((uint32_t)o->inputs.n != n_user_in)
      st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s%.*s takes %u argument%s, got %d --input file%s", what,
                    (int)name.n, name.p, n_user_in, n_user_in == 1 ? "" : "s", o->inputs.n, o->inputs.n == 1 ? "" : "s");
    else if (o->outputs.n && (uint32_t)o->outputs.n != n_user_out)
      st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s%.*s returns %u result%s, got %d -o file%s", what, (int)name.n,
                    name.p, n_user_out, n_user_out == 1 ? "" : "s", o->outputs.n, o->outputs.n == 1 ? "" : "s");
  }
  if (!st) {
    ins = calloc(n_user_in + 1, sizeof *ins);
    bufs = calloc(n_in + 1, sizeof *bufs);
    args = calloc(n_in + 1, sizeof *args);
    res = calloc(n_out + 1, sizeof *res);
    types = calloc(n_in + 1, sizeof *types);
    if (!ins || !bufs || !args || !res || !types) st = st_oom();
  }
  if (!st && je) st = load_jax_inputs(o, je, &jl, f, ins, &loaded, bufs, args, types, &platform);
  for (; !st && !je && loaded < n_in; loaded++) {
    const shl_type *t;
    st = load_input(o->inputs.v[loaded], loaded, ft->in[loaded], &ins[loaded], &types[loaded], &t);
    if (st) break;
    buf_init(&bufs[loaded], t, ins[loaded].data);
    args[loaded] = &bufs[loaded];
  }
  if (!st) st = build_registry(o, &reg);
  if (!st) st = executable_create(m, f, &(exec_config){.registry = reg}, &x);
  if (!st) { /* refine and plan for the inputs' shapes before timing (nothing for static functions) */
    const shl_type *const *out;
    st = executable_result_types(x, args, &out);
  }
  if (!st) {
    st = run_repeated(o, x, args, res, n_out);
    ran = !st;
  }
  if (!st) st = emit_results(o, ft, res, jl.n_tokens);
  if (st) report(st, text, len);
  if (ran) free_results(res, n_out);
  for (uint32_t i = 0; i < loaded; i++) npy_array_free(&ins[i]);
  free(ins);
  free(types);
  free(bufs);
  free(args);
  free(res);
  executable_destroy(x); /* call sites go before their registry */
  ffi_registry_destroy(reg);
  shloc_module_destroy(m);
  return st ? 1 : 0;
}

int cmd_run(int argc, char **argv) {
  run_opts o = {.repeat = 1};
  bool ok = true;
  int rc = 2;
  for (int i = 1; i < argc && ok; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      rc = 0;
      ok = false;
    } else if (strcmp(a, "--print") == 0) {
      o.print = true;
    } else if (strcmp(a, "--time") == 0) {
      o.time = true;
    } else if (strcmp(a, "--fresh-outputs") == 0) {
      o.fresh = true;
    } else if ((strcmp(a, "--input") == 0 || strcmp(a, "-i") == 0) && has_value) {
      ok = list_add(&o.inputs, argv[++i]);
    } else if (strcmp(a, "-o") == 0 && has_value) {
      ok = list_add(&o.outputs, argv[++i]);
    } else if (strcmp(a, "--ffi") == 0 && has_value) {
      ok = list_add(&o.ffi, argv[++i]);
    } else if (strcmp(a, "--plugin") == 0 && has_value) {
      ok = list_add(&o.plugins, argv[++i]);
    } else if (strcmp(a, "--input-per-device") == 0) {
      o.per_device = true;
    } else if ((strcmp(a, "--replicas") == 0 || strcmp(a, "--partitions") == 0) && has_value) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 4096) {
        fprintf(stderr, "shloc run: %s expects a count from 1 to 4096, got '%s'\n", a, argv[i]);
        ok = false;
      }
      *(a[2] == 'r' ? &o.replicas : &o.partitions) = v;
    } else if (strcmp(a, "--entry") == 0 && has_value) {
      o.entry = argv[++i];
    } else if (strcmp(a, "--repeat") == 0 && has_value) {
      char *end;
      o.repeat = strtol(argv[++i], &end, 10);
      if (*end || o.repeat < 1 || o.repeat > 1000000) {
        fprintf(stderr, "shloc run: --repeat expects a count from 1 to 1000000, got '%s'\n", argv[i]);
        ok = false;
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "shloc run: unknown option or missing value: '%s' (see shloc run --help)\n", a);
      ok = false;
    } else if (!o.path) {
      o.path = a;
    } else {
      fprintf(stderr, "shloc run: unexpected argument '%s' (inputs go after --input)\n", a);
      ok = false;
    }
  }
  if (ok && !o.path) {
    fprintf(stderr, "shloc run: missing FILE (see shloc run --help)\n");
    ok = false;
  }
  char *text = NULL;
  size_t len = 0;
  if (ok) {
    rc = 1;
    if (cli_read_file(o.path, &text, &len)) {
      shloc_context *ctx = shloc_context_create();
      rc = ctx ? run_module(&o, ctx, text, len) : 1;
      shloc_context_destroy(ctx);
    }
  }
  free(text);
  free(o.inputs.v);
  free(o.outputs.v);
  free(o.ffi.v);
  free(o.plugins.v);
  return rc;
}
