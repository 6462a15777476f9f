/* Status values: NULL is success; failures carry code, message, position and
 * op name, allocated only when something goes wrong. */
#ifndef SHLOC_SUPPORT_STATUS_H
#define SHLOC_SUPPORT_STATUS_H

#include <stdarg.h>

#include "shloc/shloc.h"

typedef shloc_status shl_status;

/* A position in a source file (1-based line and column); in binary input
 * line 0 and col = the byte offset. */
typedef struct {
  const char *file;
  int line;
  int col;
} shl_srcpos;

struct shloc_status_payload {
  shloc_code code;
  int line, col;
  char *file; /* owned copies */
  char *op;
  char *message;
};

/* Builds a failure status.  `pos` and `op` may be NULL. */
shl_status st_error(shloc_code code, const shl_srcpos *pos, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
shl_status st_verror(shloc_code code, const shl_srcpos *pos, const char *op, const char *fmt, va_list ap);
/* Prefixes the message of `st` with "context: " (keeps code and position). */
shl_status st_annotate(shl_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fills in position/op of `st` if it has none yet. */
shl_status st_at(shl_status st, const shl_srcpos *pos, const char *op);
/* The preallocated out-of-memory status (never freed, safe to return when malloc fails). */
shl_status st_oom(void);
/* "out of memory: <what> needs <bytes> bytes" for an allocation whose size
 * the user should see (buffers, frames, inputs); st_oom() when even that
 * status cannot be allocated. */
shl_status st_oom_size(const char *what, size_t bytes);

#define ST_TRY(expr)                      \
  do {                                    \
    shl_status st_try_ = (expr);          \
    if (st_try_) return st_try_;          \
  } while (0)

#endif
