/* An SPMD run: one function on n_rep x n_part devices, one thread each,
 * meeting in collectives through the thread transport. */
#ifndef SHLOC_EXEC_COLLECTIVES_SPMD_H
#define SHLOC_EXEC_COLLECTIVES_SPMD_H

#include "exec/exec.h"

/* Runs x on every device (device d = replica * n_part + partition) with
 * args[d] (one buffer per argument); results[d * n_out + i] receives device
 * d's result i (malloc'd data, freed by the caller; left NULL on failure).
 * A failing device stops the others; its error is returned, prefixed with
 * the device. */
shl_status spmd_run(shloc_executable *x, uint32_t n_rep, uint32_t n_part, shl_buf *const *const *args,
                    shl_buf *results);

#endif
