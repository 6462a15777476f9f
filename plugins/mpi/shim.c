/* libshloc_mpi.so: the MPI calls of the MPI transport behind the plain C
 * table of src/exec/collectives/mpi_abi.h.  Only this file includes mpi.h,
 * so only this plugin links MPI. */
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec/collectives/mpi_abi.h"

/* Messages above this are sent as several MPI messages (counts are ints). */
#define PIECE ((size_t)1 << 30)

struct shloc_mpi_req {
  int n;
  MPI_Request r[];
};

static shloc_mpi_req *req_new(int n) {
  shloc_mpi_req *q = calloc(1, sizeof *q + (size_t)(n ? n : 1) * sizeof(MPI_Request));
  if (q) q->n = n;
  return q;
}

static int pieces(size_t bytes) { return bytes ? (int)((bytes + PIECE - 1) / PIECE) : 1; }

static int shim_init(int *argc, char ***argv, int *rank, int *size) {
  int provided, rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (rc) return rc;
  /* Errors come back as codes, never abort the job from inside a call. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

static int shim_finalize(void) { return MPI_Finalize(); }

static void shim_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static int shim_split(int color, int key, void **out) {
  MPI_Comm c;
  *out = NULL;
  int rc = MPI_Comm_split(MPI_COMM_WORLD, color < 0 ? MPI_UNDEFINED : color, key, &c);
  if (rc || c == MPI_COMM_NULL) return rc;
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm *p = malloc(sizeof *p);
  if (!p) {
    MPI_Comm_free(&c);
    return MPI_ERR_NO_MEM;
  }
  *p = c;
  *out = p;
  return 0;
}

static void shim_comm_free(void *comm) {
  if (!comm) return;
  MPI_Comm_free(comm);
  free(comm);
}

/* A send or receive of `bytes` as ceil(bytes / PIECE) messages. */
static int p2p(bool send, void *comm, void *buf, size_t bytes, int peer, int tag, shloc_mpi_req **out) {
  int n = pieces(bytes);
  shloc_mpi_req *q = req_new(n);
  if (!q) return MPI_ERR_NO_MEM;
  MPI_Comm c = *(MPI_Comm *)comm;
  for (int i = 0; i < n; i++) {
    size_t off = (size_t)i * PIECE, len = bytes - off < PIECE ? bytes - off : PIECE;
    int rc = send ? MPI_Isend((char *)buf + off, (int)len, MPI_BYTE, peer, tag, c, &q->r[i])
                  : MPI_Irecv((char *)buf + off, (int)len, MPI_BYTE, peer < 0 ? MPI_ANY_SOURCE : peer, tag, c, &q->r[i]);
    if (rc) {
      for (int j = 0; j < i; j++) {
        MPI_Cancel(&q->r[j]);
        MPI_Request_free(&q->r[j]);
      }
      free(q);
      return rc;
    }
  }
  *out = q;
  return 0;
}

static int shim_isend(void *comm, const void *buf, size_t bytes, int dest, int tag, shloc_mpi_req **out) {
  return p2p(true, comm, (void *)buf, bytes, dest, tag, out);
}

static int shim_irecv(void *comm, void *buf, size_t bytes, int src, int tag, shloc_mpi_req **out) {
  return p2p(false, comm, buf, bytes, src, tag, out);
}

static int shim_test(shloc_mpi_req *q) {
  int flag = 0;
  int rc = MPI_Testall(q->n, q->r, &flag, MPI_STATUSES_IGNORE);
  if (rc) return rc > 0 ? -rc : rc;
  if (!flag) return 0;
  free(q);
  return 1;
}

static void shim_cancel(shloc_mpi_req *q) {
  for (int i = 0; i < q->n; i++)
    if (q->r[i] != MPI_REQUEST_NULL) {
      MPI_Cancel(&q->r[i]);
      MPI_Request_free(&q->r[i]);
    }
  free(q);
}

static void shim_error_string(int code, char *buf, size_t n) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, s, &len)) len = 0;
  s[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = 0;
  if (n) {
    strncpy(buf, s, n - 1);
    buf[n - 1] = 0;
  }
}

static const shloc_mpi_abi shim = {SHLOC_MPI_ABI_VERSION, shim_init,   shim_finalize,   shim_abort,
                                   shim_split,            shim_comm_free, shim_isend,   shim_irecv,
                                   shim_test,             shim_cancel, shim_error_string};

__attribute__((visibility("default"))) const shloc_mpi_abi *shloc_mpi_abi_v1(void);
const shloc_mpi_abi *shloc_mpi_abi_v1(void) { return &shim; }
