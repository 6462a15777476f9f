/* The heap of compiled code: `shloc compile` lowers memref.alloc/dealloc
 * with finalize-memref-to-llvm's use-generic-functions, so every buffer the
 * program allocates comes from here (include/shloc/aot_runtime.h).
 *
 * Compiled code allocates its temporaries on every call, where the
 * interpreter keeps its frames from run to run; the first touch of a fresh
 * 4 KiB page costs microseconds in a VM, and those faults were a large part
 * of the memory-bound programs' time.  Blocks of 2 MiB and more therefore
 * come from exec_malloc (2 MiB aligned and sized, transparent huge pages)
 * and are kept when freed, for later allocations of at most that size and
 * more than half of it; smaller blocks are plain malloc.  The cache holds at
 * most RT_CACHE_SLOTS blocks and RT_CACHE_BYTES bytes (beyond, blocks are
 * given back). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "exec/exec.h"
#include "shloc/aot_runtime.h"

enum { RT_BIG = 2u << 20, RT_CACHE_SLOTS = 32 };
#define RT_CACHE_BYTES ((size_t)1 << 30)

typedef struct {
  void *p;
  size_t cap;
} rt_block;

/* Live big blocks (so that free knows one, and its size) and the cache. */
static struct {
  pthread_mutex_t mu;
  rt_block *live;
  size_t n_live, live_cap;
  rt_block cache[RT_CACHE_SLOTS];
  size_t n_cache, cached_bytes;
} heap = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, {{NULL, 0}}, 0, 0};

/* The smallest cached block of capacity in [cap, 2 cap); called locked. */
static rt_block cache_take(size_t cap) {
  size_t best = heap.n_cache;
  for (size_t i = 0; i < heap.n_cache; i++)
    if (heap.cache[i].cap >= cap && heap.cache[i].cap / 2 < cap &&
        (best == heap.n_cache || heap.cache[i].cap < heap.cache[best].cap))
      best = i;
  if (best == heap.n_cache) return (rt_block){NULL, 0};
  rt_block b = heap.cache[best];
  heap.cached_bytes -= b.cap;
  heap.cache[best] = heap.cache[--heap.n_cache];
  return b;
}

static bool live_add(rt_block b) {
  if (heap.n_live == heap.live_cap) {
    size_t nc = heap.live_cap ? 2 * heap.live_cap : 16;
    rt_block *nl = realloc(heap.live, nc * sizeof *nl);
    if (!nl) return false;
    heap.live = nl;
    heap.live_cap = nc;
  }
  heap.live[heap.n_live++] = b;
  return true;
}

/* A block of at least n >= RT_BIG bytes, 2 MiB aligned: cached or fresh. */
static void *big_alloc(size_t n) {
  size_t cap = (n + RT_BIG - 1) & ~(size_t)(RT_BIG - 1);
  if (cap < n) return NULL;
  pthread_mutex_lock(&heap.mu);
  rt_block b = cache_take(cap);
  if (!b.p) b = (rt_block){exec_malloc(cap), cap};
  if (b.p && !live_add(b)) {
    free(b.p);
    b.p = NULL;
  }
  pthread_mutex_unlock(&heap.mu);
  return b.p;
}

/* Frees p if it is a big block (true), keeping it in the cache when there is room. */
static bool big_free(void *p) {
  pthread_mutex_lock(&heap.mu);
  size_t i = 0;
  while (i < heap.n_live && heap.live[i].p != p) i++;
  bool big = i < heap.n_live;
  if (big) {
    rt_block b = heap.live[i];
    heap.live[i] = heap.live[--heap.n_live];
    if (heap.n_cache < RT_CACHE_SLOTS && heap.cached_bytes + b.cap <= RT_CACHE_BYTES) {
      heap.cache[heap.n_cache++] = b;
      heap.cached_bytes += b.cap;
    } else {
      free(b.p);
    }
  }
  pthread_mutex_unlock(&heap.mu);
  return big;
}

void *_mlir_memref_to_llvm_alloc(size_t n) { return n >= RT_BIG ? big_alloc(n) : malloc(n ? n : 1); }

void *_mlir_memref_to_llvm_aligned_alloc(size_t align, size_t n) {
  if (n >= RT_BIG && align <= RT_BIG) return big_alloc(n);
  void *p = NULL;
  if (align < sizeof(void *)) align = sizeof(void *);
  return posix_memalign(&p, align, n ? n : 1) ? NULL : p;
}

void _mlir_memref_to_llvm_free(void *p) {
  if (p && !big_free(p)) free(p);
}
