/* The boundary between libshloc and libshloc_mpi.so (plugins/mpi/): the few
 * MPI calls the MPI transport needs, as plain C with no MPI types, so that
 * libshloc and the CLI never link MPI.  The plugin is built only where MPI
 * is found and loaded by shloc_mpi_open (`--mpi`); everything above raw
 * messaging (process groups, fold order, faults) stays in libshloc
 * (transport_mpi.c).
 *
 * Ints returned are MPI error codes (0 = success).  Communicators are opaque
 * pointers; a request covers one message of any size (the plugin splits
 * messages above 1 GiB into several MPI messages, so counts never pass
 * INT_MAX). */
#ifndef SHLOC_EXEC_COLLECTIVES_MPI_ABI_H
#define SHLOC_EXEC_COLLECTIVES_MPI_ABI_H

#include <stddef.h>
#include <stdint.h>

#define SHLOC_MPI_ABI_VERSION 1
#define SHLOC_MPI_ANY_SOURCE (-1)

typedef struct shloc_mpi_req shloc_mpi_req;

typedef struct {
  uint32_t version;
  /* MPI_Init_thread (funneled: one thread calls MPI); rank and size of the world. */
  int (*init)(int *argc, char ***argv, int *rank, int *size);
  int (*finalize)(void);
  void (*abort)(int code);
  /* A new communicator of the world's ranks whose color matches (< 0: none,
   * *out = NULL), ordered by key. */
  int (*split)(int color, int key, void **out);
  void (*comm_free)(void *comm);
  int (*isend)(void *comm, const void *buf, size_t bytes, int dest, int tag, shloc_mpi_req **out);
  /* src may be SHLOC_MPI_ANY_SOURCE. */
  int (*irecv)(void *comm, void *buf, size_t bytes, int src, int tag, shloc_mpi_req **out);
  /* 1 and frees the request when it completed, 0 while pending, < 0 on error. */
  int (*test)(shloc_mpi_req *r);
  /* Cancels a pending request and frees it. */
  void (*cancel)(shloc_mpi_req *r);
  void (*error_string)(int code, char *buf, size_t n);
} shloc_mpi_abi;

/* The plugin's one exported symbol. */
typedef const shloc_mpi_abi *(*shloc_mpi_abi_fn)(void);
#define SHLOC_MPI_ABI_SYMBOL "shloc_mpi_abi_v1"

#endif
