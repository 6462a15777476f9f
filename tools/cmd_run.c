/* shloc run FILE: runs a function on .npy inputs; writes .npy outputs and/or
 * prints the results as dense literals; optionally times repeated runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "shloc/executable.h"
#include "shloc/ffi_registry.h"
#include "shloc/jax_export.h"
#include "shloc/spmd.h"

static const char usage_text[] =
    "usage: shloc run FILE [--entry NAME] [--input A.npy ...] [-o OUT.npy ...] [--print]\n"
    "                 [--ffi TARGET=LIB.so:SYMBOL ...] [--plugin LIB.so ...] [--repeat N] [--time]\n"
    "                 [--fresh-outputs] [--profile-phases] [--replicas R] [--partitions P]\n"
    "                 [--input-per-device] [--mpi]\n"
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
    "  --profile-phases\n"
    "                  print where a cold run's time goes to stderr: reading FILE,\n"
    "                  parsing, verifying, reading the inputs, planning, the first run,\n"
    "                  writing the outputs (wall ms each), and the process's peak RSS\n"
    "                  (Linux VmHWM, MB of 10^6 bytes), e.g. 'shloc run: phases: read\n"
    "                  1.000 ms, parse ..., outputs 0.100 ms; peak RSS 12.3 MB'\n"
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
    "  --mpi           under `mpirun -n R*P`: each rank runs device K = its rank (one\n"
    "                  device per process); with --input-per-device it reads only its\n"
    "                  own files and writes its own y.devK.npy; results written once and\n"
    "                  --print output come from rank 0; a failure on any rank stops all\n"
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
  bool print, time, fresh, per_device, mpi, phases;
  shloc_mpi *mpi_handle;
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

static shloc_status build_registry(const run_opts *o, shloc_ffi_registry **out) {
  *out = NULL;
  if (!o->ffi.n && !o->plugins.n) return NULL;
  shloc_status st = shloc_ffi_registry_create(out);
  if (st) return st;
  for (int i = 0; i < o->ffi.n; i++) {
    const char *arg = o->ffi.v[i], *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
      return shloc_status_error(SHLOC_ERR_INVALID_ARG, NULL, 0, 0, "--ffi '%s': expected TARGET=LIB.so:SYMBOL", arg);
    char *target = strndup(arg, (size_t)(eq - arg));
    if (!target) return shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory");
    st = shloc_ffi_register_symbol(*out, target, eq + 1, SHLOC_FFI_ANY);
    free(target);
    if (st) return shloc_status_annotate(st, "--ffi %s", arg);
  }
  for (int i = 0; i < o->plugins.n; i++) {
    st = shloc_ffi_load_plugin(*out, o->plugins.v[i]);
    if (st) return shloc_status_annotate(st, "--plugin %s", o->plugins.v[i]);
  }
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The process's peak resident set in bytes: VmHWM of /proc/self/status,
 * which starts afresh at exec (getrusage's ru_maxrss keeps the high-water
 * mark of the process that forked us across exec); 0 when unknown. */
static double peak_rss_bytes(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

/* --profile-phases: wall ms per phase (ph[0..2]: read, parse, verify). */
static void print_phases(const double *ph, const shloc_npy_phases *np, double first_run_ms) {
  fprintf(stderr,
          "shloc run: phases: read %.3f ms, parse %.3f ms, verify %.3f ms, inputs %.3f ms, plan %.3f ms, "
          "first run %.3f ms, outputs %.3f ms; peak RSS %.1f MB\n",
          ph[0], ph[1], ph[2], np->inputs_ms, np->plan_ms, first_run_ms, np->outputs_ms, peak_rss_bytes() / 1e6);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --print: each result on its own line of stdout. */
static bool print_result(void *user, const char *text, size_t len) {
  (void)user;
  return fwrite(text, 1, len, stdout) == len && fputc('\n', stdout) != EOF;
}

/* --time: "shloc run: N runs, median M ms, min T ms" on stderr. */
static void print_times(double *ms, long n) {
  qsort(ms, (size_t)n, sizeof *ms, cmp_double);
  long h = n / 2;
  double med = n % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
  fprintf(stderr, "shloc run: %ld run%s, median %.3f ms, min %.3f ms\n", n, n == 1 ? "" : "s", med, ms[0]);
}

/* A multi-device run (shloc/spmd.h) of function f. */
static shloc_status run_spmd(const run_opts *o, shloc_module *m, const shloc_func *f, shloc_ffi_registry *reg) {
  if (o->repeat > 1 || o->time || o->fresh || o->phases)
    return shloc_status_error(SHLOC_ERR_INVALID_ARG, NULL, 0, 0,
                              "--repeat, --time, --profile-phases and --fresh-outputs are not supported on several "
                              "devices");
  shloc_spmd_npy_run r = {.inputs = o->inputs.v, .n_inputs = (size_t)o->inputs.n, .outputs = o->outputs.v,
                          .n_outputs = (size_t)o->outputs.n, .replicas = (uint32_t)o->replicas,
                          .partitions = (uint32_t)o->partitions, .per_device = o->per_device,
                          .mpi = o->mpi_handle,
                          .print = o->print || !o->outputs.n ? print_result : NULL};
  return shloc_spmd_run_npy(m, f, reg, &r);
}

/* Parses, plans and runs; returns the process exit status.  ph[0] holds
 * the time spent reading FILE; ph[1] and ph[2] get parsing and verifying. */
static int run_module(const run_opts *o, shloc_context *ctx, const char *text, size_t len, double *ph) {
  shloc_module *m = NULL;
  shloc_ffi_registry *reg = NULL;
  double *ms = o->time || o->phases ? malloc((size_t)o->repeat * sizeof *ms) : NULL;
  double t0 = now_ms();
  shloc_status st = (o->time || o->phases) && !ms ? shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory")
                                                  : shloc_module_parse_borrowed(ctx, o->path, text, len, 1, &m);
  double t1 = now_ms();
  if (!st) st = shloc_module_verify(m);
  ph[1] = t1 - t0;
  ph[2] = now_ms() - t1;
  const shloc_func *f = NULL;
  if (!st) {
    f = shloc_module_entry(m, o->entry);
    if (!f && o->entry)
      st = shloc_status_error(SHLOC_ERR_NOT_FOUND, NULL, 0, 0, "%s: no function @%s", o->path, o->entry);
    else if (!f)
      st = shloc_status_error(SHLOC_ERR_NOT_FOUND, NULL, 0, 0,
                              "%s: no entry function: expected @main or exactly one function (use --entry)", o->path);
  }
  if (!st) st = build_registry(o, &reg);
  uint32_t grid_r = 1, grid_p = 1;
  if (!st) st = shloc_spmd_devices(m, &grid_r, &grid_p);
  /* A jax.export envelope keeps its calling convention on one device (unless --entry). */
  bool envelope = !o->entry && !st && shloc_module_jax_export(m);
  bool flags = o->replicas || o->partitions || o->per_device || o->mpi;
  bool spmd = flags || (grid_r * grid_p > 1 && !envelope);
  if (!st && spmd && envelope)
    st = shloc_status_error(SHLOC_ERR_UNSUPPORTED, NULL, 0, 0,
                            "%s: jax.export envelopes run on one device (--replicas, --partitions and "
                            "--input-per-device need a module, or --entry)",
                            o->path);
  else if (!st && spmd) st = run_spmd(o, m, f, reg);
  shloc_npy_phases np = {0};
  if (!st && !spmd) {
    /* An envelope's @main follows JAX's calling convention (unless --entry
     * picks another function): the user passes what the exported function took. */
    shloc_npy_run run = {
        .inputs = o->inputs.v,
        .n_inputs = (size_t)o->inputs.n,
        .outputs = o->outputs.v,
        .n_outputs = (size_t)o->outputs.n,
        .jax_convention = !o->entry,
        .repeat = o->repeat,
        .fresh_outputs = o->fresh,
        .print = o->print || (!o->outputs.n && !o->time) ? print_result : NULL,
        .run_ms = ms,
        .phases = &np,
    };
    st = shloc_npy_run_func(m, f, reg, &run);
  }
  if (!st && o->phases && !spmd) print_phases(ph, &np, ms[0]);
  if (!st && o->time) print_times(ms, o->repeat);
  /* Under MPI every rank reports its own error (those stopped by another
   * rank's failure name it). */
  if (st) report(st, text, len);
  shloc_ffi_registry_destroy(reg);
  shloc_module_destroy(m);
  free(ms);
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
    } else if (strcmp(a, "--profile-phases") == 0) {
      o.phases = true;
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
    } else if (strcmp(a, "--mpi") == 0) {
      o.mpi = true;
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
  if (ok && o.mpi) {
    shloc_status st = shloc_mpi_open(NULL, NULL, &o.mpi_handle);
    if (st) {
      fprintf(stderr, "shloc run: %s\n", shloc_status_message(st));
      shloc_status_free(st);
      ok = false;
    }
  }
  cli_input in;
  if (ok) {
    rc = 1;
    double ph[3], t0 = now_ms();
    if (cli_input_open(o.path, &in)) {
      ph[0] = now_ms() - t0;
      shloc_context *ctx = shloc_context_create();
      rc = ctx ? run_module(&o, ctx, in.text, in.len, ph) : 1;
      shloc_context_destroy(ctx);
      cli_input_close(&in);
    }
  }
  if (o.mpi_handle) {
    fflush(stdout);
    /* After a failure peers may be blocked in calls no message completes: end the job. */
    shloc_mpi_close(o.mpi_handle, shloc_mpi_failed_rank(o.mpi_handle) >= 0, rc ? rc : 1);
  }
  free(o.inputs.v);
  free(o.outputs.v);
  free(o.ffi.v);
  free(o.plugins.v);
  return rc;
}
