/* How a global array is split over the devices of a run: the tile layout
 * that an HLO sharding string (mhlo.sharding) or a Shardy sharding
 * (sdy.sharding over an sdy.mesh) describes.  Dimension i is cut into
 * tiles[i] pieces of ceil(size / tiles[i]) elements, the last ones padded
 * when the size does not divide (as XLA shapes uneven shards; the padding
 * reads as zeros); each device holds one tile (devices that differ only in
 * replicated axes hold the same one).
 *
 * Sharding device ids are mapped onto the run's devices (replica r,
 * partition p; run device r * n_part + p): a sharding over n_part devices
 * names partitions (each replica holds the whole layout, as XLA's SPMD
 * partitions do); one over n_rep * n_part devices names run devices. */
#ifndef SHLOC_EXEC_COLLECTIVES_SHARD_H
#define SHLOC_EXEC_COLLECTIVES_SHARD_H

#include "dialects/sdy/sdy.h"
#include "exec/exec.h"

#define SHARD_MAX_RANK 16

typedef struct {
  int32_t rank;
  int64_t tiles[SHARD_MAX_RANK]; /* pieces per dimension (1: whole) */
  uint32_t n_dev;                /* devices of the run */
  uint32_t span;                 /* devices the sharding names: n_dev, or fewer (partitions of each replica) */
  int64_t *coord;                /* n_dev x rank: each device's tile, or -1 rows for a device holding nothing */
} shard_layout;

/* The layout of `text` (an HLO sharding: {replicated}, {maximal device=k},
 * {devices=[a,b,...]ids} with ids listed or as <=[dims] / <=[dims]T(perm),
 * optionally last_tile_dim_replicate or last_tile_dims={...}) for an array
 * of rank `rank`.  {manual} and tuple shardings have no layout (error). */
shl_status shard_from_hlo(shl_str text, int32_t rank, uint32_t n_rep, uint32_t n_part, shard_layout *out);
/* The layout of a Shardy sharding over `mesh`; with `manual` non-NULL only
 * those axes cut (a manual computation's local view). */
shl_status shard_from_sdy(const sdy_sharding *s, const sdy_mesh *mesh, const sdy_manual_axes *manual, int32_t rank,
                          uint32_t n_rep, uint32_t n_part, shard_layout *out);
void shard_layout_free(shard_layout *l);

/* Whether any dimension is cut. */
bool shard_is_split(const shard_layout *l);
/* The shape of one tile of a global shape (padded tiles included). */
shl_status shard_tile_dims(const shard_layout *l, const int64_t *global, int64_t *local);
/* Copies device dev's tile of the global array (shape gdims) to `local`
 * (tile shape; padding zero-filled), or the tile back into the global
 * array (padding dropped). */
void shard_extract(const shard_layout *l, uint32_t dev, const int64_t *gdims, const void *global, void *local,
                   size_t es);
void shard_insert(const shard_layout *l, uint32_t dev, const int64_t *gdims, const void *local, void *global,
                  size_t es);
/* Whether device dev holds a tile, and whether device a's tile is device b's. */
bool shard_holds(const shard_layout *l, uint32_t dev);
bool shard_same_tile(const shard_layout *l, uint32_t a, uint32_t b);

#endif
