/* shloc public API: contexts, modules (parse, verify, print), statuses.
 *
 * Every function that can fail returns a shloc_status; NULL means success.
 * A non-NULL status owns a message and a source location and must be released
 * with shloc_status_free.  The library never prints, exits or aborts on bad
 * input. */
#ifndef SHLOC_SHLOC_H
#define SHLOC_SHLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHLOC_API __attribute__((visibility("default")))

/* ---- statuses ---------------------------------------------------------- */

typedef enum {
  SHLOC_OK = 0,
  SHLOC_ERR_PARSE,         /* malformed text */
  SHLOC_ERR_VERIFY,        /* well-formed text, invalid program */
  SHLOC_ERR_UNSUPPORTED,   /* valid program using something shloc does not run */
  SHLOC_ERR_RUNTIME,       /* failure while executing (handler error, ...) */
  SHLOC_ERR_CHECK,         /* a check.* op or target found a mismatch */
  SHLOC_ERR_IO,            /* file system */
  SHLOC_ERR_OOM,           /* allocation failed */
  SHLOC_ERR_LIMIT,         /* a configured limit was exceeded */
  SHLOC_ERR_INVALID_ARG,   /* caller passed something invalid */
  SHLOC_ERR_NOT_FOUND,     /* unknown name (entry function, handler, symbol) */
  SHLOC_ERR_ALREADY_EXISTS,
} shloc_code;

typedef struct shloc_status_payload *shloc_status;

SHLOC_API shloc_code shloc_status_code(shloc_status st);
SHLOC_API const char *shloc_status_message(shloc_status st);
/* File, line and column of the offending source position (file may be NULL).
 * For binary input (portable artifacts) line is 0 and col is the byte offset. */
SHLOC_API void shloc_status_location(shloc_status st, const char **file, int *line, int *col);
/* Name of the operation the error is about, or NULL. */
SHLOC_API const char *shloc_status_op(shloc_status st);
SHLOC_API void shloc_status_free(shloc_status st);
/* Renders MLIR-style: "file:line:col: error: message", then the source line
 * and a caret when `source` (the whole file text) is given.  Returns a malloc'd
 * string the caller frees, or NULL when out of memory. */
SHLOC_API char *shloc_status_render(shloc_status st, const char *source, size_t source_len);

/* ---- context ----------------------------------------------------------- */

/* Limits that bound the work and memory spent on untrusted input. */
typedef struct {
  size_t max_file_bytes;       /* largest accepted source text */
  uint32_t max_nesting;        /* brackets, regions, nested attributes */
  uint64_t max_elements;       /* elements in one tensor type */
  size_t max_attr_text_bytes;  /* one attribute written as text (builder API) */
} shloc_limits;

typedef struct shloc_context shloc_context;

SHLOC_API shloc_context *shloc_context_create(void);
SHLOC_API void shloc_context_destroy(shloc_context *ctx);
/* The context's limits; the caller may change them before parsing. */
SHLOC_API shloc_limits *shloc_context_limits(shloc_context *ctx);

/* ---- modules ----------------------------------------------------------- */

typedef struct shloc_module shloc_module;

/* Parses MLIR text (pretty or generic form).  `filename` is used in
 * diagnostics; `first_line` is the line number of text[0] in that file (1 for
 * a whole file; larger for a --split-input-file chunk).  The module keeps its
 * own copy of nothing but what it needs: `text` may be freed afterwards. */
SHLOC_API shloc_status shloc_module_parse(shloc_context *ctx, const char *filename, const char *text, size_t len,
                                          int first_line, shloc_module **out_module);
/* Like shloc_module_parse, but the module borrows `text` instead of copying
 * it: SSA names, opaque attributes and large hex constants refer into it, so
 * `text` must stay valid and unchanged until shloc_module_destroy.  For input
 * that is already stable in memory, such as a whole file read by the caller,
 * it saves a copy of the input (`text` need not be NUL-terminated). */
SHLOC_API shloc_status shloc_module_parse_borrowed(shloc_context *ctx, const char *filename, const char *text,
                                                   size_t len, int first_line, shloc_module **out_module);
/* Structural checks (dominance, regions, symbols) and per-op type rules.
 * Verifying and printing use scratch space in the module's values: do not
 * verify or print one module on two threads at once. */
SHLOC_API shloc_status shloc_module_verify(shloc_module *m);

enum {
  SHLOC_PRINT_GENERIC = 1u << 0,   /* "dialect.op"(...) <{props}> ({...}) {attrs} : (...) -> ... */
  SHLOC_PRINT_DEBUGINFO = 1u << 1, /* keep loc(...) annotations and #loc definitions */
  SHLOC_PRINT_ASSUME_VERIFIED = 1u << 2, /* the caller verified the module: skip the check below */
};
/* Prints the module; *out is malloc'd and NUL-terminated.  As in MLIR, the
 * printer first verifies the module (unless SHLOC_PRINT_ASSUME_VERIFIED) and
 * prints an invalid one in generic form, which needs no op to be well formed.
 * Value names are kept in the module while printing (one thread at a time,
 * as for shloc_module_verify). */
SHLOC_API shloc_status shloc_module_print(shloc_module *m, unsigned flags, char **out, size_t *out_len);
/* Receives printed text in pieces; returns false to stop (an I/O error). */
typedef bool (*shloc_write_fn)(void *user, const char *data, size_t len);
/* Prints the module like shloc_module_print but streams it to `write` in
 * pieces instead of building one string.  A false return from `write` stops
 * printing and gives SHLOC_ERR_IO. */
SHLOC_API shloc_status shloc_module_write(shloc_module *m, unsigned flags, shloc_write_fn write, void *user);
SHLOC_API void shloc_module_destroy(shloc_module *m);

#ifdef __cplusplus
}
#endif
#endif
