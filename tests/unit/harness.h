/* Shared by the kernel and fusion tests: MLIR text -> verified module ->
 * planned @main -> runs without arguments, the module checking its own
 * results through check ops.  Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_HARNESS_H
#define SHLOC_TESTS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

/* Sees the planned executable before its first run. */
typedef void run_planned_fn(shloc_executable *x, void *arg);

/* Parses `text` in `c`, verifies it, plans @main and runs it `runs` times
 * (a later run reuses frames and scratch), freeing the results; `planned`
 * (may be NULL) is called in between.  Returns the first error, NULL when
 * everything passed; a module that executed no check is an error. */
static inline shloc_status run_main(shloc_context *c, const char *text, int runs, run_planned_fn *planned,
                                    void *arg) {
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(c, "test.mlir", text, strlen(text), 1, &m);
  if (!st) st = shloc_module_verify(m);
  shloc_executable *x = NULL;
  const shl_op *f = NULL;
  if (!st) {
    f = module_find_func(m, str_of("main"));
    if (!f) st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "no @main");
  }
  if (!st) st = executable_create(m, f, NULL, &x);
  if (!st && planned) planned(x, arg);
  for (int rep = 0; rep < runs && !st; rep++) {
    uint32_t n_out = func_type(f)->n_out;
    shl_buf *res = calloc(n_out + 1, sizeof *res);
    if (!res) fail_msg("out of memory");
    st = executable_run(x, NULL, res);
    if (!st)
      for (uint32_t i = 0; i < n_out; i++) free(res[i].data);
    free(res);
  }
  /* A self-checking module that checked nothing proves nothing. */
  if (!st && x && runs > 0 && !executable_checks_run(x))
    st = st_error(SHLOC_ERR_CHECK, NULL, NULL, "the module ran but executed no check op");
  executable_destroy(x);
  shloc_module_destroy(m);
  return st;
}

/* run_main in a fresh context; on an error prints the diagnostic rendered
 * against `text` and fails the test. */
static inline void run_main_ok(const char *text, int runs, run_planned_fn *planned, void *arg) {
  shloc_context *c = shloc_context_create();
  if (!c) fail_msg("no context");
  shloc_status st = run_main(c, text, runs, planned, arg);
  if (st) {
    char *msg = shloc_status_render(st, text, strlen(text));
    fprintf(stderr, "%s\n", msg ? msg : shloc_status_message(st));
    free(msg);
    shloc_status_free(st);
  }
  shloc_context_destroy(c);
  assert_null(st);
}

/* Parses, verifies and runs @main of `text` once; fails the test with the message on error. */
static inline void run_ok(const char *text) { run_main_ok(text, 1, NULL, NULL); }

#endif
