/* Tile layouts (src/exec/collectives/shard.c): HLO sharding strings and
 * Shardy shardings give each device the tile XLA's rules give it (expected
 * tiles worked out by hand from the tile assignment / mesh coordinates),
 * bad strings are errors, and extract/insert move the right elements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "exec/collectives/shard.h"

static shard_layout hlo(const char *s, int32_t rank, uint32_t nr, uint32_t np) {
  shard_layout l;
  shl_status st = shard_from_hlo(str_of(s), rank, nr, np, &l);
  if (st) fail_msg("%s: %s", s, shloc_status_message(st));
  return l;
}

static void expect_error(const char *s, int32_t rank, uint32_t np, const char *msg) {
  shard_layout l;
  shl_status st = shard_from_hlo(str_of(s), rank, 1, np, &l);
  assert_non_null(st);
  if (!strstr(shloc_status_message(st), msg)) fail_msg("%s: %s", s, shloc_status_message(st));
  shloc_status_free(st);
}

/* Device d's tile coordinate in dimension i. */
static int64_t coord(const shard_layout *l, uint32_t d, int32_t i) { return l->coord[(size_t)d * l->rank + i]; }

static void hlo_forms(void **state) {
  (void)state;
  shard_layout l = hlo("{replicated}", 2, 1, 4);
  assert_false(shard_is_split(&l));
  shard_layout_free(&l);
  /* [2,1,2] with devices 0,2,1,3: 0 and 2 share row tile 0, 1 and 3 row tile 1. */
  l = hlo("{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}", 2, 1, 4);
  assert_int_equal(l.tiles[0], 2);
  assert_int_equal(l.tiles[1], 1);
  assert_int_equal(coord(&l, 0, 0), 0);
  assert_int_equal(coord(&l, 2, 0), 0);
  assert_int_equal(coord(&l, 1, 0), 1);
  assert_int_equal(coord(&l, 3, 0), 1);
  assert_true(shard_same_tile(&l, 0, 2));
  assert_false(shard_same_tile(&l, 0, 1));
  shard_layout_free(&l);
  /* iota [2,2] transposed: device list 0,2,1,3. */
  l = hlo("{devices=[4]<=[2,2]T(1,0)}", 1, 1, 4);
  assert_int_equal(coord(&l, 0, 0), 0);
  assert_int_equal(coord(&l, 2, 0), 1);
  assert_int_equal(coord(&l, 1, 0), 2);
  assert_int_equal(coord(&l, 3, 0), 3);
  shard_layout_free(&l);
  /* Over 2 partitions with 2 replicas: both replicas hold the layout. */
  l = hlo("{devices=[2]<=[2]}", 1, 2, 2);
  assert_int_equal(coord(&l, 0, 0), 0);
  assert_int_equal(coord(&l, 1, 0), 1);
  assert_int_equal(coord(&l, 2, 0), 0);
  assert_int_equal(coord(&l, 3, 0), 1);
  shard_layout_free(&l);
  l = hlo("{maximal device=1}", 2, 1, 2);
  assert_false(shard_holds(&l, 0));
  assert_true(shard_holds(&l, 1));
  assert_true(shard_is_split(&l));
  shard_layout_free(&l);
}

static void hlo_errors(void **state) {
  (void)state;
  expect_error("{manual}", 1, 2, "no tile layout");
  expect_error("{devices=[2]0,0}", 1, 2, "not a permutation");
  expect_error("{devices=[3]<=[3]}", 1, 2, "spans 3 devices");
  expect_error("{devices=[2,2]<=[4]}", 1, 4, "without last_tile_dim_replicate");
  expect_error("{devices=[2]<=[2]T(0,0)}", 1, 2, "T(permutation)");
  expect_error("{devices=[2,2]<=[4]}", 3, 4, "fewer tile dimensions");
  expect_error("{devices=[99999999999]<=[2]}", 1, 2, "expects devices=[dims]");
  expect_error("{devices=[4096,4096]<=[16777216]}", 2, 2, "too many");
  expect_error("{maximal device=7}", 1, 2, "device of the run");
}

static void sdy_mesh_axes(void **state) {
  (void)state;
  /* Mesh x=2, y=2 (position = x * 2 + y); dims [{"y"}, {"x"}]. */
  sdy_mesh_axis axes[2] = {{str_of("x"), 2}, {str_of("y"), 2}};
  sdy_mesh mesh = {.kind = SDY_MESH, .n_axes = 2, .axes = axes};
  sdy_axis_ref ry = {str_of("y"), 0, 0}, rx = {str_of("x"), 0, 0};
  sdy_dim_sharding dims[2] = {{1, &ry, true, -1}, {1, &rx, true, -1}};
  sdy_sharding s = {.kind = SDY_SHARDING, .rank = 2, .dims = dims};
  shard_layout l;
  assert_null(shard_from_sdy(&s, &mesh, NULL, 2, 1, 4, &l));
  for (uint32_t d = 0; d < 4; d++) {
    assert_int_equal(coord(&l, d, 0), d % 2);
    assert_int_equal(coord(&l, d, 1), d / 2);
  }
  shard_layout_free(&l);
  /* Only "x" manual: dimension 0 (y) stays whole. */
  shl_str manual_names[1] = {str_of("x")};
  sdy_manual_axes ma = {SDY_MANUAL_AXES, 1, manual_names};
  assert_null(shard_from_sdy(&s, &mesh, &ma, 2, 1, 4, &l));
  assert_int_equal(l.tiles[0], 1);
  assert_int_equal(l.tiles[1], 2);
  shard_layout_free(&l);
  /* Explicit device ids [1, 0]: device 1 sits at mesh position 0. */
  static const int64_t ids[2] = {1, 0};
  sdy_mesh_axis ax2 = {str_of("x"), 2};
  sdy_mesh m2 = {.kind = SDY_MESH, .n_axes = 1, .n_device_ids = 2, .axes = &ax2, .device_ids = ids};
  sdy_dim_sharding dx = {1, &rx, true, -1};
  sdy_sharding sx = {.kind = SDY_SHARDING, .rank = 1, .dims = &dx};
  assert_null(shard_from_sdy(&sx, &m2, NULL, 1, 1, 2, &l));
  assert_int_equal(coord(&l, 1, 0), 0);
  assert_int_equal(coord(&l, 0, 0), 1);
  shard_layout_free(&l);
  /* Sub-axis "x":(2)2 of x=4: coordinate (x / 2) % 2. */
  sdy_mesh_axis ax4 = {str_of("x"), 4};
  sdy_mesh m4 = {.kind = SDY_MESH, .n_axes = 1, .axes = &ax4};
  sdy_axis_ref sub = {str_of("x"), 2, 2};
  sdy_dim_sharding d1 = {1, &sub, true, -1};
  sdy_sharding s1 = {.kind = SDY_SHARDING, .rank = 1, .dims = &d1};
  assert_null(shard_from_sdy(&s1, &m4, NULL, 1, 1, 4, &l));
  assert_int_equal(l.tiles[0], 2);
  assert_int_equal(coord(&l, 1, 0), 0);
  assert_int_equal(coord(&l, 2, 0), 1);
  assert_int_equal(coord(&l, 3, 0), 1);
  shard_layout_free(&l);
}

static void extract_insert(void **state) {
  (void)state;
  /* 4x4 in 2x2 tiles over devices 0..3 (row-major tiles). */
  shard_layout l = hlo("{devices=[2,2]<=[4]}", 2, 1, 4);
  int32_t g[16], back[16] = {0}, t[4];
  for (int i = 0; i < 16; i++) g[i] = i;
  int64_t gd[2] = {4, 4}, td[2];
  assert_null(shard_tile_dims(&l, gd, td));
  assert_int_equal(td[0], 2);
  shard_extract(&l, 3, gd, g, t, sizeof *g);
  assert_int_equal(t[0], 10);
  assert_int_equal(t[1], 11);
  assert_int_equal(t[2], 14);
  assert_int_equal(t[3], 15);
  for (uint32_t d = 0; d < 4; d++) {
    shard_extract(&l, d, gd, g, t, sizeof *g);
    shard_insert(&l, d, gd, t, back, sizeof *g);
  }
  assert_memory_equal(g, back, sizeof g);
  /* 5 rows in 2 tiles: XLA's uneven shards, ceil(5 / 2) = 3 rows, the
   * second tile's last row padding (zeros), dropped on the way back. */
  int32_t g5[20], back5[20] = {0}, t6[6];
  for (int i = 0; i < 20; i++) g5[i] = i + 1;
  int64_t odd[2] = {5, 4};
  assert_null(shard_tile_dims(&l, odd, td));
  assert_int_equal(td[0], 3);
  assert_int_equal(td[1], 2);
  shard_extract(&l, 3, odd, g5, t6, sizeof *g5);
  const int32_t want3[6] = {15, 16, 19, 20, 0, 0};
  assert_memory_equal(t6, want3, sizeof want3);
  shard_extract(&l, 0, odd, g5, t6, sizeof *g5);
  const int32_t want0[6] = {1, 2, 5, 6, 9, 10};
  assert_memory_equal(t6, want0, sizeof want0);
  for (uint32_t d = 0; d < 4; d++) {
    shard_extract(&l, d, odd, g5, t6, sizeof *g5);
    shard_insert(&l, d, odd, t6, back5, sizeof *g5);
  }
  assert_memory_equal(g5, back5, sizeof g5);
  shard_layout_free(&l);
  /* 5 elements in 4 tiles of 2: the last tile is all padding. */
  l = hlo("{devices=[4]<=[4]}", 1, 1, 4);
  int64_t five[1] = {5}, t2d[1];
  assert_null(shard_tile_dims(&l, five, t2d));
  assert_int_equal(t2d[0], 2);
  int32_t v[5] = {1, 2, 3, 4, 5}, t2[2] = {7, 7}, vb[5] = {0};
  shard_extract(&l, 3, five, v, t2, sizeof *v);
  assert_int_equal(t2[0], 0);
  assert_int_equal(t2[1], 0);
  shard_extract(&l, 2, five, v, t2, sizeof *v);
  assert_int_equal(t2[0], 5);
  assert_int_equal(t2[1], 0);
  for (uint32_t d = 0; d < 4; d++) {
    shard_extract(&l, d, five, v, t2, sizeof *v);
    shard_insert(&l, d, five, t2, vb, sizeof *v);
  }
  assert_memory_equal(v, vb, sizeof v);
  shard_layout_free(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hlo_forms),
      cmocka_unit_test(hlo_errors),
      cmocka_unit_test(sdy_mesh_axes),
      cmocka_unit_test(extract_insert),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
