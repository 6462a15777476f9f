/* C around a module compiled by `shloc compile` (README, "Compiling through
 * upstream MLIR"):
 *
 *  - the header: one C entry point per public function,
 *      int MODULE_FUNC(const T0 *arg0, ..., R0 *res0, ...);
 *    inputs are read-only, densely packed row-major buffers of the static
 *    shapes the header lists; outputs are caller-allocated buffers of the
 *    listed sizes, which the call fills; the return value is the number of
 *    check.* failures during the call (0 when there are none);
 *  - the entry points themselves, over upstream MLIR's C interface
 *    (`_mlir_ciface_<prefix><func>` with memref descriptors): they wrap the
 *    caller's buffers in descriptors, inputs first, then the results as the
 *    out-parameters the pipeline gives every function;
 *  - for executables, main(): runs one entry point on .npy inputs like
 *    `shloc run` and exits 1 when a check failed. */
#ifndef SHLOC_CODEGEN_AOT_C_H
#define SHLOC_CODEGEN_AOT_C_H

#include "ir/ir.h"

typedef struct {
  const char *c_module;    /* MODULE in the entry points' names (a C identifier) */
  const char *func_prefix; /* the lowered functions' symbol prefix (pass_lower_linalg_options) */
  const char *source;      /* the input file, for comments and check messages */
  const char *guard;       /* the header's include guard */
  const char *entry;       /* main() runs this function ("": the default); NULL = no main() */
} aot_c_options;

/* The C name of a module: its sym_name, else `fallback`, as a C identifier
 * (malloc'd). */
char *aot_c_module_name(const shloc_module *m, const char *fallback);
/* The function main() runs: `entry` when given, else @main, else the only
 * public function (NOT_FOUND otherwise). */
shl_status aot_c_entry(const shloc_module *m, const char *entry, const shl_op **out);
/* The header (*header), the C source of the entry points and, with
 * o->entry, main() (*source), and the entry points' names, one per line
 * (*exports); all malloc'd.  o->entry "" runs aot_c_entry's default.
 * Errors: a public function whose name or types a C entry point cannot
 * carry, no function for main() to run. */
shl_status aot_c_emit(const shloc_module *m, const aot_c_options *o, char **header, char **source, char **exports);

#endif
