/* shloc public API: contexts, modules (parse, verify, print, the functions
 * and attributes they hold), statuses.
 *
 * The other public headers: shloc/executable.h (planning and running a
 * function, tensors, .npy files), shloc/ffi_registry.h (custom-call
 * handlers), shloc/lower.h (lowering passes and C shims), shloc/builder.h
 * (building modules), shloc/jax_export.h (jax.export envelopes),
 * shloc/jax_targets.h (JAX's LAPACK targets), shloc/xla_ffi.h (the XLA FFI
 * C API handlers are written against), shloc/ffi_shim.h (runtime of the
 * generated C shims).
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
/* A new failure status (for callers reporting their own errors alongside
 * the library's): `file` may be NULL; line 0 means no line. */
SHLOC_API shloc_status shloc_status_error(shloc_code code, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Prefixes the message of `st` with "context: " (keeps code and position);
 * returns the status to use from then on. */
SHLOC_API shloc_status shloc_status_annotate(shloc_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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

/* ---- source files ------------------------------------------------------ */

/* A whole input file in memory, for shloc_module_parse_borrowed (modules
 * parsed from it borrow its text: free it after them).  Large regular files
 * are read into fresh (huge-page) memory, which is faster to parse from than
 * a mapping of the page cache; "-" reads stdin.  The text is not
 * NUL-terminated.  SHLOC_ERR_IO ("cannot open: REASON", "cannot read file")
 * names the file as its location (line 0). */
typedef struct shloc_source shloc_source;
SHLOC_API shloc_status shloc_source_read(const char *path, shloc_source **out);
SHLOC_API const char *shloc_source_text(const shloc_source *s);
SHLOC_API size_t shloc_source_len(const shloc_source *s);
SHLOC_API void shloc_source_free(shloc_source *s);

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

/* ---- what a module holds ------------------------------------------------ *
 * Names and attribute names below are views into the module (not
 * NUL-terminated; `*len` receives their length) valid while it lives. */

/* The module's sym_name (`module @name`), or NULL. */
SHLOC_API const char *shloc_module_name(const shloc_module *m, size_t *len);
/* Attributes of the module op other than sym_name (mhlo.num_replicas, ...). */
SHLOC_API size_t shloc_module_num_attrs(const shloc_module *m);
SHLOC_API const char *shloc_module_attr_name(const shloc_module *m, size_t i, size_t *len);
/* Attribute i as MLIR prints it ("2 : i32"); *out is malloc'd. */
SHLOC_API shloc_status shloc_module_attr_text(const shloc_module *m, size_t i, char **out);
/* The integer value of the module attribute `name`; false when it is absent
 * or not an integer. */
SHLOC_API bool shloc_module_attr_int(const shloc_module *m, const char *name, int64_t *out);

/* A func.func of a module (owned by the module). */
typedef struct shloc_func shloc_func;
/* The module's functions in order: the first for prev = NULL, NULL after the last. */
SHLOC_API const shloc_func *shloc_module_next_func(const shloc_module *m, const shloc_func *prev);
/* The function named `name`, or NULL. */
SHLOC_API const shloc_func *shloc_module_find_func(const shloc_module *m, const char *name);
/* The function to run: `name` when given (as shloc_module_find_func), else
 * the StableHLO interpreter's rule: @main, or the only function; NULL when
 * there is none. */
SHLOC_API const shloc_func *shloc_module_entry(const shloc_module *m, const char *name);
SHLOC_API const char *shloc_func_name(const shloc_func *f, size_t *len);
/* sym_visibility = "private". */
SHLOC_API bool shloc_func_is_private(const shloc_func *f);
SHLOC_API size_t shloc_func_num_args(const shloc_func *f);
SHLOC_API size_t shloc_func_num_results(const shloc_func *f);
/* Argument (or result) i: its type as MLIR prints it ("tensor<?x4xf32>")
 * and its attribute dictionary ("{jax.arg_info = \"x\"}", NULL when it has
 * none); both malloc'd, either pointer may be NULL to skip it. */
SHLOC_API shloc_status shloc_func_arg_text(const shloc_func *f, size_t i, char **type, char **attrs);
SHLOC_API shloc_status shloc_func_result_text(const shloc_func *f, size_t i, char **type, char **attrs);
/* A failure status located at the function (its file:line:col, op func.func). */
SHLOC_API shloc_status shloc_func_error(const shloc_func *f, shloc_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
