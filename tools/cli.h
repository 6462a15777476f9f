/* Shared helpers of the shloc command-line tool. */
#ifndef SHLOC_TOOLS_CLI_H
#define SHLOC_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "shloc/jax_export.h"
#include "shloc/shloc.h"

struct shl_op;

/* Reads a whole file ("-" = stdin); returns false after printing an error. */
bool cli_read_file(const char *path, char **out, size_t *len);
/* An input file for parsing with shloc_module_parse_borrowed (the text must
 * outlive the modules parsed from it).  Large regular files are read into
 * fresh huge-page memory: in this VM that beats mapping the file, whose
 * page-cache pages cost a slow first-touch fault per 4 KiB.  stdin and other
 * files are read into malloc'd memory.  The text is not NUL-terminated. */
typedef struct {
  const char *text;
  size_t len;
  void *map;      /* pages to unmap (arena_unmap_pages), or NULL */
  size_t map_len;
  char *owned;    /* buffer to free, or NULL */
} cli_input;
/* Returns false after printing an error. */
bool cli_input_open(const char *path, cli_input *in);
void cli_input_close(cli_input *in);

/* Output streamed through stdio ("-" = stdout); regular files are written to
 * a temporary file renamed over the target on success. */
typedef struct {
  FILE *f;
  const char *path;
  char *tmp; /* temporary name, or NULL when writing in place */
  bool failed;
  int err; /* errno of the first failure */
} cli_output;
bool cli_output_open(const char *path, cli_output *o);
/* A shloc_write_fn writing to a cli_output. */
bool cli_output_write(void *o, const char *data, size_t len);
/* Finishes (commit = rename into place) or abandons the output; false after
 * printing an error (a failed write is reported either way). */
bool cli_output_close(cli_output *o, bool commit);

/* Writes data atomically (temp file + rename); "-" = stdout. */
bool cli_write_file(const char *path, const char *data, size_t len);
/* Prints a status MLIR-style (with source line and caret) to stderr and frees it. */
void cli_report(shloc_status st, const char *source, size_t len);

/* A chunk of a --split-input-file input: text plus the line it starts on. */
typedef struct {
  const char *text;
  size_t len;
  int first_line;
} cli_chunk;
/* Splits at lines "// -----"; returns the number of chunks (caller frees *out). */
size_t cli_split(const char *text, size_t len, bool split, cli_chunk **out);

/* Input files: FILE arguments as given, directories searched for *.mlir. */
typedef struct {
  char **v;
  size_t n, cap;
} cli_paths;
void cli_paths_add(cli_paths *l, const char *path);
void cli_paths_sort(cli_paths *l);
void cli_paths_free(cli_paths *l);

/* The function to run: `entry` when given, else the StableHLO interpreter's
 * rule (@main, or the only function); NULL when there is none. */
const struct shl_op *cli_entry_func(const shloc_module *m, const char *entry);

/* `check --match-source`: NULL when `printed` (the pretty output of the module
 * parsed from src, which starts on line first_line of path) reproduces src, up
 * to the rules in cli_srcmatch.c; else an error at the first differing line. */
shloc_status cli_match_source(const char *path, const char *src, size_t src_len, int first_line,
                              const char *printed, size_t printed_len);

/* How a jax.export envelope's @main takes its arguments (cli_jax.c):
 * [platform index] [one token per ordered effect] [kept arrays], results
 * [one token per ordered effect] [arrays]. */
typedef struct {
  uint32_t n_platform, n_tokens, n_kept;
  int platform_index; /* index of "cpu" among the platforms (0 when the platform check is disabled), or -1 */
} cli_jax_layout;
/* Checks @main against the envelope's calling convention. */
shloc_status cli_jax_plan(const shloc_jax_export *e, const struct shl_op *main_fn, cli_jax_layout *out);

/* Values of JAX dimension variables ("b" in f32[b, 2*b + 1]) found in inputs. */
#define CLI_MAX_DIMVARS 32
typedef struct {
  size_t n;
  const char *name[CLI_MAX_DIMVARS];
  long long value[CLI_MAX_DIMVARS];
} cli_dimvars;
/* Binds the variables that are whole dimensions of `a` to the actual dims. */
shloc_status cli_dim_bind(const shloc_jax_aval *a, const int64_t *dims, int rank, cli_dimvars *vars);
/* Evaluates every dimension of `a` and compares it with the actual dims. */
shloc_status cli_dim_check(const shloc_jax_aval *a, const int64_t *dims, int rank, const cli_dimvars *vars);
/* The MLIR element type name of a schema dtype; NULL for f0 and PRNG keys. */
const char *cli_jax_mlir_dtype(const char *dtype);

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_serialize(int argc, char **argv);

#endif
