/* One shloc context for a whole cmocka group: pass group_setup and
 * group_teardown to cmocka_run_group_tests and use `ctx` in the tests.
 * Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_GROUP_CTX_H
#define SHLOC_TESTS_GROUP_CTX_H

#include "shloc/shloc.h"

static shloc_context *ctx;

static int group_setup(void **state) {
  (void)state;
  ctx = shloc_context_create();
  return ctx ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  shloc_context_destroy(ctx);
  return 0;
}

#endif
