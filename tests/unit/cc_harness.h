/* Shared by the test_custom_call_*.c tests: a registry of handlers for the
 * group, MLIR text -> verified module -> executable (public API, with a
 * registry) -> run on given tensors.  The status checks and new_registry
 * also serve the test_ffi_*.c tests of the internal registry (ffi/ffi.h).
 * Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_CC_HARNESS_H
#define SHLOC_TESTS_CC_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi.h"
#include "shloc/executable.h"
#include "shloc/ffi_registry.h"

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shloc_executable *x;
} cc_prog;

static inline void assert_ok(shloc_status st) {
  if (st) fail_msg("unexpected error: %s", shloc_status_message(st));
}

/* Asserts `st` is an error with `code` whose message contains `needle`; frees it. */
static inline void expect_error(shloc_status st, shloc_code code, const char *needle) {
  if (!st) fail_msg("expected an error containing '%s'", needle);
  if (shloc_status_code(st) != code)
    fail_msg("code %d, expected %d: %s", (int)shloc_status_code(st), (int)code, shloc_status_message(st));
  if (!strstr(shloc_status_message(st), needle)) fail_msg("message '%s' lacks '%s'", shloc_status_message(st), needle);
  shloc_status_free(st);
}

/* Parses, verifies (when `verify`) and plans `text`'s @main with `reg`.  On
 * failure returns the status and leaves nothing allocated. */
static inline shloc_status cc_build_opt(const char *text, shloc_ffi_registry *reg, bool verify, cc_prog *p) {
  memset(p, 0, sizeof *p);
  p->ctx = shloc_context_create();
  if (!p->ctx) fail_msg("no context");
  shloc_status st = shloc_module_parse(p->ctx, "t.mlir", text, strlen(text), 1, &p->m);
  if (!st && verify) st = shloc_module_verify(p->m);
  if (!st) st = shloc_executable_create(p->m, "main", reg, &p->x);
  if (st) {
    shloc_module_destroy(p->m);
    shloc_context_destroy(p->ctx);
    memset(p, 0, sizeof *p);
  }
  return st;
}

static inline shloc_status cc_build(const char *text, shloc_ffi_registry *reg, cc_prog *p) {
  return cc_build_opt(text, reg, true, p);
}

static inline void cc_free(cc_prog *p) {
  shloc_executable_destroy(p->x);
  shloc_module_destroy(p->m);
  shloc_context_destroy(p->ctx);
  memset(p, 0, sizeof *p);
}

/* Runs with inputs whose types come from the signature; `in[i]` points to
 * argument i's row-major data.  Results are malloc'd into out[] (free each
 * .data).  */
static inline shloc_status cc_run(cc_prog *p, void *const *in, shloc_tensor *out) {
  size_t n = shloc_executable_num_args(p->x);
  shloc_tensor args[8];
  if (n > 8) fail_msg("too many arguments");
  for (size_t i = 0; i < n; i++) {
    assert_ok(shloc_executable_arg_type(p->x, i, &args[i]));
    args[i].data = in[i];
  }
  return shloc_executable_run(p->x, args, n, out, shloc_executable_num_results(p->x));
}

static inline void cc_free_results(shloc_tensor *out, size_t n) {
  for (size_t i = 0; i < n; i++) free(out[i].data);
}

/* Builds, runs once with `in`, and keeps the program alive in *p (the caller
 * inspects what handlers recorded, then calls cc_free). */
static inline void cc_build_run(const char *text, shloc_ffi_registry *reg, void *const *in, shloc_tensor *out,
                                cc_prog *p) {
  assert_ok(cc_build(text, reg, p));
  assert_ok(cc_run(p, in, out));
}

static inline shloc_ffi_registry *cc_registry(void) {
  shloc_ffi_registry *r;
  assert_ok(shloc_ffi_registry_create(&r));
  return r;
}

/* The internal registry, for the tests below the public API. */
static inline ffi_registry *new_registry(void) {
  ffi_registry *r;
  assert_ok(ffi_registry_create(&r));
  return r;
}

/* One target for cc_setup: a typed handler, a legacy function or a bundle
 * (exactly one of them set). */
typedef struct {
  const char *target, *platform;
  XLA_FFI_Handler *typed;
  shloc_legacy_fn legacy;
  const XLA_FFI_Handler_Bundle *bundle;
} cc_target;

/* Group setup: a registry with the `n` targets in *reg, which is also the
 * group state that cc_teardown destroys.  Prints why and fails the group
 * when a target is refused. */
static inline int cc_setup(void **state, shloc_ffi_registry **reg, const cc_target *t, size_t n) {
  shloc_status st = shloc_ffi_registry_create(reg);
  for (size_t i = 0; i < n && !st; i++) {
    if (t[i].typed) st = shloc_ffi_register_handler(*reg, t[i].target, t[i].platform, t[i].typed);
    else if (t[i].legacy) st = shloc_ffi_register_legacy(*reg, t[i].target, t[i].platform, t[i].legacy);
    else st = shloc_ffi_register_bundle(*reg, t[i].target, t[i].platform, t[i].bundle, 0);
  }
  if (st) {
    fprintf(stderr, "%s\n", shloc_status_message(st));
    shloc_status_free(st);
    shloc_ffi_registry_destroy(*reg);
    *reg = NULL;
    return -1;
  }
  *state = *reg;
  return 0;
}

static inline int cc_teardown(void **state) {
  shloc_ffi_registry_destroy(*state);
  return 0;
}

#endif
