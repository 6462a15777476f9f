/* OK(call): a shloc call that must succeed; otherwise the test fails with
 * the call and its message.  Include after <cmocka.h> and shloc/shloc.h. */
#ifndef SHLOC_TESTS_OK_H
#define SHLOC_TESTS_OK_H

#define OK(call)                                                          \
  do {                                                                    \
    shloc_status st_ = (call);                                            \
    if (st_) fail_msg("%s failed: %s", #call, shloc_status_message(st_)); \
  } while (0)

#endif
