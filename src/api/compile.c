/* shloc_compile_sources: the lowered module, the C entry points (and
 * driver) and the custom-call shim of one compilation (shloc/compile.h). */
#include "shloc/compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/aot_c.h"
#include "passes/lower_custom_calls.h"
#include "passes/lower_linalg.h"

/* From the lowered module to the LLVM dialect.  Elementwise linalg.generic
 * ops are fused first (one loop nest, no intermediate buffers); function
 * results become out-parameters the caller allocates (external
 * declarations keep returning theirs). */
static const char *const mlir_opt_passes[] = {
    "--linalg-fuse-elementwise-ops",
    /* (here: the tiling schedule, when there is one: shloc/compile.h) */
    /* An op whose result is inserted into a larger tensor (a softmax block
     * into its result, lower_linalg_softmax.c) writes there directly
     * instead of into a temporary that is then copied. */
    "--eliminate-empty-tensors",
    "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map",
    /* Loops that update a buffer in place (scf.for over a row scatter) and
     * each tile of a scf.forall leave a loop-carried or self-copied buffer:
     * CSE and canonicalization fold them, so that a result computed in
     * place is its allocation again, which the next pass makes the
     * caller's buffer. */
    "--cse", "--canonicalize",
    /* Results become caller-allocated out-parameters, and the buffers that
     * computed them are those parameters (no allocation, no copy). */
    "--buffer-results-to-out-params=hoist-static-allocs modify-public-functions",
    "--ownership-based-buffer-deallocation", "--buffer-deallocation-simplification",
    "--bufferization-lower-deallocations", "--convert-bufferization-to-memref",
    /* Tiled loops (scf.forall) become OpenMP worksharing loops; everything
     * else stays sequential. */
    "--scf-forall-to-parallel", "--convert-linalg-to-loops", "--convert-scf-to-openmp",
    /* bf16 computes in f32, rounded back after each op as the interpreter
     * does; the bf16 rounding becomes integer code instead of calls of
     * __truncsfbf2, which gcc 12's libgcc lacks.  f16 is left to LLVM, which
     * promotes it the same way (extending it here leaves an arith attribute
     * that mlir-translate-22 rejects). */
    "--math-extend-to-supported-types=target-type=f32 extra-types=f16",
    "--arith-emulate-unsupported-floats=source-types=bf16 target-type=f32",
    "--expand-strided-metadata", "--lower-affine",
    /* memref.alloc/dealloc call libshloc's heap, which keeps large
     * blocks from call to call (src/aot/rt_alloc.c); before scf-to-cf,
     * which cannot put loops into OpenMP's memref.alloca_scope. */
    "--finalize-memref-to-llvm=use-generic-functions", "--convert-scf-to-cf",
    /* LLVM intrinsics where there are some (clang -fveclib=libmvec
     * vectorizes sin, exp, ... with glibc's _ZGV* variants), log1p kept
     * exact (expm1 is a libm call already, lower_linalg_libm.c), libm calls
     * for the rest (readnone: vectorized alike). */
    "--convert-math-to-llvm=approximate-log1p=false", "--convert-math-to-libm", "--arith-expand=include-bf16=true",
    "--convert-complex-to-llvm", "--convert-arith-to-llvm", "--convert-index-to-llvm",
    "--convert-func-to-llvm", "--convert-cf-to-llvm", "--convert-openmp-to-llvm", "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
};

const char *const *shloc_compile_mlir_opt_passes(size_t *n) {
  *n = sizeof mlir_opt_passes / sizeof *mlir_opt_passes;
  return mlir_opt_passes;
}

static bool has_custom_calls(const shloc_module *m) {
  for (const shl_op *f = m->top->regions[0].blocks[0]->first; f; f = f->next)
    if (op_is(f, OP_FUNC) && op_attr(f, PASS_CUSTOM_CALL_ATTR)) return true;
  return false;
}

void shloc_compile_output_free(shloc_compile_output *out) {
  free(out->mlir);
  free(out->header);
  free(out->c);
  free(out->shim);
  free(out->exports);
  free(out->schedule);
  memset(out, 0, sizeof *out);
}

shloc_status shloc_compile_sources(shloc_module *m, const shloc_compile_options *o, shloc_compile_output *out) {
  memset(out, 0, sizeof *out);
  char *c_module = aot_c_module_name(m, o->module_name ? o->module_name : "module");
  size_t plen = c_module ? strlen(c_module) + 9 : 0;
  char *prefix = c_module ? malloc(plen) : NULL;
  if (!prefix) {
    free(c_module);
    return st_oom();
  }
  snprintf(prefix, plen, "_shloc_%s_", c_module);
  const char *source = o->source ? o->source : "<input>";
  aot_c_options co = {c_module, prefix, source, o->guard ? o->guard : "SHLOC_COMPILED_H", o->entry};
  /* The C first: lowering rewrites the module. */
  shl_status st = aot_c_emit(m, &co, &out->header, &out->c, &out->exports);
  size_t len;
  pass_lower_linalg_options lo = {prefix, &out->schedule};
  if (!st) st = pass_lower_linalg_with(m, &lo, &out->mlir, &len);
  if (!st && has_custom_calls(m)) {
    const char *base = strrchr(source, '/');
    st = shloc_shim_generate(m, o->ffi, o->n_ffi, base ? base + 1 : source, &out->shim, &len);
  }
  free(c_module);
  free(prefix);
  if (st) shloc_compile_output_free(out);
  return st;
}
