/* Strided boxes: see strided.h. */
#include "strided.h"

#include <string.h>

enum { PAR_MIN = 1 << 16, PAR_CHUNK = 1 << 14, TILE = 32 };

void strided_row_major(int32_t rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

int64_t strided_count(const strided_box *b) {
  int64_t n = 1;
  for (int32_t d = 0; d < b->rank; d++) n *= b->dims[d];
  return n;
}

void strided_finish(strided_box *b, size_t esz) {
  int32_t r = 0;
  if (strided_count(b) == 0) {
    b->rank = 1;
    b->dims[0] = 0;
    b->ds[0] = b->ss[0] = 0;
    return;
  }
  for (int32_t d = 0; d < b->rank; d++) {
    if (b->dims[d] == 1) continue;
    /* Merge into the previous kept dimension when it steps exactly over this one. */
    if (r > 0 && b->ss[r - 1] == b->ss[d] * b->dims[d] && b->ds[r - 1] == b->ds[d] * b->dims[d]) {
      b->dims[r - 1] *= b->dims[d];
      b->ss[r - 1] = b->ss[d];
      b->ds[r - 1] = b->ds[d];
      continue;
    }
    b->dims[r] = b->dims[d];
    b->ss[r] = b->ss[d];
    b->ds[r] = b->ds[d];
    r++;
  }
  b->rank = r;
  for (int32_t d = 0; d < r; d++) {
    b->ss[d] *= (int64_t)esz;
    b->ds[d] *= (int64_t)esz;
  }
}

static void walk_rec(const strided_box *b, int32_t l, uint8_t *d, const uint8_t *s, strided_row_fn fn, void *ctx) {
  if (l == b->rank - 1) {
    fn(ctx, d, s, b->dims[l], b->ds[l], b->ss[l]);
    return;
  }
  for (int64_t i = 0; i < b->dims[l]; i++) walk_rec(b, l + 1, d + i * b->ds[l], s + i * b->ss[l], fn, ctx);
}

void strided_walk(const strided_box *b, uint8_t *dst, const uint8_t *src, strided_row_fn fn, void *ctx, bool parallel) {
  int64_t n = strided_count(b);
  if (n == 0) return;
  if (b->rank == 0) {
    fn(ctx, dst, src, 1, 0, 0);
    return;
  }
  if (!parallel || n < PAR_MIN) {
    walk_rec(b, 0, dst, src, fn, ctx);
    return;
  }
  if (b->rank == 1) {
    int64_t len = b->dims[0], nc = (len + PAR_CHUNK - 1) / PAR_CHUNK;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < nc; c++) {
      int64_t lo = c * PAR_CHUNK, m = len - lo < PAR_CHUNK ? len - lo : PAR_CHUNK;
      fn(ctx, dst + lo * b->ds[0], src + lo * b->ss[0], m, b->ds[0], b->ss[0]);
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < b->dims[0]; i++) walk_rec(b, 1, dst + i * b->ds[0], src + i * b->ss[0], fn, ctx);
}

/* ---- copying ---- */

typedef struct {
  uint64_t lo, hi;
} u128;

#define COPY_LOOP(T)                                                             \
  for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, sizeof(T)); \
  break

static void copy_row(void *ctx, uint8_t *d, const uint8_t *s, int64_t n, int64_t ds, int64_t ss) {
  size_t esz = *(const size_t *)ctx;
  if (ds == (int64_t)esz && ss == (int64_t)esz) {
    memcpy(d, s, (size_t)n * esz);
    return;
  }
  if (ds == (int64_t)esz && ss == 0) {
    /* A broadcast row. */
    strided_fill(d, n, s, esz);
    return;
  }
  switch (esz) {
    case 1: COPY_LOOP(uint8_t);
    case 2: COPY_LOOP(uint16_t);
    case 4: COPY_LOOP(uint32_t);
    case 8: COPY_LOOP(uint64_t);
    case 16: COPY_LOOP(u128);
    default:
      for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, esz);
      break;
  }
}

typedef struct {
  size_t esz;
  int64_t rows, cols, dr, dc, sr, sc; /* plane shape and byte strides */
} tile_ctx;

#define TILE_LOOP(T)                                                                   \
  for (int64_t i = i0; i < i1; i++)                                                    \
    for (int64_t j = j0; j < j1; j++) memcpy(d + i * t->dr + j * t->dc, s + i * t->sr + j * t->sc, sizeof(T)); \
  break

/* Block row bi (TILE rows) of a plane, tile by tile. */
static void tile_rows(const tile_ctx *t, uint8_t *d, const uint8_t *s, int64_t bi) {
  int64_t i0 = bi * TILE, i1 = i0 + TILE < t->rows ? i0 + TILE : t->rows;
  for (int64_t j0 = 0; j0 < t->cols; j0 += TILE) {
    int64_t j1 = j0 + TILE < t->cols ? j0 + TILE : t->cols;
    switch (t->esz) {
      case 1: TILE_LOOP(uint8_t);
      case 2: TILE_LOOP(uint16_t);
      case 4: TILE_LOOP(uint32_t);
      case 8: TILE_LOOP(uint64_t);
      default: TILE_LOOP(u128);
    }
  }
}

/* One 2-D plane whose source runs along rows and destination along columns.
 * A small plane (a batch of small matrices calls this once per matrix) stays
 * out of OpenMP: entering even a one-thread parallel region costs more than
 * moving a few hundred bytes. */
static void tile_plane(void *ctx, uint8_t *d, const uint8_t *s, int64_t n, int64_t ds, int64_t ss) {
  (void)n, (void)ds, (void)ss;
  const tile_ctx *t = ctx;
  int64_t nbr = (t->rows + TILE - 1) / TILE;
  if (t->rows * t->cols < PAR_MIN) {
    for (int64_t bi = 0; bi < nbr; bi++) tile_rows(t, d, s, bi);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t bi = 0; bi < nbr; bi++) tile_rows(t, d, s, bi);
}

void strided_copy(const strided_box *b, void *dst, const void *src, size_t esz) {
  int32_t r = b->rank;
  int64_t e = (int64_t)esz;
  strided_box sw;
  if (r >= 2 && b->ss[r - 1] == e && b->ds[r - 1] != e && b->ds[r - 2] == e) {
    /* The same pair the other way round (e.g. row-major into column-major
     * for a custom call's layout): swapping the two dims gives the tiled
     * case below instead of a row of scattered stores per source row. */
    sw = *b;
    sw.dims[r - 2] = b->dims[r - 1], sw.dims[r - 1] = b->dims[r - 2];
    sw.ds[r - 2] = b->ds[r - 1], sw.ds[r - 1] = b->ds[r - 2];
    sw.ss[r - 2] = b->ss[r - 1], sw.ss[r - 1] = b->ss[r - 2];
    b = &sw;
  }
  if (r >= 2 && b->ds[r - 1] == e && b->ss[r - 1] != e && b->ss[r - 2] == e && b->dims[r - 1] >= 4 && b->dims[r - 2] >= 4) {
    /* Transposed innermost pair: walk the outer dimensions, tile each plane. */
    tile_ctx t = {esz, b->dims[r - 2], b->dims[r - 1], b->ds[r - 2], b->ds[r - 1], b->ss[r - 2], b->ss[r - 1]};
    strided_box outer = *b;
    outer.rank = r - 1;
    outer.dims[r - 2] = 1;
    strided_walk(&outer, dst, src, tile_plane, &t, false);
    return;
  }
  strided_walk(b, dst, src, copy_row, &esz, true);
}

void strided_fill(void *dst, int64_t n, const void *value, size_t esz) {
  if (n <= 0 || !esz) return;
  const uint8_t *v = value;
  bool same = true;
  for (size_t k = 1; k < esz; k++) same = same && v[k] == v[0];
  size_t total = (size_t)n * esz;
  if (same) {
    memset(dst, v[0], total);
    return;
  }
  uint8_t *d = dst;
  memcpy(d, v, esz);
  /* Doubling copies: each round copies what is already filled. */
  for (size_t done = esz; done < total;) {
    size_t m = done < total - done ? done : total - done;
    memcpy(d + done, d, m);
    done += m;
  }
}
