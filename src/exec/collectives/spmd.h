/* An SPMD run: one function on n_rep x n_part devices, one thread each,
 * meeting in collectives through the thread transport. */
#ifndef SHLOC_EXEC_COLLECTIVES_SPMD_H
#define SHLOC_EXEC_COLLECTIVES_SPMD_H

#include "exec/exec.h"
#include "transport.h"

/* Runs x on every device (device d = replica * n_part + partition) with
 * args[d] (one buffer per argument); results[d * n_out + i] receives device
 * d's result i (malloc'd data, freed by the caller; left NULL on failure).
 * A failing device stops the others; its error is returned, prefixed with
 * the device. */
shl_status spmd_run(shloc_executable *x, uint32_t n_rep, uint32_t n_part, shl_buf *const *const *args,
                    shl_buf *results);

/* One device of an SPMD run over MPI (transport_mpi.c): this rank's device
 * `dev` of world w runs x with args into results (n_out buffers, as
 * spmd_run), then meets every device once more, so a device that failed or
 * ended without reaching a collective is reported on every rank.  An
 * error of this device is prefixed with it. */
struct shloc_mpi;
shl_status spmd_run_mpi(shloc_executable *x, struct shloc_mpi *m, coll_world *w, uint32_t dev, shl_buf *const *args,
                        shl_buf *results);

#endif
