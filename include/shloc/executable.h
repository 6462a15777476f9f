/* shloc public API: executables -- a function of a module planned once and
 * run on caller-described tensors -- and .npy files.
 *
 * An executable is one function of a verified module, planned once: every
 * custom call site is resolved with a handler registry
 * (shloc/ffi_registry.h) and its handler instantiated when the executable is
 * created.
 *
 * Lifetimes: the module and the registry must outlive every executable made
 * from them.  Threads: an executable may run on any number of threads at
 * once (each run takes its own frames and scratch from a pool the executable
 * keeps; handlers are then called concurrently, as XLA calls them, and must
 * be thread-safe).  Destroying an executable or its module or registry must
 * wait for its runs to return.
 *
 *     shloc_executable *x;
 *     shloc_executable_create(module, "main", registry, &x);
 *     shloc_tensor in = {XLA_FFI_DataType_F32, 2, dims, data, nbytes}, out;
 *     shloc_executable_run(x, &in, 1, &out, 1);   ... free(out.data);
 *     shloc_executable_destroy(x);
 */
#ifndef SHLOC_EXECUTABLE_H
#define SHLOC_EXECUTABLE_H

#include "shloc/shloc.h"
#include "shloc/xla_ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shloc_executable shloc_executable;
/* Custom-call handlers (shloc/ffi_registry.h). */
typedef struct shloc_ffi_registry shloc_ffi_registry;

/* ---- tensors ------------------------------------------------------------ */

/* A dense row-major tensor.  dtype uses XLA's numbering (XLA_FFI_DataType);
 * PRED is one byte per element.  nbytes = element size * element count.
 * In a signature (shloc_executable_arg_type/result_type) a '?' dimension is
 * SHLOC_DIM_DYNAMIC and an unranked tensor has rank -1; nbytes is then 0. */
#define SHLOC_DIM_DYNAMIC INT64_MIN
typedef struct {
  XLA_FFI_DataType dtype;
  int32_t rank;
  const int64_t *dims;
  void *data;
  size_t nbytes;
} shloc_tensor;

/* ---- creating ----------------------------------------------------------- */

/* Plans function `func` (NULL = "main") of a verified module.  `registry` may
 * be NULL (built-in targets only).  Unknown custom-call targets and handler
 * instantiation errors are reported here, before anything runs. */
SHLOC_API shloc_status shloc_executable_create(shloc_module *m, const char *func, shloc_ffi_registry *registry,
                                               shloc_executable **out);
/* Where interpreter.print writes its text (the library never prints). */
typedef void (*shloc_print_fn)(void *user, const char *text, size_t len);
/* What shloc_executable_create_func takes besides the function (all
 * optional: zero-initialise and set what you need). */
typedef struct {
  shloc_ffi_registry *registry; /* NULL = built-in targets only */
  const char *probe_dir;        /* interpreter.probe writes probe<K>.npy + index.csv here; NULL = in memory */
  shloc_print_fn print;         /* interpreter.print output; NULL = the op only passes its operand on */
  void *print_user;
  struct shloc_mpi *mpi;        /* interpreter.run_parallel one device per MPI rank (shloc/mpi.h); NULL = threads */
} shloc_executable_options;
/* Plans function `f` of a verified module (shloc_module_entry and
 * shloc_module_next_func find one; `opts` may be NULL).  Unlike
 * shloc_executable_create it takes any signature: a type outside the
 * public tensor description (a tuple; tf32 or f6 elements) reads as dtype
 * XLA_FFI_DataType_INVALID in the signature and in results. */
SHLOC_API shloc_status shloc_executable_create_func(shloc_module *m, const shloc_func *f,
                                                    const shloc_executable_options *opts, shloc_executable **out);
SHLOC_API void shloc_executable_destroy(shloc_executable *x);
/* How many check ops and check.* custom calls have run in this executable,
 * passed or not (a test program that checked nothing is told apart). */
SHLOC_API uint64_t shloc_executable_checks_run(const shloc_executable *x);

/* ---- signature ---------------------------------------------------------- */

/* The signature: number of arguments / results, and the type of each as a
 * tensor with data NULL (dims stay valid while the module lives). */
SHLOC_API size_t shloc_executable_num_args(const shloc_executable *x);
SHLOC_API size_t shloc_executable_num_results(const shloc_executable *x);
SHLOC_API shloc_status shloc_executable_arg_type(const shloc_executable *x, size_t i, shloc_tensor *out);
SHLOC_API shloc_status shloc_executable_result_type(const shloc_executable *x, size_t i, shloc_tensor *out);

/* ---- running ------------------------------------------------------------ */

/* Runs the function.  Each argument must match the signature (dtype and
 * dims); results receive malloc'd data the caller releases with free().
 *
 * Dynamic shapes: an argument may have any size in a '?' dimension (and any
 * shape for an unranked type).  The first call with a new combination of
 * argument shapes (and of the values of the small integer arguments that
 * decide shapes, as JAX's dimension arguments do) refines the program to
 * those shapes and plans it; later calls with the same shapes reuse that
 * plan (up to 16 are kept per executable).  Results come back with their
 * refined dims.  Arguments that contradict each other (a dimension argument
 * that disagrees with the array it describes) are an error naming the op,
 * the dimension and both sizes.  Calls may run concurrently on
 * several threads (see "Threads" above). */
SHLOC_API shloc_status shloc_executable_run(shloc_executable *x, const shloc_tensor *args, size_t n_args,
                                            shloc_tensor *results, size_t n_results);
/* The same into memory the caller provides: results[i].data points to
 * results[i].nbytes bytes, at least the result's size (for dynamic shapes,
 * the size refined for these arguments)
 * (shloc_executable_result_type's nbytes; a smaller buffer is an error, not
 * an overflow); dtype, rank, dims and nbytes are filled in.  The buffers can be reused from run to
 * run, which spares the page faults of fresh memory, and results are computed
 * straight into them.  They must not overlap each other; one that overlaps an
 * argument is still correct (that result is computed aside, then copied). */
SHLOC_API shloc_status shloc_executable_run_into(shloc_executable *x, const shloc_tensor *args, size_t n_args,
                                                 shloc_tensor *results, size_t n_results);

/* ---- running on .npy files ---------------------------------------------- */

/* A run whose arguments and results are NumPy .npy files (format 1.0 to
 * 3.0, C order).  Element types travel as their storage: i1 '|b1', i8..i64
 * '<i1'..'<i8', ui8..ui64 '<u1'..'<u8', f16 '<f2', f32/tf32 '<f4', f64
 * '<f8', complex<f32> '<c8', complex<f64> '<c16', bf16 '<V2' (raw bits, as
 * ml_dtypes writes; '<u2' accepted), f8/f6/f4 '|V1' (raw bits, one byte per
 * element; '|u1' accepted), i2/i4 '|i1' and ui2/ui4 '|u1'; quantized tensors
 * use their storage type.  Big-endian inputs are swapped. */
typedef struct {
  const char *const *inputs;  /* one file per argument, in order */
  size_t n_inputs;
  const char *const *outputs; /* 0, or one file per result; each written atomically */
  size_t n_outputs;
  /* When the module came in a jax.export envelope (shloc_module_jax_export;
   * otherwise this is ignored), the function is its @main and takes JAX's
   * calling convention (shloc_jax_export_layout): inputs are one per input
   * of the exported function (in_avals, unused ones included), checked
   * against their avals with symbolic dimensions; the platform index (of
   * cpu) and the tokens of ordered effects are supplied, inputs JAX did not
   * keep are dropped, and results exclude the tokens. */
  bool jax_convention;
  long repeat;          /* runs (0 = 1); outputs come from the last */
  bool fresh_outputs;   /* allocate result buffers anew for every run (default: reuse them) */
  /* Each result as `dense<...> : tensor<...>` (every element written out),
   * after writing its output file; NULL = not printed. */
  shloc_write_fn print;
  void *print_user;
  double *run_ms;       /* NULL, or `repeat` entries: the time of each run in ms */
  struct shloc_npy_phases *phases; /* NULL, or filled in with the wall time of each phase */
} shloc_npy_run;
/* Where the time of a shloc_npy_run_func call goes, in ms of wall time
 * (time to first result: reading the inputs, creating the executable and
 * planning it for their shapes, the runs, writing the outputs). */
typedef struct shloc_npy_phases {
  double inputs_ms;  /* reading and checking the input files */
  double plan_ms;    /* shloc_executable_create + planning for the inputs' shapes */
  double outputs_ms; /* writing the output files (and printing) */
} shloc_npy_phases;
/* Runs function `f` of a verified module on .npy files.  Arguments whose
 * type has '?' dimensions (or is unranked) take the files' shapes (the
 * program is refined to them); a file whose shape or element type does not
 * fit its argument is an error naming the argument (numbered from 0, like
 * %arg0) and both types.  Arguments and results must be tensors. */
SHLOC_API shloc_status shloc_npy_run_func(shloc_module *m, const shloc_func *f, shloc_ffi_registry *registry,
                                          const shloc_npy_run *run);

#ifdef __cplusplus
}
#endif
#endif
