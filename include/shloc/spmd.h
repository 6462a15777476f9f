/* shloc public API: SPMD programs on several devices (one thread per
 * device in this process, or one MPI rank per device).
 *
 * A program for n_replicas x n_partitions devices (mhlo.num_replicas /
 * mhlo.num_partitions) runs its entry function on every device; device
 * d = replica * n_partitions + partition.  Collectives, send/recv and
 * sdy.manual_computation bodies (shard_map) meet the other devices.
 * Outside manual computations every device computes the global values
 * (the program's meaning on one device), so results are global arrays.
 *
 *     shloc_spmd_npy_run r = {.inputs = in, .n_inputs = 1, .outputs = out, .n_outputs = 1};
 *     shloc_spmd_run_npy(module, shloc_module_entry(module, NULL), NULL, &r);
 */
#ifndef SHLOC_SPMD_H
#define SHLOC_SPMD_H

#include "shloc/ffi_registry.h"
#include "shloc/mpi.h"
#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device grid a module declares: its mhlo.num_replicas and
 * mhlo.num_partitions (1 when absent). */
SHLOC_API shloc_status shloc_spmd_devices(const shloc_module *m, uint32_t *replicas, uint32_t *partitions);

typedef struct {
  const char *const *inputs;  /* one .npy file per argument, in order */
  size_t n_inputs;
  const char *const *outputs; /* 0, or one .npy file per result */
  size_t n_outputs;
  /* The grid; 0 takes the module's (shloc_spmd_devices).  A value that
   * contradicts a module attribute is an error. */
  uint32_t replicas, partitions;
  /* Files per device: input and output NAME.npy stand for NAME.dev<K>.npy,
   * K = 0 .. devices-1 (NAME.dev<K> without the .npy suffix).  A device's
   * input with the argument's shape is that device's own value; one with
   * the tile shape of the argument's sharding (mhlo.sharding or
   * sdy.sharding) is its tile, and the tiles of all devices make the
   * global value every device receives.  Each device writes its result,
   * or its tile of it when the result's sharding splits it.
   * Without per_device every device receives the global arrays and the
   * results must agree across devices (they are written once). */
  bool per_device;
  /* Each written result as `dense<...> : tensor<...>`, one call per result
   * (per device: preceded by a call with "device #K:"); NULL = not printed. */
  shloc_write_fn print;
  void *print_user;
  /* NULL: one thread per device in this process.  Else (shloc_mpi_open,
   * under mpirun with as many ranks as devices) this process runs only the
   * device of its rank and reads only that device's input files (per-device
   * tiles of the other devices are gathered over MPI); per-device outputs
   * are written by their device's rank, results written once (and all
   * printing, gathered in device order) by rank 0.  After a failure on any
   * rank, shloc_mpi_failed_rank is set and the job must be ended
   * (shloc_mpi_close with abort_job). */
  shloc_mpi *mpi;
} shloc_spmd_npy_run;

/* Runs function `f` of a verified module (shloc_module_entry) on the grid,
 * with .npy inputs and outputs as `run` says; `registry` may be NULL
 * (built-in custom-call targets only; handlers are then called from several
 * threads at once).  Errors name the argument or result, the device and the
 * file; a failing device stops the others and its error (prefixed "on
 * device #K (replica r, partition p)") is returned. */
SHLOC_API shloc_status shloc_spmd_run_npy(shloc_module *m, const shloc_func *f, shloc_ffi_registry *registry,
                                          const shloc_spmd_npy_run *run);

#ifdef __cplusplus
}
#endif
#endif
