/* Shared helpers of the shloc command-line tool. */
#ifndef SHLOC_TOOLS_CLI_H
#define SHLOC_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "shloc/shloc.h"

/* An input file ("-" = stdin), read by shloc_source_read: the text may be
 * lent to shloc_module_parse_borrowed (it outlives the modules parsed from
 * it) and is not NUL-terminated. */
typedef struct {
  const char *text;
  size_t len;
  shloc_source *src;
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

/* `check --match-source`: NULL when `printed` (the pretty output of the module
 * parsed from src, which starts on line first_line of path) reproduces src, up
 * to the rules in cli_srcmatch.c; else an error at the first differing line. */
shloc_status cli_match_source(const char *path, const char *src, size_t src_len, int first_line,
                              const char *printed, size_t printed_len);

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_serialize(int argc, char **argv);

#endif
