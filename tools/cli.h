/* Shared helpers of the shloc command-line tool. */
#ifndef SHLOC_TOOLS_CLI_H
#define SHLOC_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "shloc/shloc.h"

/* Reads a whole file ("-" = stdin); returns false after printing an error. */
bool cli_read_file(const char *path, char **out, size_t *len);
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
struct shl_op;
const struct shl_op *cli_entry_func(const shloc_module *m, const char *entry);

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_lower(int argc, char **argv);

#endif
