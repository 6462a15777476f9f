/* Benchmark (not a test): all_reduce (sum, f32) from 1 KiB to 64 MiB.
 *   mpirun -n N bench_allreduce mpi [MIN MAX]   shloc's MPI transport (the same
 *       transport_mpi.c all_reduce that `--mpi` runs: signature exchange,
 *       reduce-scatter with the fold in group order, all-gather) against a
 *       bare MPI_Allreduce on the same buffers in one run: calls alternate
 *       one by one (each after a barrier; which goes first alternates),
 *       each call's time is the slowest rank's, and the medians over many
 *       calls are printed with their ratio and the median of the ratios of
 *       adjacent pairs (robust to load that changes during the run).
 *   bench_allreduce threads N            the thread transport (N devices
 *       in one process: exchange, fold in group order, release) against
 *       memcpy of the same bytes on the same N threads.
 * Threads: each round times a batch of calls (64 MiB moved, at least 2
 * calls); the slowest thread's mean counts, and the best of ROUNDS rounds
 * is printed.  MIN and MAX bound the sizes (bytes; default 1 KiB, 64 MiB). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/collectives/transport.h"
#include "exec/kernels/reduce.h"
#include "shloc/mpi.h"

#define ROUNDS 3

static const char *k_module =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %r : tensor<4xf32>\n"
    "}\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The f32 add the kernels use for an add region (collectives.c combine). */
static shl_status fold_add(void *ctx, shl_dtype t, void *dst, const void *src, int64_t n) {
  (void)ctx;
  int64_t rel = 0;
  fold_rows(t, OP_ADD, src, &rel, 1, n, dst);
  return NULL;
}

static int iters_for(size_t bytes) {
  size_t it = ((size_t)64 << 20) / bytes;
  return it < 2 ? 2 : it > 1000 ? 1000 : (int)it;
}

static const shl_op *the_op(shloc_context *ctx, shloc_module **m) {
  if (shloc_module_parse(ctx, "bench.mlir", k_module, strlen(k_module), 1, m)) return NULL;
  const shl_op *f = (*m)->top->regions[0].blocks[0]->first;
  return f->regions[0].blocks[0]->first;
}

static shl_buf f32_buf(int64_t n) {
  shl_buf b = {.dtype = DT_F32, .rank = 1, .n = n, .nbytes = (size_t)n * 4};
  b.data = malloc(b.nbytes + 4);
  float *p = b.data;
  for (int64_t i = 0; i < n; i++) p[i] = (float)((i * 7919) % 1000) * 0.001f - 0.5f;
  return b;
}

static size_t min_bytes = 1024, max_bytes = (size_t)64 << 20;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calls per size for the MPI comparison: 256 MiB of operands, 7 .. 301. */
static int reps_for(size_t bytes) {
  size_t r = ((size_t)256 << 20) / bytes;
  return r < 7 ? 7 : r > 301 ? 301 : (int)r;
}

static int run_mpi(void) {
  shloc_mpi *m;
  shloc_status st = shloc_mpi_open(NULL, NULL, &m);
  if (st) {
    fprintf(stderr, "%s\n", shloc_status_message(st));
    return 1;
  }
  int rank = shloc_mpi_rank(m), size = shloc_mpi_size(m);
  shloc_context *ctx = shloc_context_create();
  shloc_module *mod = NULL;
  const shl_op *op = the_op(ctx, &mod);
  coll_world *w;
  uint32_t dev;
  if (!op || coll_mpi_world_new(m, (uint32_t)size, 1, op, &w, &dev)) return 1;
  uint32_t *group = malloc((size_t)size * sizeof *group);
  for (int i = 0; i < size; i++) group[i] = (uint32_t)i;
  if (rank == 0)
    printf("ranks %d\n%10s %5s %12s %12s %8s %8s %s\n", size, "bytes", "reps", "shloc_ms", "mpi_ms", "ratio", "paired",
           "bit-equal");
  uint64_t seq = 0;
  for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    int64_t n = (int64_t)(bytes / 4);
    shl_buf in = f32_buf(n), out = f32_buf(n), ref = f32_buf(n);
    shl_buf *inp = &in, *outp = &out;
    int reps = reps_for(bytes);
    /* t[which * reps + i]: call i of shloc (0) or MPI (1) on this rank,
     * then the slowest rank's; calls alternate, the first of each pair
     * alternating too, each after a barrier. */
    double *t = malloc(2 * (size_t)reps * sizeof *t), *tmax = malloc(2 * (size_t)reps * sizeof *t);
    double *pair = malloc((size_t)reps * sizeof *pair);
    for (int i = -1; i < reps; i++) /* i = -1: warm-up (pages, MPI's connections) */
      for (int k = 0; k < 2; k++) {
        int which = (i & 1) ^ k;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_s();
        if (which == 0) {
          coll_entry me = {.kind = OP_ALL_REDUCE, .seq = seq++, .n = 1, .bufs = &inp, .ids = group,
                           .n_ids = (uint32_t)size, .pos = dev, .from = group, .to = group};
          st = w->all_reduce(w, dev, op, &me, &outp, &(coll_fold){fold_add, NULL});
          if (st) {
            fprintf(stderr, "rank %d: %s\n", rank, shloc_status_message(st));
            return 1;
          }
        } else {
          MPI_Allreduce(in.data, ref.data, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
        if (i >= 0) t[which * reps + i] = now_s() - t0;
      }
    MPI_Allreduce(t, tmax, 2 * reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < reps; i++) pair[i] = tmax[i] / tmax[reps + i];
    int eq = memcmp(out.data, ref.data, out.nbytes) == 0, all_eq;
    MPI_Allreduce(&eq, &all_eq, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    double ms = median(tmax, reps), mm = median(tmax + reps, reps);
    if (rank == 0)
      printf("%10zu %5d %12.4f %12.4f %8.2f %8.2f %s\n", bytes, reps, ms * 1e3, mm * 1e3, ms / mm, median(pair, reps),
             all_eq ? "yes" : "no");
    free(t);
    free(tmax);
    free(pair);
    free(in.data);
    free(out.data);
    free(ref.data);
  }
  fflush(stdout);
  w->t->free(w);
  free(group);
  shloc_module_destroy(mod);
  shloc_context_destroy(ctx);
  shloc_mpi_close(m, false, 0);
  return 0;
}

/* ---- threads ---- */

typedef struct {
  coll_world *w;
  const shl_op *op;
  uint32_t dev, n;
  int64_t elems;
  int iters;
  bool copy_only; /* memcpy of the same bytes instead of the all_reduce */
  pthread_barrier_t *bar;
  double t;
} thread_arg;

static void *device(void *p) {
  thread_arg *a = p;
  shl_buf in = f32_buf(a->elems), out = f32_buf(a->elems);
  shl_buf *inp = &in;
  pthread_barrier_wait(a->bar);
  double t0 = now_s();
  for (int i = 0; i < a->iters; i++) {
    if (a->copy_only) {
      memcpy(out.data, in.data, in.nbytes);
      continue;
    }
    coll_entry me = {.kind = OP_ALL_REDUCE, .seq = (uint64_t)i, .n = 1, .bufs = &inp};
    const coll_entry *const *all;
    if (a->w->t->exchange(a->w, a->dev, a->op, &me, &all)) break;
    /* reduce_group's fold: member 0 copied, the others folded in order. */
    memcpy(out.data, all[0]->bufs[0]->data, in.nbytes);
    for (uint32_t j = 1; j < a->n; j++) fold_add(NULL, DT_F32, out.data, all[j]->bufs[0]->data, a->elems);
    if (a->w->t->release(a->w, a->dev, a->op)) break;
  }
  a->t = (now_s() - t0) / a->iters;
  pthread_barrier_wait(a->bar);
  a->w->t->leave(a->w, a->dev, false);
  free(in.data);
  free(out.data);
  return NULL;
}

static double run_threads_once(const shl_op *op, uint32_t n, int64_t elems, int iters, bool copy_only) {
  coll_world *w = coll_threads_new(n, 1, 60);
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, n);
  thread_arg a[64];
  pthread_t th[64];
  for (uint32_t d = 0; d < n; d++) {
    a[d] = (thread_arg){w, op, d, n, elems, iters, copy_only, &bar, 0};
    pthread_create(&th[d], NULL, device, &a[d]);
  }
  double t = 0;
  for (uint32_t d = 0; d < n; d++) {
    pthread_join(th[d], NULL);
    if (a[d].t > t) t = a[d].t;
  }
  pthread_barrier_destroy(&bar);
  w->t->free(w);
  return t;
}

static int run_threads(uint32_t n) {
  if (n < 1 || n > 64) return 2;
  shloc_context *ctx = shloc_context_create();
  shloc_module *mod = NULL;
  const shl_op *op = the_op(ctx, &mod);
  if (!op) return 1;
  printf("threads %u\n%10s %12s %12s %12s %12s\n", n, "bytes", "coll_ms", "memcpy_ms", "coll_GB/s", "memcpy_GB/s");
  for (size_t bytes = 1024; bytes <= ((size_t)64 << 20); bytes *= 4) {
    int iters = iters_for(bytes);
    double best[2] = {1e30, 1e30};
    for (int r = 0; r < ROUNDS; r++)
      for (int which = 0; which < 2; which++) {
        double t = run_threads_once(op, n, (int64_t)(bytes / 4), iters, which == 1);
        if (t < best[which]) best[which] = t;
      }
    /* Bytes each device writes per call (its result); GB/s summed over devices. */
    printf("%10zu %12.4f %12.4f %12.2f %12.2f\n", bytes, best[0] * 1e3, best[1] * 1e3, n * bytes / best[0] * 1e-9,
           n * bytes / best[1] * 1e-9);
  }
  shloc_module_destroy(mod);
  shloc_context_destroy(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 4) {
    min_bytes = (size_t)atol(argv[2]);
    max_bytes = (size_t)atol(argv[3]);
    if (min_bytes < 4) min_bytes = 4;
  }
  if (argc >= 2 && strcmp(argv[1], "mpi") == 0) return run_mpi();
  if (argc >= 3 && strcmp(argv[1], "threads") == 0) return run_threads((uint32_t)atoi(argv[2]));
  fprintf(stderr, "usage: mpirun -n N bench_allreduce mpi | bench_allreduce threads N\n");
  return 2;
}
