/* print(m, flags): the module printed (malloc'd), or the test fails.
 * Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_PRINT_OK_H
#define SHLOC_TESTS_PRINT_OK_H

#include <string.h>

#include "shloc/shloc.h"

static inline char *print(shloc_module *m, unsigned flags) {
  char *out = NULL;
  size_t len = 0;
  shloc_status st = shloc_module_print(m, flags, &out, &len);
  if (st) fail_msg("print failed: %s", shloc_status_message(st));
  assert_non_null(out);
  assert_int_equal(strlen(out), len);
  return out;
}

#endif
