/* The stable radix sort behind stablehlo.sort's recognised comparators.
 *
 * Keys are unsigned integers whose order is the comparator's: a single
 * f32/i32/ui32 or f64/i64/ui64 operand sorts its keys alone (a key maps
 * back to its value, branch-free both ways), anything else sorts (key,
 * index) items and then permutes every operand.  A slice is counted once,
 * scattered once by its top digit (MSD), and each bucket is then sorted
 * by its lower digits (LSD) while it is in cache; the first pass reads the
 * operand and the last one writes the result.
 *
 * A large slice is sorted by all threads together (counts per chunk, so
 * that a chunk's keys land behind those of earlier chunks: stable); small
 * slices go one per thread.
 *
 * Memory: keys alone are scattered into the result itself when it is a
 * contiguous slice apart from the operand, and each bucket's LSD passes
 * ping-pong with a per-thread stretch of scratch as long as the largest
 * bucket (the rest of the scratch is never touched, so never resident):
 * a 1M f32 sort holds its operand, its result and ~0.2 MB. */
#include <omp.h>
#include <stdlib.h>

#include "kutil.h"
#include "sort.h"

enum {
  D = 11,
  NB = 1 << D,
  SMALL = 48,                /* slices up to this sort by insertion */
  MAX_T = 16,                /* threads sharing one slice */
  MAX_C = 4 * MAX_T,         /* chunks of one slice */
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
  int64_t base, n, st;    /* the slice: first element, length, stride */
  uint64_t flip;          /* ~0 for descending keys */
  uint64_t fmask, xc;     /* keys alone: key = b ^ (fmask if b < 0) ^ xc */
  void *buf[2];           /* n items each: the MSD scatter's target (the result's storage when
                             a_out) and the buckets' scratch */
  bool a_out;             /* buf[0] is the result: a bucket's last pass must read buf[1] */
  int64_t bspan;          /* >0: thread t's bucket scratch is buf[1] + t * bspan */
  void *scratch_a;        /* buf[0] when the result cannot be */
  void *perm;             /* items: the sorted order, n indices */
  void *keys;             /* items of other than f32 keys: n keys, made once per slice (prep_keys) */
  uint32_t kflags[MAX_T]; /* per thread: what making its share of the keys saw */
  int64_t nc;             /* chunks of the counting and scattering passes */
  uint32_t *cnt;          /* per chunk: NB counters of the top digit */
  uint32_t *bcnt;         /* per thread: bucket counters */
  uint32_t *bstart;       /* NB + 1: where each bucket starts */
  uint32_t *tasks;        /* NB: the bucket after each task's last */
  int64_t n_tasks;
  int64_t next[4];        /* the next chunk to count, recount, scatter, task to sort */
  uint32_t flags[MAX_C];  /* per chunk: what the counting saw */
  uint64_t kmin[MAX_C];   /* per chunk: the smallest and largest keys */
  uint64_t kmax[MAX_C];
} rjob;

/* Barriers only when threads share the slice (a lone thread may be inside
 * a worksharing loop, where a barrier is not allowed). */
#define BARRIER(nt)              \
  do {                           \
    if ((nt) > 1) {              \
      _Pragma("omp barrier");    \
    }                            \
  } while (0)

/* ---- keys ---- */

/* Keys of 32 bits: f32 and integers up to 32 bits. */
static bool narrow_keys(shl_dtype t) { return t == DT_F32 || t == DT_I1 || (ku_plain_int(t) && dtype_bits(t) <= 32); }

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
 * values; NaNs become the canonical one, or (FLOAT compare) set flags.
 * f32 keys are read where they are; other key types are made into an
 * array of keys first (prep_keys), in loops typed once per slice. */
static inline item32 it32f_first(const rjob *j, int64_t i, uint32_t *fl) {
  const sort_params *p = j->p;
  uint32_t b = ((const uint32_t *)j->in[0]->data)[j->base + i * j->st], a = b & 0x7FFFFFFFu;
  if (a > 0x7F800000u) {
    *fl |= p->nan_fallback;
    if (p->canon_nan) b = (uint32_t)(p->nan_bits >> 63) << 31 | 0x7FC00000u;
  } else if (!a && (p->nan_fallback || p->canon_nan)) {
    b = 0;
  }
  uint32_t k = b ^ ((uint32_t)((int32_t)b >> 31) & 0x7FFFFFFFu) ^ 0x80000000u;
  return (item32){k ^ (uint32_t)j->flip, (uint32_t)i};
}

static inline item32 itk32_first(const rjob *j, int64_t i, uint32_t *fl) {
  (void)fl;
  return (item32){((const uint32_t *)j->keys)[i], (uint32_t)i};
}

static inline item64 itk64_first(const rjob *j, int64_t i, uint32_t *fl) {
  (void)fl;
  return (item64){((const uint64_t *)j->keys)[i], (uint64_t)i};
}

enum { PREP_BLOCK = 256 };

/* Integer keys of elements [lo, hi): the value (wrapped to its width) with
 * the sign bit flipped for signed types, so that keys order as values;
 * booleans are 0 or 1. */
#define PREP_INTS(CT, KT)                                                             \
  do {                                                                                \
    const CT *src = (const CT *)j->in[0]->data + j->base;                             \
    KT *dst = j->keys;                                                                \
    for (int64_t i = lo; i < hi; i++) {                                               \
      uint64_t u = (uint64_t)src[i * j->st] << up;                                    \
      uint64_t v = sgn ? (uint64_t)((int64_t)u >> up) : u >> up;                      \
      dst[i] = ((KT)v ^ (KT)sbit) ^ (KT)j->flip;                                      \
    }                                                                                 \
  } while (0)

static void prep_int_keys(rjob *j, int64_t lo, int64_t hi) {
  shl_dtype t = j->t;
  bool sgn = dtype_class(t) == DTC_SINT, wide = !narrow_keys(t);
  int up = 64 - (int)dtype_bits(t);
  uint64_t sbit = sgn ? (wide ? 1ull << 63 : 1ull << 31) : 0;
  switch (dtype_bytes(t) * 2 + wide) {
    case 2: PREP_INTS(uint8_t, uint32_t); break;
    case 4: PREP_INTS(uint16_t, uint32_t); break;
    case 8: PREP_INTS(uint32_t, uint32_t); break;
    case 17: PREP_INTS(uint64_t, uint64_t); break;
    default: break; /* no other integer storage */
  }
}

/* Copies the storage of elements [i, i + m) of the slice to dst (contiguous). */
static void gather(const rjob *j, int64_t i, int64_t m, void *dst) {
  size_t sz = dtype_bytes(j->t);
  const uint8_t *src = (const uint8_t *)j->in[0]->data + (size_t)(j->base + i * j->st) * sz;
  if (j->st == 1) {
    memcpy(dst, src, (size_t)m * sz);
    return;
  }
  switch (sz) {
    case 1:
      for (int64_t k = 0; k < m; k++) ((uint8_t *)dst)[k] = src[k * j->st];
      break;
    case 2:
      for (int64_t k = 0; k < m; k++) ((uint16_t *)dst)[k] = ((const uint16_t *)src)[k * j->st];
      break;
    case 4:
      for (int64_t k = 0; k < m; k++) ((uint32_t *)dst)[k] = ((const uint32_t *)src)[k * j->st];
      break;
    default:
      for (int64_t k = 0; k < m; k++) ((uint64_t *)dst)[k] = ((const uint64_t *)src)[k * j->st];
      break;
  }
}

/* Float keys (other than f32) of elements [lo, hi): the value as f64 bits
 * (exact), zeros and NaNs as in it32f_first, ordered as unsigned keys. */
static uint32_t prep_float_keys(rjob *j, int64_t lo, int64_t hi) {
  const sort_params *p = j->p;
  uint64_t storage[PREP_BLOCK], sign = 1ull << 63, *dst = j->keys;
  double v[PREP_BLOCK];
  uint32_t fl = 0;
  for (int64_t i = lo; i < hi; i += PREP_BLOCK) {
    int64_t m = hi - i < PREP_BLOCK ? hi - i : PREP_BLOCK;
    gather(j, i, m, storage);
    fp_to_f64_n(j->t, storage, v, (size_t)m);
    for (int64_t k = 0; k < m; k++) {
      uint64_t b = fp_f64_bits(v[k]), a = b & ~sign;
      if (a > 0x7FF0000000000000ull) {
        fl |= p->nan_fallback;
        if (p->canon_nan) b = p->nan_bits;
      } else if (!a && (p->nan_fallback || p->canon_nan)) {
        b = 0;
      }
      dst[i + k] = (b ^ ((uint64_t)((int64_t)b >> 63) & ~sign) ^ sign) ^ j->flip;
    }
  }
  return fl;
}

/* Thread tid of nt makes its share of the slice's keys. */
static void prep_keys(rjob *j, int nt, int tid) {
  int64_t lo = j->n * tid / nt, hi = j->n * (tid + 1) / nt;
  if (j->p->is_float)
    j->kflags[tid] = prep_float_keys(j, lo, hi);
  else
    prep_int_keys(j, lo, hi);
  BARRIER(nt);
}

#define NO_PREP(j, nt, tid) ((void)0)

static int it_verdict(const rjob *j, uint32_t fl) {
  (void)j;
  return fl ? R_NAN : R_OK;
}

static int itk_verdict(const rjob *j, uint32_t fl) {
  for (int t = 0; t < MAX_T; t++) fl |= j->kflags[t];
  return fl ? R_NAN : R_OK;
}

/* ---- the sort ----
 *
 * One slice: (1) count the top digit of the keys, chunk by chunk, noting
 * the key range; (2) scatter by the top digit (chunks in order and each
 * chunk in order: stable), whose 11 bits end at the highest bit where keys
 * differ; (3) sort each bucket by its lower digits, LSD, while it sits in
 * cache.  Threads take chunks and buckets as they come free, so a
 * descheduled thread delays the others only by what it holds. */

/* The next unclaimed task of counter q. */
static int64_t next_task(rjob *j, int q) {
  int64_t t;
#pragma omp atomic capture
  t = j->next[q]++;
  return t;
}

static int64_t chunk_at(const rjob *j, int64_t c) { return j->n * c / j->nc; }

/* Turns the chunks' counts of the top digit into scatter offsets, notes
 * where each bucket starts, and groups buckets into tasks of similar size. */
static void plan_buckets(rjob *j, int nt) {
  uint32_t sum = 0;
  for (int b = 0; b < NB; b++) {
    j->bstart[b] = sum;
    for (int64_t c = 0; c < j->nc; c++) {
      uint32_t *o = &j->cnt[(size_t)c * NB + b], v = *o;
      *o = sum;
      sum += v;
    }
  }
  j->bstart[NB] = sum;
  uint32_t most = 0;
  for (int b = 0; b < NB; b++)
    if (j->bstart[b + 1] - j->bstart[b] > most) most = j->bstart[b + 1] - j->bstart[b];
  /* every thread's bucket scratch fits in buf[1] (otherwise a bucket uses its own range) */
  j->bspan = (int64_t)most * nt <= j->n ? (int64_t)most : 0;
  int64_t target = j->n / (nt * 16) + 1;
  uint32_t first = 0;
  j->n_tasks = 0;
  for (int b = 0; b < NB; b++) {
    if (j->bstart[b + 1] - j->bstart[first] >= target || b == NB - 1) {
      j->tasks[j->n_tasks++] = (uint32_t)b + 1;
      first = (uint32_t)b + 1;
    }
  }
}

/* Where the top digit starts: its D bits end at the highest bit in which
 * the smallest and largest keys differ (the bits above are shared). */
static int top_shift(uint64_t lo, uint64_t hi) {
  int hb = 63 - __builtin_clzll(lo ^ hi);
  return hb >= D - 1 ? hb - (D - 1) : 0;
}

/* Buckets of this size on sort by up to 11-bit digits; smaller ones by
 * up to 8-bit ones (fewer counters to clear and sum). */
enum { BUCKET_WIDE = 1 << 12, MAX_BP = 8 };

/* NAME(j, x, y, s, m, bits, h): sorts x[0..m), the items of positions
 * s..s+m, by the low `bits` bits of the keys (the others are equal),
 * storing the result through LAST; y is scratch of m items, h counters of
 * MAX_BP x NB. */
#define DEF_BUCKET(NAME, ITEM, KT, KEY, LAST)                                                  \
  static void NAME(rjob *j, ITEM *x, ITEM *y, int64_t s, int64_t m, int bits, uint32_t *h) {   \
    if (m <= SMALL) {                                                                          \
      for (int64_t i = 1; i < m; i++) {                                                        \
        ITEM v = x[i];                                                                         \
        int64_t k = i;                                                                         \
        for (; k > 0 && KEY(x[k - 1]) > KEY(v); k--) x[k] = x[k - 1];                          \
        x[k] = v;                                                                              \
      }                                                                                        \
      for (int64_t i = 0; i < m; i++) LAST(j, s + i, x[i]);                                    \
      return;                                                                                  \
    }                                                                                          \
    int wmax = m >= BUCKET_WIDE ? D : 8, np = (bits + wmax - 1) / wmax, w = (bits + np - 1) / np; \
    int nb = 1 << w;                                                                           \
    KT mask = (KT)(nb - 1), k0 = KEY(x[0]);                                                    \
    memset(h, 0, sizeof(uint32_t) * (size_t)(np * nb));                                        \
    if (np == 2) {                                                                             \
      for (int64_t i = 0; i < m; i++) {                                                        \
        KT k = KEY(x[i]);                                                                      \
        h[k & mask]++;                                                                         \
        h[nb + (int)((k >> w) & mask)]++;                                                      \
      }                                                                                        \
    } else {                                                                                   \
      for (int64_t i = 0; i < m; i++) {                                                        \
        KT k = KEY(x[i]);                                                                      \
        for (int p = 0; p < np; p++) h[p * nb + (int)((k >> (p * w)) & mask)]++;               \
      }                                                                                        \
    }                                                                                          \
    int left = 0;                                                                              \
    ITEM *y0 = y;                                                                              \
    for (int p = 0; p < np; p++) left += h[p * nb + (int)((k0 >> (p * w)) & mask)] != m;       \
    if (!left)                                                                                 \
      for (int64_t i = 0; i < m; i++) LAST(j, s + i, x[i]);                                    \
    for (int p = 0; p < np && left; p++) {                                                     \
      uint32_t *o = h + p * nb, sum = 0;                                                       \
      int sh = p * w;                                                                          \
      if (o[(k0 >> sh) & mask] == m) continue;                                                 \
      if (left == 1 && j->a_out && x != y0) {                                                  \
        /* the last pass must not write the result over the items it reads */                 \
        memcpy(y, x, sizeof(ITEM) * (size_t)m);                                                \
        ITEM *t = x;                                                                           \
        x = y;                                                                                 \
        y = t;                                                                                 \
      }                                                                                        \
      for (int q = 0; q < nb; q++) {                                                           \
        uint32_t v = o[q];                                                                     \
        o[q] = sum;                                                                            \
        sum += v;                                                                              \
      }                                                                                        \
      if (--left) {                                                                            \
        for (int64_t i = 0; i < m; i++) y[o[(KEY(x[i]) >> sh) & mask]++] = x[i];               \
        ITEM *t = x;                                                                           \
        x = y;                                                                                 \
        y = t;                                                                                 \
      } else {                                                                                 \
        for (int64_t i = 0; i < m; i++) LAST(j, s + o[(KEY(x[i]) >> sh) & mask]++, x[i]);      \
      }                                                                                        \
    }                                                                                          \
  }

/* NAME(j, nt, tid): thread tid of nt sorts its share of slice j; every
 * thread returns the same verdict.  FIRST(j, i, &flags) is element i's
 * item, KEY its key, LAST(j, pos, x) stores the sorted item x at pos.
 * The counting read guesses the top digit to be the key's highest bits
 * (any keys of both signs) and counts again when the key range says
 * otherwise. */
#define DEF_RADIX(NAME, BUCKET, ITEM, KT, KBITS, PREP, FIRST, KEY, LAST, VERDICT)                  \
  static int NAME(rjob *j, int nt, int tid) {                                                      \
    enum { GUESS = KBITS - D };                                                                     \
    int64_t n = j->n, nc = j->nc;                                                                   \
    ITEM *a = j->buf[0], *b = j->buf[1];                                                            \
    uint32_t fl = 0, none = 0;                                                                      \
    PREP(j, nt, tid);                                                                               \
    if (nt == 1 && n <= SMALL) {                                                                    \
      for (int64_t i = 0; i < n; i++) a[i] = FIRST(j, i, &fl);                                      \
      int v = VERDICT(j, fl);                                                                       \
      if (v == R_OK) BUCKET(j, a, b, 0, n, KBITS, NULL);                                            \
      return v;                                                                                     \
    }                                                                                               \
    for (int64_t c; (c = next_task(j, 0)) < nc;) {                                                  \
      uint32_t *h = j->cnt + (size_t)c * NB, f = 0;                                                 \
      KT lo = (KT)~(KT)0, hi = 0;                                                                   \
      memset(h, 0, sizeof(uint32_t) * NB);                                                          \
      for (int64_t i = chunk_at(j, c), e = chunk_at(j, c + 1); i < e; i++) {                        \
        KT k = KEY(FIRST(j, i, &f));                                                                \
        lo = k < lo ? k : lo;                                                                       \
        hi = k > hi ? k : hi;                                                                       \
        h[(k >> GUESS) & (NB - 1)]++;                                                                            \
      }                                                                                             \
      j->flags[c] = f;                                                                              \
      j->kmin[c] = lo;                                                                              \
      j->kmax[c] = hi;                                                                              \
    }                                                                                               \
    BARRIER(nt);                                                                                    \
    KT lo = (KT)j->kmin[0], hi = (KT)j->kmax[0];                                                    \
    for (int64_t c = 0; c < nc; c++) {                                                              \
      fl |= j->flags[c];                                                                            \
      lo = (KT)j->kmin[c] < lo ? (KT)j->kmin[c] : lo;                                               \
      hi = (KT)j->kmax[c] > hi ? (KT)j->kmax[c] : hi;                                               \
    }                                                                                               \
    int v = VERDICT(j, fl), sh = v == R_OK && lo != hi ? top_shift(lo, hi) : -1;                   \
    if (sh < 0) {                                                                                   \
      if (v == R_OK) /* all keys equal */                                                           \
        for (int64_t i = n * tid / nt, e = n * (tid + 1) / nt; i < e; i++)                          \
          LAST(j, i, FIRST(j, i, &none));                                                           \
      BARRIER(nt); /* everyone is done with the flags */                                            \
      return v;                                                                                     \
    }                                                                                               \
    if (sh != GUESS) {                                                                              \
      for (int64_t c; (c = next_task(j, 1)) < nc;) {                                                \
        uint32_t *h = j->cnt + (size_t)c * NB;                                                      \
        memset(h, 0, sizeof(uint32_t) * NB);                                                        \
        for (int64_t i = chunk_at(j, c), e = chunk_at(j, c + 1); i < e; i++)                        \
          h[(KEY(FIRST(j, i, &none)) >> sh) & (NB - 1)]++;                                          \
      }                                                                                             \
      BARRIER(nt);                                                                                  \
    }                                                                                               \
    if (tid == 0) plan_buckets(j, nt);                                                              \
    BARRIER(nt);                                                                                    \
    for (int64_t c; (c = next_task(j, 2)) < nc;) {                                                  \
      uint32_t *o = j->cnt + (size_t)c * NB;                                                        \
      int64_t i = chunk_at(j, c), e = chunk_at(j, c + 1);                                           \
      if (sh == 0) {                                                                                \
        for (; i < e; i++) {                                                                        \
          ITEM x = FIRST(j, i, &none);                                                              \
          LAST(j, o[KEY(x) & (NB - 1)]++, x);                                                       \
        }                                                                                           \
      } else {                                                                                      \
        for (; i < e; i++) {                                                                        \
          ITEM x = FIRST(j, i, &none);                                                              \
          a[o[(KEY(x) >> sh) & (NB - 1)]++] = x;                                                    \
        }                                                                                           \
      }                                                                                             \
    }                                                                                               \
    BARRIER(nt);                                                                                    \
    if (sh == 0) return R_OK;                                                                       \
    uint32_t *h = j->bcnt + (size_t)tid * MAX_BP * NB;                                              \
    for (int64_t t; (t = next_task(j, 3)) < j->n_tasks;) {                                          \
      for (uint32_t q = t ? j->tasks[t - 1] : 0; q < j->tasks[t]; q++) {                            \
        int64_t s = j->bstart[q], m = (int64_t)j->bstart[q + 1] - s;                                \
        if (m) BUCKET(j, a + s, j->bspan ? b + tid * j->bspan : b + s, s, m, sh, h);                \
      }                                                                                             \
    }                                                                                               \
    BARRIER(nt);                                                                                    \
    return R_OK;                                                                                    \
  }

#define SELF(x) (x)
#define ITEM_KEY(x) ((x).key)
#define IT32_LAST(j, pos, x) (((uint32_t *)(j)->perm)[pos] = (x).idx)
#define IT64_LAST(j, pos, x) (((uint64_t *)(j)->perm)[pos] = (x).idx)
DEF_BUCKET(bucket_ko32, uint32_t, uint32_t, SELF, ko32_last)
DEF_BUCKET(bucket_ko64, uint64_t, uint64_t, SELF, ko64_last)
DEF_BUCKET(bucket_it32, item32, uint32_t, ITEM_KEY, IT32_LAST)
DEF_BUCKET(bucket_it64, item64, uint64_t, ITEM_KEY, IT64_LAST)
DEF_RADIX(radix_ko32, bucket_ko32, uint32_t, uint32_t, 32, NO_PREP, ko32_first, SELF, ko32_last, ko_verdict)
DEF_RADIX(radix_ko64, bucket_ko64, uint64_t, uint64_t, 64, NO_PREP, ko64_first, SELF, ko64_last, ko_verdict)
DEF_RADIX(radix_it32f, bucket_it32, item32, uint32_t, 32, NO_PREP, it32f_first, ITEM_KEY, IT32_LAST, it_verdict)
DEF_RADIX(radix_itk32, bucket_it32, item32, uint32_t, 32, prep_keys, itk32_first, ITEM_KEY, IT32_LAST, itk_verdict)
DEF_RADIX(radix_itk64, bucket_it64, item64, uint64_t, 64, prep_keys, itk64_first, ITEM_KEY, IT64_LAST, itk_verdict)


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
  if (tid == 0) { /* everyone is past the keys-only sort */
    memset(j->next, 0, sizeof j->next);
    j->buf[0] = j->scratch_a;
    j->a_out = false;
  }
  BARRIER(nt);
  v = j->t == DT_F32 ? radix_it32f(j, nt, tid) : narrow ? radix_itk32(j, nt, tid) : radix_itk64(j, nt, tid);
  if (v != R_OK) return v;
  int64_t st = j->st, base = j->base, lo = j->n * tid / nt, hi = j->n * (tid + 1) / nt;
  if (narrow) {
    const uint32_t *r = j->perm;
    PERMUTE(r[i]);
  } else {
    const uint64_t *r = j->perm;
    PERMUTE(r[i]);
  }
  return R_OK;
}


/* Scratch of one slice's sort with nt threads: chunk and bucket counters,
 * bucket starts and tasks, two item arrays, the permutation, the keys. */
static size_t job_bytes(int64_t len, size_t item, int nt, int64_t nc) {
  return 2 * plan_align64((size_t)len * item) + plan_align64((size_t)len * item / 2) + (size_t)len * item / 2 +
         plan_align64(((size_t)nc + (size_t)nt * MAX_BP + 2) * NB * sizeof(uint32_t)) + 64;
}

static void job_init(rjob *j, const sort_params *p, uint32_t n_ops, shl_buf *const *in, shl_buf *const *out,
                     int64_t q, uint8_t *mem, size_t item, int nt, int64_t nc) {
  int64_t len = p->len, st = p->stride;
  shl_dtype t = in[0]->dtype;
  bool fl = dtype_is_float(t), sgn = dtype_class(t) == DTC_SINT;
  uint64_t sign = keys_only_width(t) == 32 ? 1ull << 31 : 1ull << 63;
  *j = (rjob){.p = p, .t = t, .n_ops = n_ops, .in = in, .out = out, .base = q / st * len * st + q % st, .n = len,
              .st = st, .flip = p->desc ? ~0ull : 0, .nc = nc};
  j->fmask = fl ? sign - 1 : 0;
  j->xc = (fl || sgn ? sign : 0) ^ j->flip;
  /* Counters first, then the buckets' scratch: what keys alone touch is
   * together at the start (exec_malloc's memory comes in 2 MiB pages). */
  size_t counters = ((size_t)nc + (size_t)nt * MAX_BP + 2) * NB * sizeof(uint32_t);
  j->cnt = (uint32_t *)mem;
  j->bcnt = j->cnt + (size_t)nc * NB;
  j->bstart = j->bcnt + (size_t)nt * MAX_BP * NB;
  j->tasks = j->bstart + NB + 1;
  mem += plan_align64(counters);
  j->buf[1] = mem;
  mem += plan_align64((size_t)len * item);
  j->buf[0] = j->scratch_a = mem;
  mem += plan_align64((size_t)len * item);
  j->perm = mem;
  mem += plan_align64((size_t)len * item / 2);
  j->keys = mem;
  /* keys alone go straight into a contiguous result apart from the operand */
  int w = n_ops == 1 ? keys_only_width(t) : 0;
  if (w && st == 1 && out[0]->data != in[0]->data) {
    j->buf[0] = (uint8_t *)out[0]->data + (size_t)j->base * (size_t)(w / 8);
    j->a_out = true;
  }
}

shl_status sort_keyed(const sort_params *p, sort_cache *c, uint32_t n_ops, shl_buf *const *in, shl_buf *const *out,
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
  int64_t nc = wide ? 4 * nt_in : 1;
  size_t per = job_bytes(len, item, nt_in, nc), need = per * (size_t)nt_out;
  /* malloc, not exec_malloc: keys alone touch only the first ~0.2 MB, where
   * a 2 MiB page would be resident in full (later runs reuse the memory) */
  uint8_t *scratch = c->mem && c->size >= need ? c->mem : malloc(need);
  if (!scratch) return st_oom();
  size_t have = need;
  if (scratch == c->mem) c->mem = NULL, have = c->size;
  *n_nan = 0;
  if (wide) {
    for (int64_t q = 0; q < ns; q++) {
      rjob j;
      int v = R_OK;
      job_init(&j, p, n_ops, in, out, q, scratch, item, nt_in, nc);
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
      job_init(&j, p, n_ops, in, out, q, scratch + per * (size_t)omp_get_thread_num(), item, 1, 1);
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
