/* The C of `shloc compile`: header, entry points and executable driver (see
 * aot_c.h).  The driver's body is fixed text (driver_main below) over a few
 * generated tables, so every executable behaves alike. */
#include "codegen/aot_c.h"

#include <stdlib.h>
#include <string.h>

#include "text/print_value.h"
#include "text/printer.h"

static bool is_public_def(const shl_op *f) {
  const shl_attr *vis = op_attr(f, "sym_visibility");
  return op_is(f, OP_FUNC) && func_body(f) && !(vis && vis->kind == AT_STRING && !str_eq_c(vis->u.str, "public"));
}

static bool c_ident(shl_str s) {
  if (!s.n || (s.p[0] >= '0' && s.p[0] <= '9')) return false;
  for (size_t i = 0; i < s.n; i++) {
    char c = s.p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

char *aot_c_module_name(const shloc_module *m, const char *fallback) {
  const shl_attr *n = op_attr(m->top, "sym_name");
  shl_str s = n && n->kind == AT_STRING && n->u.str.n ? n->u.str : (shl_str){fallback, strlen(fallback)};
  char *out = malloc(s.n + 2);
  if (!out) return NULL;
  size_t k = 0;
  if (!s.n || (s.p[0] >= '0' && s.p[0] <= '9')) out[k++] = '_';
  for (size_t i = 0; i < s.n; i++) out[k++] = c_ident((shl_str){&s.p[i], 1}) || (s.p[i] >= '0' && s.p[i] <= '9') ? s.p[i] : '_';
  out[k] = '\0';
  return out;
}

static const shl_block *top_block(const shloc_module *m) { return m->top->regions[0].blocks[0]; }

shl_status aot_c_entry(const shloc_module *m, const char *entry, const shl_op **out) {
  *out = NULL;
  const shl_op *only = NULL;
  int n_public = 0;
  for (const shl_op *f = top_block(m)->first; f; f = f->next) {
    if (!is_public_def(f)) continue;
    shl_str name = func_sym_name(f);
    if (entry ? str_eq_c(name, entry) : str_eq_c(name, "main")) {
      *out = f;
      return NULL;
    }
    only = f;
    n_public++;
  }
  if (!entry && n_public == 1) {
    *out = only;
    return NULL;
  }
  return st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, entry ? "no public function @%s to run" : "%s",
                  entry ? entry : "no @main and not exactly one public function to run");
}

/* C element type of a tensor's storage: fixed-width integers, float/double,
 * and raw bits for the types C has no name for. */
static const char *c_elem(shl_dtype dt) {
  switch (dt) {
  case DT_I1: return "uint8_t";
  case DT_I8: case DT_SI8: case DT_I2: case DT_I4: case DT_SI2: case DT_SI4: return "int8_t";
  case DT_I16: case DT_SI16: return "int16_t";
  case DT_I32: case DT_SI32: return "int32_t";
  case DT_I64: case DT_SI64: return "int64_t";
  case DT_UI16: return "uint16_t";
  case DT_UI32: return "uint32_t";
  case DT_UI64: return "uint64_t";
  case DT_F32: case DT_TF32: case DT_C64: return "float";
  case DT_F64: case DT_C128: return "double";
  case DT_F16: case DT_BF16: return "uint16_t";
  default: return "uint8_t";
  }
}

static shl_status check_sig_type(const shl_op *f, const shl_type *t) {
  if (t->kind == TY_TENSOR && type_is_static(t) && dtype_bytes(type_storage_dtype(t))) return NULL;
  return op_error(f, SHLOC_ERR_UNSUPPORTED, "has an argument or result that is not a static tensor; "
                                            "a C entry point cannot carry it");
}

static void type_comment(shl_printer *pr, const shl_type *t) {
  char *s = NULL;
  shl_status st = print_type_text(t, &s);
  if (st) shloc_status_free(st);
  pr_puts(pr, s ? s : "?");
  free(s);
}

static void upper(shl_printer *pr, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    pr_printf(pr, "%c", c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
}

/* int MODULE_FUNC(const T *arg0, ..., R *res0, ...) */
static void prototype(shl_printer *pr, const aot_c_options *o, const shl_op *f) {
  const shl_type *ft = func_type(f);
  shl_str name = func_sym_name(f);
  pr_printf(pr, "int %s_%.*s(", o->c_module, (int)name.n, name.p);
  for (uint32_t i = 0; i < ft->n_in; i++)
    pr_printf(pr, "%sconst %s *arg%u", i ? ", " : "", c_elem(type_storage_dtype(ft->in[i])), (unsigned)i);
  for (uint32_t i = 0; i < ft->n_out; i++)
    pr_printf(pr, "%s%s *res%u", i || ft->n_in ? ", " : "", c_elem(type_storage_dtype(ft->out[i])), (unsigned)i);
  if (!ft->n_in && !ft->n_out) pr_puts(pr, "void");
  pr_puts(pr, ")");
}

static void shape_macros(shl_printer *pr, const aot_c_options *o, shl_str fname, const char *role, uint32_t i,
                         const shl_type *t) {
  pr_puts(pr, "#define ");
  upper(pr, o->c_module, strlen(o->c_module));
  pr_puts(pr, "_");
  upper(pr, fname.p, fname.n);
  pr_printf(pr, "_%s%u_SHAPE {", role, (unsigned)i);
  for (int k = 0; k < t->rank; k++) pr_printf(pr, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
  pr_puts(pr, "}\n#define ");
  upper(pr, o->c_module, strlen(o->c_module));
  pr_puts(pr, "_");
  upper(pr, fname.p, fname.n);
  pr_printf(pr, "_%s%u_BYTES %lldu\n", role, (unsigned)i, (long long)type_num_bytes(t));
}

static void header_entry(shl_printer *pr, const aot_c_options *o, const shl_op *f) {
  const shl_type *ft = func_type(f);
  shl_str name = func_sym_name(f);
  pr_printf(pr, "\n/* @%.*s", (int)name.n, name.p);
  for (uint32_t i = 0; i < ft->n_in; i++) {
    pr_printf(pr, "\n *   arg%u: ", (unsigned)i);
    type_comment(pr, ft->in[i]);
  }
  for (uint32_t i = 0; i < ft->n_out; i++) {
    pr_printf(pr, "\n *   res%u: ", (unsigned)i);
    type_comment(pr, ft->out[i]);
    pr_printf(pr, " (%lld bytes, caller-allocated)", (long long)type_num_bytes(ft->out[i]));
  }
  pr_puts(pr, " */\n");
  for (uint32_t i = 0; i < ft->n_in; i++) shape_macros(pr, o, name, "ARG", i, ft->in[i]);
  for (uint32_t i = 0; i < ft->n_out; i++) shape_macros(pr, o, name, "RES", i, ft->out[i]);
  prototype(pr, o, f);
  pr_puts(pr, ";\n");
}

static void emit_header(shl_printer *pr, const shloc_module *m, const aot_c_options *o) {
  pr_printf(pr,
            "/* Generated by `shloc compile` from %s: C entry points of the compiled module.\n"
            " * Inputs: read-only, densely packed row-major buffers of the shapes below.\n"
            " * Outputs: caller-allocated buffers of the sizes below, filled by the call\n"
            " * (they must not overlap the inputs).  Element types: i1 one byte (0/1),\n"
            " * f16/bf16 their 16-bit patterns, complex numbers (re, im) pairs.\n"
            " * Returns the number of check.* failures during the call (0: none).\n"
            " * Link the object next to this header with libshloc (README: \"Compiling\n"
            " * through upstream MLIR\"). */\n"
            "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
            o->source, o->guard, o->guard);
  for (const shl_op *f = top_block(m)->first; f; f = f->next)
    if (is_public_def(f)) header_entry(pr, o, f);
  pr_puts(pr, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

/* ---- entry points ---- */

static void descriptor_type(shl_printer *pr, int rank) { pr_printf(pr, "aot_md%d", rank); }

static void descriptor_init(shl_printer *pr, const shl_type *t, const char *var, const char *ptr, uint32_t i) {
  pr_puts(pr, "  ");
  descriptor_type(pr, t->rank);
  pr_printf(pr, " %s%u = {(void *)%s%u, (void *)%s%u, 0", var, (unsigned)i, ptr, (unsigned)i, ptr, (unsigned)i);
  if (t->rank) {
    pr_puts(pr, ", {");
    for (int k = 0; k < t->rank; k++) pr_printf(pr, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
    pr_puts(pr, "}, {");
    int64_t stride = 1, strides[64];
    for (int k = t->rank - 1; k >= 0; k--) {
      strides[k] = stride;
      stride *= t->dims[k];
    }
    for (int k = 0; k < t->rank; k++) pr_printf(pr, "%s%lld", k ? ", " : "", (long long)strides[k]);
    pr_puts(pr, "}");
  }
  pr_puts(pr, "};\n");
}

/* The compiled function takes its results as trailing out-parameters
 * (buffer-results-to-out-params): descriptors of the caller's buffers. */
static void entry_body(shl_printer *pr, const aot_c_options *o, const shl_op *f) {
  const shl_type *ft = func_type(f);
  shl_str name = func_sym_name(f);
  uint32_t n_params = ft->n_in + ft->n_out;
  pr_printf(pr, "extern void _mlir_ciface_%s%.*s(", o->func_prefix, (int)name.n, name.p);
  for (uint32_t i = 0; i < n_params; i++) pr_puts(pr, i ? ", void *" : "void *");
  if (!n_params) pr_puts(pr, "void");
  pr_puts(pr, ");\n\n");
  prototype(pr, o, f);
  pr_puts(pr, " {\n  uint64_t failed = shloc_aot_checks_failed();\n");
  for (uint32_t i = 0; i < ft->n_in; i++) descriptor_init(pr, ft->in[i], "a", "arg", i);
  for (uint32_t i = 0; i < ft->n_out; i++) descriptor_init(pr, ft->out[i], "r", "res", i);
  pr_printf(pr, "  _mlir_ciface_%s%.*s(", o->func_prefix, (int)name.n, name.p);
  for (uint32_t i = 0; i < ft->n_in; i++) pr_printf(pr, "%s&a%u", i ? ", " : "", (unsigned)i);
  for (uint32_t i = 0; i < ft->n_out; i++) pr_printf(pr, "%s&r%u", i || ft->n_in ? ", " : "", (unsigned)i);
  pr_puts(pr, ");\n  return (int)(shloc_aot_checks_failed() - failed);\n}\n");
}

/* The executable's main(): fixed text over the tables emitted before it
 * (aot_n_args, aot_arg_types, aot_n_res, aot_res_types, aot_res_bytes,
 * aot_source, aot_call).  Generated names start with aot_, never with the
 * library's shloc_. */
static const char driver_main[] =
    "\n"
    "static int aot_cmp_double(const void *a, const void *b) {\n"
    "  double x = *(const double *)a, y = *(const double *)b;\n"
    "  return (x > y) - (x < y);\n"
    "}\n"
    "\n"
    "static int aot_fail(shloc_status st) {\n"
    "  char *msg = shloc_status_render(st, NULL, 0);\n"
    "  fprintf(stderr, \"%s\\n\", msg ? msg : shloc_status_message(st));\n"
    "  free(msg);\n"
    "  shloc_status_free(st);\n"
    "  return 2;\n"
    "}\n"
    "\n"
    "/* libgomp's workers (libshloc's kernels) spin after each parallel region\n"
    " * and take the core the serial code needs; as `shloc run` does, choose the\n"
    " * passive policy unless the user chose one (libgomp reads it when it\n"
    " * loads, hence the re-execution). */\n"
    "static void aot_wait_policy(char **argv) {\n"
    "  if (getenv(\"OMP_WAIT_POLICY\") || getenv(\"GOMP_SPINCOUNT\")) return;\n"
    "  setenv(\"OMP_WAIT_POLICY\", \"passive\", 1);\n"
    "  execv(\"/proc/self/exe\", argv);\n"
    "  unsetenv(\"OMP_WAIT_POLICY\");\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "  aot_wait_policy(argv);\n"
    "  const char *inputs[aot_n_args + 1], *outdir = NULL;\n"
    "  int n_inputs = 0, print = 0, quiet = 0, time_it = 0;\n"
    "  long repeat = 1;\n"
    "  for (int i = 1; i < argc; i++) {\n"
    "    const char *a = argv[i];\n"
    "    if ((!strcmp(a, \"--input\") || !strcmp(a, \"-i\")) && i + 1 < argc) {\n"
    "      if (n_inputs == aot_n_args) {\n"
    "        fprintf(stderr, \"%s: expected %d input(s)\\n\", argv[0], aot_n_args);\n"
    "        return 2;\n"
    "      }\n"
    "      inputs[n_inputs++] = argv[++i];\n"
    "    } else if (!strcmp(a, \"-o\") && i + 1 < argc) {\n"
    "      outdir = argv[++i];\n"
    "    } else if (!strcmp(a, \"--repeat\") && i + 1 < argc) {\n"
    "      repeat = strtol(argv[++i], NULL, 10);\n"
    "      if (repeat < 1 || repeat > 1000000) {\n"
    "        fprintf(stderr, \"%s: --repeat expects a count from 1 to 1000000\\n\", argv[0]);\n"
    "        return 2;\n"
    "      }\n"
    "    } else if (!strcmp(a, \"--print\")) {\n"
    "      print = 1;\n"
    "    } else if (!strcmp(a, \"--quiet\")) {\n"
    "      quiet = 1;\n"
    "    } else if (!strcmp(a, \"--time\")) {\n"
    "      time_it = 1;\n"
    "    } else {\n"
    "      fprintf(stderr,\n"
    "              \"usage: %s [--input A.npy ...] [-o DIR] [--print] [--quiet] [--repeat N] [--time]\\n\"\n"
    "              \"Runs @%s of %s (compiled by shloc compile): one --input per argument;\\n\"\n"
    "              \"-o DIR writes DIR/result<i>.npy; results are printed without -o (--print: also\\n\"\n"
    "              \"with it, --quiet: never).  Exit 0 when every check passed, 1 when one failed.\\n\",\n"
    "              argv[0], aot_entry, aot_source);\n"
    "      return strcmp(a, \"--help\") ? 2 : 0;\n"
    "    }\n"
    "  }\n"
    "  if (n_inputs != aot_n_args) {\n"
    "    fprintf(stderr, \"%s: expected %d input(s) (--input FILE.npy), got %d\\n\", argv[0], aot_n_args, n_inputs);\n"
    "    return 2;\n"
    "  }\n"
    "  void *in[aot_n_args + 1], *out[aot_n_res + 1];\n"
    "  for (int i = 0; i < aot_n_args; i++) {\n"
    "    shloc_status st = shloc_aot_read_npy(inputs[i], aot_arg_types[i], (uint32_t)i, &in[i]);\n"
    "    if (st) return aot_fail(st);\n"
    "  }\n"
    "  for (int i = 0; i < aot_n_res; i++) {\n"
    "    out[i] = malloc(aot_res_bytes[i] ? aot_res_bytes[i] : 1);\n"
    "    if (!out[i]) {\n"
    "      fprintf(stderr, \"%s: out of memory for result #%d\\n\", argv[0], i);\n"
    "      return 2;\n"
    "    }\n"
    "  }\n"
    "  double *ms = malloc((size_t)repeat * sizeof *ms);\n"
    "  if (!ms) return 2;\n"
    "  for (long r = 0; r < repeat; r++) {\n"
    "    struct timespec t0, t1;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t0);\n"
    "    aot_call(in, out);\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t1);\n"
    "    ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;\n"
    "  }\n"
    "  if (time_it) {\n"
    "    qsort(ms, (size_t)repeat, sizeof *ms, aot_cmp_double);\n"
    "    fprintf(stderr, \"%s: %ld run%s, median %.3f ms, min %.3f ms\\n\", argv[0], repeat, repeat == 1 ? \"\" : \"s\",\n"
    "            ms[repeat / 2], ms[0]);\n"
    "  }\n"
    "  free(ms);\n"
    "  for (int i = 0; i < aot_n_res; i++) {\n"
    "    if (outdir) {\n"
    "      char path[4096];\n"
    "      snprintf(path, sizeof path, \"%s/result%d.npy\", outdir, i);\n"
    "      shloc_status st = shloc_aot_write_npy(path, aot_res_types[i], out[i]);\n"
    "      if (st) return aot_fail(st);\n"
    "    }\n"
    "    if (!quiet && (print || !outdir)) {\n"
    "      char *text = NULL;\n"
    "      shloc_status st = shloc_aot_format(aot_res_types[i], out[i], &text);\n"
    "      if (st) return aot_fail(st);\n"
    "      puts(text);\n"
    "      free(text);\n"
    "    }\n"
    "  }\n"
    "  for (int i = 0; i < aot_n_args; i++) free(in[i]);\n"
    "  for (int i = 0; i < aot_n_res; i++) free(out[i]);\n"
    "  uint64_t failed = shloc_aot_checks_failed();\n"
    "  if (!failed) return 0;\n"
    "  aot_fail(shloc_aot_check_first_failure(aot_source));\n"
    "  fprintf(stderr, \"%s: %llu of %llu checks failed\\n\", argv[0], (unsigned long long)failed,\n"
    "          (unsigned long long)shloc_aot_checks_run());\n"
    "  return 1;\n"
    "}\n";

static void c_string(shl_printer *pr, const char *s) {
  pr_puts(pr, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') pr_printf(pr, "\\%c", *s);
    else if ((unsigned char)*s < 32) pr_printf(pr, "\\%03o", (unsigned char)*s);
    else pr_printf(pr, "%c", *s);
  }
  pr_puts(pr, "\"");
}

static void type_string(shl_printer *pr, const shl_type *t) {
  char *s = NULL;
  shl_status st = print_type_text(t, &s);
  if (st) shloc_status_free(st);
  c_string(pr, s ? s : "?");
  free(s);
}

static void emit_driver(shl_printer *pr, const aot_c_options *o, const shl_op *f) {
  const shl_type *ft = func_type(f);
  shl_str name = func_sym_name(f);
  pr_printf(pr, "\nenum { aot_n_args = %u, aot_n_res = %u };\nstatic const char *const aot_arg_types[] = {",
            (unsigned)ft->n_in, (unsigned)ft->n_out);
  for (uint32_t i = 0; i < ft->n_in; i++) {
    type_string(pr, ft->in[i]);
    pr_puts(pr, ", ");
  }
  pr_puts(pr, "NULL};\nstatic const char *const aot_res_types[] = {");
  for (uint32_t i = 0; i < ft->n_out; i++) {
    type_string(pr, ft->out[i]);
    pr_puts(pr, ", ");
  }
  pr_puts(pr, "NULL};\nstatic const size_t aot_res_bytes[] = {");
  for (uint32_t i = 0; i < ft->n_out; i++) pr_printf(pr, "%lldu, ", (long long)type_num_bytes(ft->out[i]));
  pr_puts(pr, "0};\nstatic const char aot_source[] = ");
  c_string(pr, o->source);
  pr_printf(pr, ";\nstatic const char aot_entry[] = \"%.*s\";\n\n", (int)name.n, name.p);
  pr_puts(pr, "static void aot_call(void *const *in, void *const *out) {\n  (void)in;\n  (void)out;\n  ");
  pr_printf(pr, "%s_%.*s(", o->c_module, (int)name.n, name.p);
  for (uint32_t i = 0; i < ft->n_in; i++) pr_printf(pr, "%sin[%u]", i ? ", " : "", (unsigned)i);
  for (uint32_t i = 0; i < ft->n_out; i++) pr_printf(pr, "%sout[%u]", i || ft->n_in ? ", " : "", (unsigned)i);
  pr_puts(pr, ");\n}\n");
  pr_puts(pr, driver_main);
}

static void emit_source(shl_printer *pr, const shloc_module *m, const aot_c_options *o) {
  pr_printf(pr, "/* Generated by `shloc compile` from %s: C entry points over upstream MLIR's C\n"
                " * interface (_mlir_ciface_*, memref descriptors). */\n",
            o->source);
  if (o->entry) pr_puts(pr, "#define _POSIX_C_SOURCE 200809L\n#include <stdio.h>\n#include <time.h>\n#include <unistd.h>\n");
  pr_puts(pr, "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n#include \"shloc/aot_runtime.h\"\n\n");
  bool ranks[65] = {0};
  for (const shl_op *f = top_block(m)->first; f; f = f->next) {
    if (!is_public_def(f)) continue;
    const shl_type *ft = func_type(f);
    for (uint32_t i = 0; i < ft->n_in; i++) ranks[ft->in[i]->rank] = true;
    for (uint32_t i = 0; i < ft->n_out; i++) ranks[ft->out[i]->rank] = true;
  }
  for (int r = 0; r <= 64; r++) {
    if (!ranks[r]) continue;
    pr_printf(pr, "typedef struct {\n  void *allocated, *aligned;\n  int64_t offset;\n");
    if (r) pr_printf(pr, "  int64_t sizes[%d], strides[%d];\n", r, r);
    pr_printf(pr, "} aot_md%d;\n", r);
  }
  for (const shl_op *f = top_block(m)->first; f; f = f->next) {
    if (!is_public_def(f)) continue;
    pr_puts(pr, "\n");
    prototype(pr, o, f);
    pr_puts(pr, ";\n");
    entry_body(pr, o, f);
  }
}

shl_status aot_c_emit(const shloc_module *m, const aot_c_options *o, char **header, char **source, char **exports) {
  *header = *source = *exports = NULL;
  const shl_op *entry = NULL;
  for (const shl_op *f = top_block(m)->first; f; f = f->next) {
    if (!is_public_def(f)) continue;
    if (!c_ident(func_sym_name(f)))
      return op_error(f, SHLOC_ERR_UNSUPPORTED, "has a name that is not a C identifier; a C entry point needs one");
    const shl_type *ft = func_type(f);
    for (uint32_t i = 0; i < ft->n_in; i++) ST_TRY(check_sig_type(f, ft->in[i]));
    for (uint32_t i = 0; i < ft->n_out; i++) ST_TRY(check_sig_type(f, ft->out[i]));
  }
  if (o->entry) ST_TRY(aot_c_entry(m, o->entry[0] ? o->entry : NULL, &entry));
  shl_printer h = {0}, c = {0}, x = {0};
  emit_header(&h, m, o);
  emit_source(&c, m, o);
  if (entry) emit_driver(&c, o, entry);
  for (const shl_op *f = top_block(m)->first; f; f = f->next) {
    shl_str name = func_sym_name(f);
    if (is_public_def(f)) pr_printf(&x, "%s_%.*s\n", o->c_module, (int)name.n, name.p);
  }
  pr_puts(&x, "");
  if (h.oom || c.oom || x.oom) {
    free(h.buf);
    free(c.buf);
    free(x.buf);
    return st_oom();
  }
  *header = h.buf;
  *source = c.buf;
  *exports = x.buf;
  return NULL;
}
