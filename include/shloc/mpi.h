/* Running multi-device programs with one MPI process per device.
 *
 * libshloc does not link MPI: shloc_mpi_open loads libshloc_mpi.so (built
 * where MPI is found; looked up in $SHLOC_MPI_PLUGIN, next to the program or
 * libshloc.so, in ../lib from there, then by the loader's search path) and
 * initializes MPI through it.  Executables created with the handle (see
 * exec_config.mpi) run interpreter.run_parallel with device (r, p) on rank
 * r * P + p. */
#ifndef SHLOC_MPI_H
#define SHLOC_MPI_H

#include "shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shloc_mpi shloc_mpi;

/* Loads the plugin and calls MPI_Init (call it before argv is parsed). */
SHLOC_API shloc_status shloc_mpi_open(int *argc, char ***argv, shloc_mpi **out);
SHLOC_API int shloc_mpi_rank(const shloc_mpi *m);
SHLOC_API int shloc_mpi_size(const shloc_mpi *m);
/* The rank whose failure stopped a multi-device run (this rank's own when
 * its device failed), or -1.  After a failure the ranks' messages are out
 * of step: no further multi-device run is possible. */
SHLOC_API int shloc_mpi_failed_rank(const shloc_mpi *m);
/* Ends MPI and frees m.  With `abort_job` (after a failure), waits a
 * moment so the other ranks can report, then ends every rank of the job
 * (MPI_Abort with exit_code) and does not return: peers may still be
 * blocked in MPI calls that no message will ever complete. */
SHLOC_API void shloc_mpi_close(shloc_mpi *m, bool abort_job, int exit_code);

#ifdef __cplusplus
}
#endif

#endif
