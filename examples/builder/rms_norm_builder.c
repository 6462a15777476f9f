/* Builds f(x) = rms_norm(x) * 2 with the builder API, prints it (pretty and
 * generic form) and runs it through the rms_norm FFI handler of
 * examples/rms_norm.
 *
 * The custom call carries both kinds of configuration:
 *   backend_config    {eps = 1e-5 : f32}  handler-visible (the FFI attributes)
 *   sdy.sharding_rule #sdy.op_sharding_rule<...>  compiler-visible, op level
 * plus row-major operand/result layouts.
 *
 *     rms_norm_builder path/to/librms_norm.so
 * (examples/builder/run.sh builds both and runs it.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "shloc/builder.h"
#include "shloc/executable.h"
#include "shloc/ffi_registry.h"

#define ROWS 4
#define COLS 8

static int fail(const char *what, shloc_status st) {
  char *msg = shloc_status_render(st, NULL, 0);
  fprintf(stderr, "%s: %s\n", what, msg ? msg : shloc_status_message(st));
  free(msg);
  shloc_status_free(st);
  return 1;
}

#define TRY(what, call)                     \
  do {                                      \
    shloc_status st_ = (call);              \
    if (st_) return fail((what), st_);      \
  } while (0)

/* f(x) = rms_norm(x) * 2 as @main. */
static int build(shloc_module *m) {
  const int64_t dims[2] = {ROWS, COLS};
  const shloc_type *t;
  TRY("type", shloc_type_tensor(m, "f32", 2, dims, &t));
  shloc_func *f;
  TRY("func", shloc_func_create(m, "main", 1, &t, 0, NULL, 0, &f));
  shloc_block *body = shloc_func_body(f);
  shloc_value *x = shloc_func_arg(f, 0);

  /* backend_config built with the attribute builder: {eps = 1e-5 : f32}. */
  const shloc_attr *eps, *cfg;
  TRY("eps", shloc_attr_float(m, "f32", 1e-5, &eps));
  const shloc_named_attr cfg_items[] = {{"eps", eps}};
  TRY("backend_config", shloc_attr_dict(m, 1, cfg_items, &cfg));

  static const int64_t row_major[2] = {1, 0};
  const int64_t *const layouts[1] = {row_major};
  const shloc_attr_pair mlir_attrs[] = {
      {"sdy.sharding_rule", "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=8}>"}};
  shloc_custom_call_spec cc = {
      .call_target_name = "rms_norm",
      .api_version = 4,
      .backend_config = cfg,
      .n_operands = 1,
      .operands = &x,
      .n_results = 1,
      .result_types = &t,
      .operand_layouts = layouts,
      .result_layouts = layouts,
      .n_mlir_attributes = 1,
      .mlir_attributes = mlir_attrs,
  };
  shloc_op *call;
  TRY("custom_call", shloc_build_custom_call(body, &cc, &call));

  shloc_value *two, *y;
  TRY("constant", shloc_build_constant_splat(body, t, 2.0, &two));
  TRY("multiply", shloc_build_binary(body, "stablehlo.multiply", shloc_op_result(call, 0), two, &y));
  TRY("return", shloc_func_return(f, 1, &y));
  TRY("verify", shloc_module_verify(m));
  return 0;
}

static int print(shloc_module *m, unsigned flags, const char *title) {
  char *text;
  TRY("print", shloc_module_print(m, flags, &text, NULL));
  printf("// %s\n%s\n", title, text);
  free(text);
  return 0;
}

static int run(shloc_module *m, const char *lib) {
  shloc_ffi_registry *reg;
  TRY("registry", shloc_ffi_registry_create(&reg));
  char spec[4096];
  snprintf(spec, sizeof spec, "%s:rms_norm", lib);
  shloc_status st = shloc_ffi_register_symbol(reg, "rms_norm", spec, SHLOC_FFI_TYPED);
  shloc_executable *x = NULL;
  if (!st) st = shloc_executable_create(m, "main", reg, &x);
  float in[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; i++) in[i] = (float)(i % 7) - 2.5f;
  const int64_t dims[2] = {ROWS, COLS};
  shloc_tensor arg = {XLA_FFI_DataType_F32, 2, dims, in, sizeof in}, res = {0};
  if (!st) st = shloc_executable_run(x, &arg, 1, &res, 1);
  shloc_executable_destroy(x);
  shloc_ffi_registry_destroy(reg);
  if (st) return fail("run", st);

  /* Reference: y = 2 * x / sqrt(mean(x^2) + eps), row by row. */
  const float *out = res.data;
  double worst = 0;
  for (int r = 0; r < ROWS; r++) {
    double ss = 0;
    for (int c = 0; c < COLS; c++) ss += (double)in[r * COLS + c] * in[r * COLS + c];
    double scale = 1.0 / sqrt(ss / COLS + 1e-5);
    for (int c = 0; c < COLS; c++) {
      double want = 2.0 * in[r * COLS + c] * scale, err = fabs(out[r * COLS + c] - want);
      if (err > worst) worst = err;
    }
  }
  printf("// result row 0:");
  for (int c = 0; c < COLS; c++) printf(" %.5f", out[c]);
  printf("\n// max |error| vs. reference: %.2e\n", worst);
  free(res.data);
  return worst < 1e-4 ? 0 : 1;
}

int main(int argc, char **argv) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  if (!ctx) return 1;
  shloc_status st = shloc_module_create(ctx, &m);
  int rc = st ? fail("module", st) : build(m);
  if (!rc) rc = print(m, 0, "pretty form");
  if (!rc) rc = print(m, SHLOC_PRINT_GENERIC, "generic form");
  if (!rc && argc > 1) rc = run(m, argv[1]);
  else if (!rc) printf("// pass the path of librms_norm.so to run it\n");
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return rc;
}
