/* Shared by the lowering commands (cmd_lower.c, cmd_lower_linalg.c). */
#ifndef SHLOC_TOOLS_CLI_LOWER_H
#define SHLOC_TOOLS_CLI_LOWER_H

#include <stdbool.h>
#include <stddef.h>

#include "shloc/lower.h"

/* Parses --ffi TARGET=SYMBOL values (modified in place) into out[0..n);
 * reports on stderr as `shloc CMD: ...` and returns false on a bad value. */
bool cli_parse_ffi_bindings(const char *cmd, char **specs, size_t n, shloc_shim_binding *out);

/* shloc lower FILE --to=linalg ... */
int cmd_lower_linalg(int argc, char **argv);
/* shloc compile FILE -o OUT */
int cmd_compile(int argc, char **argv);

#endif
