/* The stable LSD radix sort behind stablehlo.sort's recognised comparators.
 *
 * Keys are unsigned integers whose order is the comparator's: a single
 * f32/i32/ui32 or f64/i64/ui64 operand sorts its keys alone (a key maps
 * back to its value), anything else sorts (key, index) items and then
 * permutes every operand.  11-bit digits; digits that every key shares are
 * skipped.  The first pass reads the operand and the last one writes the
 * result directly, so a 32-bit sort makes one counting read and three
 * scatters.
 *
 * A large slice is sorted by all threads together: each owns a contiguous
 * chunk, counts its digits, and scatters behind the chunks before it
 * (bucket offsets = the keys of smaller digits + the same digit in earlier
 * chunks), which keeps the sort stable.  Small slices go one per thread. */
#include <omp.h>
#include <stdlib.h>

#include "kutil.h"
#include "sort.h"

enum {
  D = 11,
  NB = 1 << D,
  MAX_NP = (64 + D - 1) / D, /* digits of a 64-bit key */
  SMALL = 48,                /* slices up to this sort by insertion */
  MAX_T = 64,                /* threads sharing one slice */
  WIDE_MIN = 1 << 17,        /* slices from this length use every thread */
};

/* What a slice's sort found. */
enum { R_OK, R_NAN, R_MERGED };

typedef struct {
  uint32_t key, idx;
} item32;

typedef struct {
  uint64_t key, idx;
} item64;

/* One slice's sort, shared by the threads working on it. */
typedef struct {
  const sort_params *p;
  shl_dtype t;
  uint32_t n_ops;
  shl_buf *const *in;
  shl_buf *const *out;
  int64_t base, n, st;   /* the slice: first element, length, stride */
  uint64_t flip;         /* ~0 for descending keys */
  uint64_t fmask, xc;    /* keys alone: key = b ^ (fmask if b < 0) ^ xc */
  void *buf[2];          /* scratch of n items each */
  void *res;             /* items: where the sorted ones are */
  uint32_t *cnt;         /* counters: MAX_NP x NB per thread */
  uint32_t *off;         /* bucket offsets: NB per thread */
  uint32_t flags[MAX_T]; /* per thread: what the counting read saw */
} rjob;

static inline uint32_t dig(uint64_t k, int d) { return (uint32_t)(k >> (d * D)) & (NB - 1); }

/* Barriers only when threads share the slice (a lone thread may be inside
 * a worksharing loop, where a barrier is not allowed). */
#define BARRIER(nt)              \
  do {                           \
    if ((nt) > 1) {              \
      _Pragma("omp barrier");    \
    }                            \
  } while (0)

/* ---- keys ---- */

/* Keys alone: the bits themselves for unsigned integers, the sign flipped
 * for signed ones, and for floats all bits of negatives flipped; the
 * inverse is the same masking of the unflipped key.  flags: bit 0 a -0,
 * bit 1 a NaN (which merge with others under canonicalization). */
static inline uint32_t ko32_first(const rjob *j, int64_t i, uint32_t *fl) {
  uint32_t b = ((const uint32_t *)j->in[0]->data)[j->base + i * j->st];
  *fl |= (uint32_t)(b == 0x80000000u) | (uint32_t)((b & 0x7FFFFFFFu) > 0x7F800000u) << 1;
  return b ^ ((uint32_t)((int32_t)b >> 31) & (uint32_t)j->fmask) ^ (uint32_t)j->xc;
}

static inline void ko32_last(const rjob *j, int64_t pos, uint32_t k) {
  uint32_t u = k ^ (uint32_t)j->xc;
  ((uint32_t *)j->out[0]->data)[j->base + pos * j->st] = u ^ ((uint32_t)((int32_t)u >> 31) & (uint32_t)j->fmask);
}

static inline uint64_t ko64_first(const rjob *j, int64_t i, uint32_t *fl) {
  uint64_t b = ((const uint64_t *)j->in[0]->data)[j->base + i * j->st], sign = 1ull << 63;
  *fl |= (uint32_t)(b == sign) | (uint32_t)((b & ~sign) > 0x7FF0000000000000ull) << 1;
  return b ^ ((uint64_t)((int64_t)b >> 63) & j->fmask) ^ j->xc;
}

static inline void ko64_last(const rjob *j, int64_t pos, uint64_t k) {
  uint64_t u = k ^ j->xc;
  ((uint64_t *)j->out[0]->data)[j->base + pos * j->st] = u ^ ((uint64_t)((int64_t)u >> 63) & j->fmask);
}

static int ko_verdict(const rjob *j, uint32_t fl) {
  const sort_params *p = j->p;
  if (!dtype_is_float(j->t)) return R_OK;
  if (p->nan_fallback && (fl & 2)) return R_NAN;
  return (p->nan_fallback || p->canon_nan) && fl ? R_MERGED : R_OK;
}

/* Items: zeros are equal unless the comparison is TOTALORDER on raw
 * values; NaNs become the canonical one, or (FLOAT compare) set flags. */
static inline item32 it32_first(const rjob *j, int64_t i, uint32_t *fl) {
  const sort_params *p = j->p;
  int64_t e = j->base + i * j->st;
  uint32_t k;
  if (j->t == DT_F32) {
    uint32_t b = ((const uint32_t *)j->in[0]->data)[e], a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u) {
      *fl |= p->nan_fallback;
      if (p->canon_nan) b = (uint32_t)(p->nan_bits >> 63) << 31 | 0x7FC00000u;
    } else if (!a && (p->nan_fallback || p->canon_nan)) {
      b = 0;
    }
    k = b ^ ((uint32_t)((int32_t)b >> 31) & 0x7FFFFFFFu) ^ 0x80000000u;
  } else {
    int64_t v = int_load(j->t, (const uint8_t *)j->in[0]->data + (size_t)e * dtype_bytes(j->t));
    k = j->t == DT_I1 ? (uint32_t)(v != 0) : dtype_class(j->t) == DTC_SINT ? (uint32_t)v ^ 0x80000000u : (uint32_t)v;
  }
  return (item32){k ^ (uint32_t)j->flip, (uint32_t)i};
}

static inline item64 it64_first(const rjob *j, int64_t i, uint32_t *fl) {
  const sort_params *p = j->p;
  shl_dtype t = j->t;
  const uint8_t *e = (const uint8_t *)j->in[0]->data + (size_t)(j->base + i * j->st) * dtype_bytes(t);
  uint64_t k, sign = 1ull << 63;
  if (p->is_float) {
    uint64_t b = fp_f64_bits(fp_to_f64(t, fp_load(t, e))), a = b & ~sign;
    if (a > 0x7FF0000000000000ull) {
      *fl |= p->nan_fallback;
      if (p->canon_nan) b = p->nan_bits;
    } else if (!a && (p->nan_fallback || p->canon_nan)) {
      b = 0;
    }
    k = b ^ ((uint64_t)((int64_t)b >> 63) & ~sign) ^ sign;
  } else {
    k = (uint64_t)int_load(t, e) ^ (dtype_class(t) == DTC_SINT ? sign : 0);
  }
  return (item64){k ^ j->flip, (uint64_t)i};
}

static int it_verdict(const rjob *j, uint32_t fl) { return fl ? R_NAN : R_OK; }

/* ---- the sort ---- */

/* Thread tid's offsets for digit d: buckets of smaller digits in all
 * chunks, then this bucket in the chunks before tid's. */
static void offsets(const rjob *j, int d, int nt, int tid, uint32_t *off) {
  const uint32_t *c = j->cnt + (size_t)d * NB;
  uint32_t sum = 0;
  for (int b = 0; b < NB; b++) {
    uint32_t before = 0, tot = 0;
    for (int t = 0; t < nt; t++) {
      uint32_t v = c[(size_t)t * MAX_NP * NB + b];
      before += t < tid ? v : 0;
      tot += v;
    }
    off[b] = sum + before;
    sum += tot;
  }
}

/* The digits that differ between keys: a digit is constant when one
 * bucket (that of key k0) holds every key. */
static unsigned active_digits(const rjob *j, int np, int nt, uint64_t k0) {
  unsigned act = 0;
  for (int d = 0; d < np; d++) {
    uint64_t tot = 0;
    for (int t = 0; t < nt; t++) tot += j->cnt[((size_t)t * MAX_NP + (size_t)d) * NB + dig(k0, d)];
    if (tot != (uint64_t)j->n) act |= 1u << d;
  }
  return act;
}

/* NAME(j, nt, tid): thread tid of nt sorts its part of slice j; every
 * thread returns the same verdict.  FIRST(j, i, &flags) is element i's
 * item, KEY its key, LAST(j, to, pos, x) stores the sorted item x at pos
 * (`to` is scratch free for it). */
#define DEF_RADIX(NAME, ITEM, KT, KBITS, FIRST, KEY, LAST, VERDICT)                                   \
  static int NAME(rjob *j, int nt, int tid) {                                                        \
    enum { NP = (KBITS + D - 1) / D };                                                                \
    int64_t n = j->n, lo = n * tid / nt, hi = n * (tid + 1) / nt;                                    \
    ITEM *bufs[2] = {j->buf[0], j->buf[1]};                                                           \
    uint32_t fl = 0, *mine = j->cnt + (size_t)tid * MAX_NP * NB, *off = j->off + (size_t)tid * NB;   \
    if (nt == 1 && n <= SMALL) {                                                                      \
      ITEM *a = bufs[0];                                                                              \
      for (int64_t i = 0; i < n; i++) a[i] = FIRST(j, i, &fl);                                        \
      int v = VERDICT(j, fl);                                                                         \
      if (v != R_OK) return v;                                                                        \
      for (int64_t i = 1; i < n; i++) {                                                               \
        ITEM x = a[i];                                                                                \
        int64_t k = i;                                                                                \
        for (; k > 0 && KEY(a[k - 1]) > KEY(x); k--) a[k] = a[k - 1];                                 \
        a[k] = x;                                                                                     \
      }                                                                                               \
      for (int64_t i = 0; i < n; i++) LAST(j, bufs[1], i, a[i]);                                      \
      j->res = bufs[1];                                                                               \
      return R_OK;                                                                                    \
    }                                                                                                 \
    memset(mine, 0, sizeof(uint32_t) * NP * NB);                                                      \
    for (int64_t i = lo; i < hi; i++) {                                                               \
      KT k = KEY(FIRST(j, i, &fl));                                                                   \
      _Pragma("GCC unroll 8") for (int d = 0; d < NP; d++) mine[d * NB + dig(k, d)]++;               \
    }                                                                                                 \
    j->flags[tid] = fl;                                                                               \
    BARRIER(nt);                                                                                      \
    fl = 0;                                                                                           \
    for (int t = 0; t < nt; t++) fl |= j->flags[t];                                                   \
    int v = VERDICT(j, fl);                                                                           \
    if (v != R_OK) {                                                                                  \
      BARRIER(nt); /* everyone has read the flags and counters */                                     \
      return v;                                                                                       \
    }                                                                                                 \
    uint32_t none = 0;                                                                                \
    unsigned act = active_digits(j, NP, nt, KEY(FIRST(j, 0, &none)));                                 \
    int np = __builtin_popcount(act), done = 0;                                                       \
    const ITEM *from = NULL;                                                                          \
    ITEM *to = bufs[0];                                                                               \
    if (!np)                                                                                          \
      for (int64_t i = lo; i < hi; i++) LAST(j, to, i, FIRST(j, i, &none));                           \
    for (int d = 0; d < NP; d++) {                                                                    \
      if (!(act >> d & 1)) continue;                                                                  \
      to = bufs[done & 1];                                                                            \
      if (done) {                                                                                     \
        uint32_t *c = mine + (size_t)d * NB;                                                          \
        memset(c, 0, sizeof(uint32_t) * NB);                                                          \
        for (int64_t i = lo; i < hi; i++) c[dig(KEY(from[i]), d)]++;                                  \
        BARRIER(nt);                                                                                  \
      }                                                                                               \
      offsets(j, d, nt, tid, off);                                                                    \
      if (!done && done == np - 1) {                                                                  \
        for (int64_t i = lo; i < hi; i++) {                                                           \
          ITEM x = FIRST(j, i, &none);                                                                \
          LAST(j, to, off[dig(KEY(x), d)]++, x);                                                      \
        }                                                                                             \
      } else if (!done) {                                                                             \
        for (int64_t i = lo; i < hi; i++) {                                                           \
          ITEM x = FIRST(j, i, &none);                                                                \
          to[off[dig(KEY(x), d)]++] = x;                                                              \
        }                                                                                             \
      } else if (done == np - 1) {                                                                    \
        for (int64_t i = lo; i < hi; i++) LAST(j, to, off[dig(KEY(from[i]), d)]++, from[i]);          \
      } else {                                                                                        \
        for (int64_t i = lo; i < hi; i++) to[off[dig(KEY(from[i]), d)]++] = from[i];                  \
      }                                                                                               \
      from = to;                                                                                      \
      done++;                                                                                         \
      BARRIER(nt);                                                                                    \
    }                                                                                                 \
    if (!np) BARRIER(nt);                                                                             \
    if (tid == 0) j->res = to;                                                                        \
    return R_OK;                                                                                      \
  }

#define SELF(x) (x)
#define ITEM_KEY(x) ((x).key)
#define KO32_LAST(j, to, pos, x) ko32_last(j, pos, x)
#define KO64_LAST(j, to, pos, x) ko64_last(j, pos, x)
#define IT_LAST(j, to, pos, x) ((to)[pos] = (x))
DEF_RADIX(radix_ko32, uint32_t, uint32_t, 32, ko32_first, SELF, KO32_LAST, ko_verdict)
DEF_RADIX(radix_ko64, uint64_t, uint64_t, 64, ko64_first, SELF, KO64_LAST, ko_verdict)
DEF_RADIX(radix_it32, item32, uint32_t, 32, it32_first, ITEM_KEY, IT_LAST, it_verdict)
DEF_RADIX(radix_it64, item64, uint64_t, 64, it64_first, ITEM_KEY, IT_LAST, it_verdict)

/* Keys of 32 bits: f32 and integers up to 32 bits. */
static bool narrow_keys(shl_dtype t) { return t == DT_F32 || t == DT_I1 || (ku_plain_int(t) && dtype_bits(t) <= 32); }

static int keys_only_width(shl_dtype t) {
  switch (t) {
    case DT_F32:
    case DT_I32:
    case DT_UI32: return 32;
    case DT_F64:
    case DT_I64:
    case DT_UI64: return 64;
    default: return 0;
  }
}

/* out[k][pos] = in[k][idx(pos)] for positions [lo, hi) of the slice. */
#define PERMUTE(IDX)                                                                                   \
  do {                                                                                                 \
    for (uint32_t k = 0; k < j->n_ops; k++) {                                                          \
      size_t sz = dtype_bytes(j->in[k]->dtype);                                                        \
      const uint8_t *s = j->in[k]->data;                                                               \
      uint8_t *d = j->out[k]->data;                                                                    \
      if (sz == 4 && st == 1) {                                                                        \
        const uint32_t *s4 = (const uint32_t *)s + base;                                               \
        uint32_t *d4 = (uint32_t *)d + base;                                                           \
        for (int64_t i = lo; i < hi; i++) d4[i] = s4[IDX];                                             \
      } else {                                                                                         \
        for (int64_t i = lo; i < hi; i++)                                                              \
          memcpy(d + (size_t)(base + i * st) * sz, s + (size_t)(base + (int64_t)(IDX) * st) * sz, sz); \
      }                                                                                                \
    }                                                                                                  \
  } while (0)

/* Thread tid of nt sorts its part of slice j: keys alone when they map
 * back to the values, else items and a permutation of every operand. */
static int slice_sort(rjob *j, int nt, int tid) {
  int w = j->n_ops == 1 ? keys_only_width(j->t) : 0;
  int v = w == 32 ? radix_ko32(j, nt, tid) : w == 64 ? radix_ko64(j, nt, tid) : R_MERGED;
  if (v != R_MERGED) return v;
  bool narrow = narrow_keys(j->t);
  v = narrow ? radix_it32(j, nt, tid) : radix_it64(j, nt, tid);
  if (v != R_OK) return v;
  BARRIER(nt); /* j->res is set */
  int64_t st = j->st, base = j->base, lo = j->n * tid / nt, hi = j->n * (tid + 1) / nt;
  if (narrow) {
    const item32 *r = j->res;
    PERMUTE(r[i].idx);
  } else {
    const item64 *r = j->res;
    PERMUTE(r[i].idx);
  }
  return R_OK;
}

/* Scratch of one slice's sort with nt threads: two item arrays, counters, offsets. */
static size_t job_bytes(int64_t len, size_t item, int nt) {
  size_t items = ((size_t)len * item + 63) & ~(size_t)63;
  return 2 * items + (size_t)nt * (MAX_NP + 1) * NB * sizeof(uint32_t);
}

static void job_init(rjob *j, const sort_params *p, uint32_t n_ops, shl_buf *const *in, shl_buf *const *out,
                     int64_t q, uint8_t *mem, size_t item, int nt) {
  int64_t len = p->len, st = p->stride;
  size_t items = ((size_t)len * item + 63) & ~(size_t)63;
  shl_dtype t = in[0]->dtype;
  bool fl = dtype_is_float(t), sgn = dtype_class(t) == DTC_SINT;
  uint64_t sign = keys_only_width(t) == 32 ? 1ull << 31 : 1ull << 63;
  *j = (rjob){.p = p, .t = t, .n_ops = n_ops, .in = in, .out = out, .base = q / st * len * st + q % st, .n = len,
              .st = st, .flip = p->desc ? ~0ull : 0};
  j->fmask = fl ? sign - 1 : 0;
  j->xc = (fl || sgn ? sign : 0) ^ j->flip;
  j->buf[0] = mem;
  j->buf[1] = mem + items;
  j->cnt = (uint32_t *)(mem + 2 * items);
  j->off = j->cnt + (size_t)nt * MAX_NP * NB;
}

shl_status sort_keyed(const sort_params *p, uint32_t n_ops, shl_buf *const *in, shl_buf *const *out,
                      int64_t *nan_slices, int64_t *n_nan) {
  int64_t len = p->len, ns = p->n_slices;
  int maxt = omp_get_max_threads();
  if (maxt > MAX_T) maxt = MAX_T;
  /* Few long slices: all threads on each; else one slice per thread. */
  bool wide = maxt > 1 && ns < maxt && len >= WIDE_MIN;
  int nt_in = wide ? maxt : 1;
  int nt_out = !wide && ns > 1 && ns * len >= (1 << 15) ? maxt : 1;
  if (nt_out > ns) nt_out = (int)ns;
  size_t item = narrow_keys(in[0]->dtype) ? sizeof(item32) : sizeof(item64);
  size_t per = job_bytes(len, item, nt_in), need = per * (size_t)nt_out;
  sort_cache *c = p->cache;
  uint8_t *scratch = c->mem && c->size >= need ? c->mem : exec_malloc(need);
  if (!scratch) return st_oom();
  size_t have = need;
  if (scratch == c->mem) c->mem = NULL, have = c->size;
  *n_nan = 0;
  if (wide) {
    for (int64_t q = 0; q < ns; q++) {
      rjob j;
      int v = R_OK;
      job_init(&j, p, n_ops, in, out, q, scratch, item, nt_in);
#pragma omp parallel num_threads(nt_in)
      {
        int r = slice_sort(&j, omp_get_num_threads(), omp_get_thread_num());
        if (omp_get_thread_num() == 0) v = r;
      }
      if (v == R_NAN) nan_slices[(*n_nan)++] = q;
    }
  } else {
    int64_t nn = 0;
#pragma omp parallel for schedule(dynamic) num_threads(nt_out) if (nt_out > 1)
    for (int64_t q = 0; q < ns; q++) {
      rjob j;
      job_init(&j, p, n_ops, in, out, q, scratch + per * (size_t)omp_get_thread_num(), item, 1);
      if (slice_sort(&j, 1, 0) == R_NAN) {
        int64_t k;
#pragma omp atomic capture
        k = nn++;
        nan_slices[k] = q;
      }
    }
    *n_nan = nn;
  }
  if (!c->mem || c->size < have) {
    free(c->mem);
    c->mem = scratch;
    c->size = have;
  } else {
    free(scratch);
  }
  return NULL;
}
