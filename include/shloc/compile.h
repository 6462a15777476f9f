/* Ahead-of-time compilation through upstream MLIR (`shloc compile`, README:
 * "Compiling through upstream MLIR").  libshloc produces every source the
 * upstream tools and the C compiler need; running those tools is the
 * caller's part (the CLI spawns them). */
#ifndef SHLOC_COMPILE_H
#define SHLOC_COMPILE_H

#include "shloc/lower.h"
#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *source;      /* the input file, named in comments and check messages */
  const char *module_name; /* MODULE of the entry points when the module has no name */
  const char *guard;       /* the header's include guard (a C identifier) */
  const char *entry;       /* with main(): the function it runs, "" = @main or the only public
                              function; NULL = no main() (an object, not an executable) */
  const shloc_shim_binding *ffi; /* custom-call handler symbols (targets without one: their sanitized name) */
  size_t n_ffi;
} shloc_compile_options;

/* What shloc_compile_sources writes; every field malloc'd and NUL-terminated. */
typedef struct {
  char *mlir;   /* the module in upstream dialects (func, arith, math, tensor, linalg, scf, bufferization) */
  char *header; /* the C entry points' declarations */
  char *c;      /* their definitions over the compiled module (and main() with `entry`) */
  char *shim;   /* the custom-call shim (shloc/ffi_shim.h); NULL when there are no custom calls */
  char *exports; /* the C entry points' names, one per line */
  char *schedule; /* transform-dialect module tiling the large ops into scf.forall loops (threads), for
                     mlir-opt's --transform-preload-library; NULL when no op is large enough */
} shloc_compile_output;

/* Lowers verified module `m` (rewritten in place: discard it afterwards) and
 * writes the sources above.  Errors: an op that cannot be lowered (named,
 * with its location), a public function a C entry point cannot carry, a
 * custom call the shim cannot implement. */
SHLOC_API shloc_status shloc_compile_sources(shloc_module *m, const shloc_compile_options *opts,
                                             shloc_compile_output *out);
SHLOC_API void shloc_compile_output_free(shloc_compile_output *out);

/* The mlir-opt pass pipeline from the lowered module to the LLVM dialect, one
 * argv entry per pass (*n of them; static storage).  With a schedule, insert
 * `--transform-preload-library=transform-library-paths=SCHEDULE.mlir
 * --transform-interpreter` after the first pass; the OpenMP loops it makes
 * call libomp (link -l:libomp.so.5, Debian libomp-22-dev). */
SHLOC_API const char *const *shloc_compile_mlir_opt_passes(size_t *n);

#ifdef __cplusplus
}
#endif
#endif
