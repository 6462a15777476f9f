/* The thread transport of the collectives (src/exec/collectives/): every
 * device sees every other device's published buffers in device order, run
 * after run; a device that fails, leaves early or runs a different
 * collective stops the others with an error naming it (never a hang); the
 * timeout is the last resort.  Disjoint groups meet apart; send/recv pair
 * in order.  Plus the spec's process groups of the modes
 * for the default (all ids) replica_groups, in the spec's order. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "exec/collectives/groups.h"
#include "exec/collectives/transport.h"

typedef struct {
  coll_world *w;
  uint32_t dev, rounds;
  shl_opid kind;    /* what this device runs */
  bool fail_first;  /* leave as failed before the first collective */
  bool leave_first; /* leave (ended) before the first collective */
  bool seen_ok;     /* every round saw every device's value */
  const uint32_t *ids; /* the group (NULL: all devices) */
  uint32_t n_ids;
  char err[256];
} dev_arg;

static shl_op op_of(shl_opid k) {
  shl_op op;
  memset(&op, 0, sizeof op);
  op.def = &shl_op_table[k];
  return op;
}

static void *device(void *p) {
  dev_arg *a = p;
  shl_op op = op_of(a->kind);
  coll_world *w = a->w;
  uint32_t n = w->n_rep * w->n_part;
  a->seen_ok = true;
  if (a->fail_first || a->leave_first) {
    w->t->leave(w, a->dev, a->fail_first);
    return NULL;
  }
  shl_status st = NULL;
  for (uint32_t r = 0; !st && r < a->rounds; r++) {
    int64_t v = (int64_t)a->dev * 1000 + r;
    shl_buf b = {.n = 1, .nbytes = sizeof v, .data = &v};
    shl_buf *bp = &b;
    coll_entry me = {.kind = a->kind, .seq = r, .n = 1, .bufs = &bp, .ids = a->ids, .n_ids = a->n_ids};
    const coll_entry *const *all;
    st = w->t->exchange(w, a->dev, &op, &me, &all);
    for (uint32_t j = 0; !st && j < (a->n_ids ? a->n_ids : n); j++) {
      uint32_t d = a->n_ids ? a->ids[j] : j;
      if (*(const int64_t *)all[d]->bufs[0]->data != (int64_t)d * 1000 + r) a->seen_ok = false;
    }
    if (!st) st = w->t->release(w, a->dev, &op);
  }
  if (st) {
    snprintf(a->err, sizeof a->err, "%s", shloc_status_message(st));
    shloc_status_free(st);
  }
  w->t->leave(w, a->dev, st != NULL);
  return NULL;
}

/* Runs n devices (args prepared by the caller) to the end. */
static void run_devices(coll_world *w, dev_arg *args, uint32_t n) {
  pthread_t th[8];
  for (uint32_t d = 0; d < n; d++) {
    args[d].w = w;
    args[d].dev = d;
    assert_int_equal(pthread_create(&th[d], NULL, device, &args[d]), 0);
  }
  for (uint32_t d = 0; d < n; d++) pthread_join(th[d], NULL);
}

static void exchange_many_rounds(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(2, 2, 30);
  assert_non_null(w);
  dev_arg a[4] = {0};
  for (int d = 0; d < 4; d++) a[d] = (dev_arg){.rounds = 500, .kind = OP_ALL_REDUCE};
  run_devices(w, a, 4);
  for (int d = 0; d < 4; d++) {
    assert_string_equal(a[d].err, "");
    assert_true(a[d].seen_ok);
  }
  assert_int_equal(w->t->failed_device(w), -1);
  w->t->free(w);
}

/* Two disjoint groups run different numbers of rounds without waiting on
 * each other (a whole-run rendezvous would stop at the shorter one's end). */
static void disjoint_groups_run_apart(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(4, 1, 30);
  static const uint32_t g01[] = {1, 0}, g23[] = {2, 3};
  dev_arg a[4] = {0};
  for (int d = 0; d < 4; d++)
    a[d] = (dev_arg){.rounds = d < 2 ? 300 : 7, .kind = d < 2 ? OP_ALL_REDUCE : OP_ALL_GATHER, .ids = d < 2 ? g01 : g23, .n_ids = 2};
  run_devices(w, a, 4);
  for (int d = 0; d < 4; d++) {
    assert_string_equal(a[d].err, "");
    assert_true(a[d].seen_ok);
  }
  w->t->free(w);
}

/* Groups that wait on each other in a cycle ({0,1}, {1,2}, {2,0}, each
 * device in the first): nobody can go on, so all stop at once. */
static void group_cycle_stops(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(3, 1, 30);
  static const uint32_t g[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  dev_arg a[3] = {0};
  for (int d = 0; d < 3; d++) a[d] = (dev_arg){.rounds = 1, .kind = OP_ALL_REDUCE, .ids = g[d], .n_ids = 2};
  run_devices(w, a, 3);
  /* The first to see it fails; the others then stop for it or see it too. */
  int stuck = 0;
  for (int d = 0; d < 3; d++) {
    assert_string_not_equal(a[d].err, "");
    stuck += strstr(a[d].err, "every device still running waits for another") != NULL;
  }
  assert_true(stuck >= 1);
  w->t->free(w);
}

/* send/recv: device 0 sends rounds values on channel 3, device 1 receives
 * them in order; a recv nobody serves stops instead of hanging. */
typedef struct {
  coll_world *w;
  uint32_t dev, rounds;
  int64_t got_sum;
  char err[256];
} p2p_arg;

static void *p2p_device(void *p) {
  p2p_arg *a = p;
  shl_op op = op_of(a->dev ? OP_RECV : OP_SEND);
  shl_status st = NULL;
  for (uint32_t r = 0; !st && r < a->rounds; r++) {
    int64_t v = a->dev ? -1 : (int64_t)r * r;
    shl_buf b = {.dtype = DT_I64, .n = 1, .nbytes = sizeof v, .data = &v};
    shl_buf *bp = &b;
    st = a->dev ? a->w->t->recv(a->w, 1, &op, 3, &bp, 1) : a->w->t->send(a->w, 0, &op, 3, &bp, 1);
    if (a->dev && !st) a->got_sum += v * (int64_t)(r + 1);
  }
  if (st) {
    snprintf(a->err, sizeof a->err, "%s", shloc_status_message(st));
    shloc_status_free(st);
  }
  a->w->t->leave(a->w, a->dev, st != NULL);
  return NULL;
}

static void send_recv_in_order(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(1, 2, 30);
  p2p_arg a[2] = {{.w = w, .dev = 0, .rounds = 200}, {.w = w, .dev = 1, .rounds = 201}};
  pthread_t th[2];
  for (int d = 0; d < 2; d++) assert_int_equal(pthread_create(&th[d], NULL, p2p_device, &a[d]), 0);
  for (int d = 0; d < 2; d++) pthread_join(th[d], NULL);
  int64_t want = 0;
  for (int64_t r = 0; r < 200; r++) want += r * r * (r + 1);
  assert_string_equal(a[0].err, "");
  assert_int_equal(a[1].got_sum, want);
  /* Its 201st recv has no sender left: stopped, not hung (the timeout is 30 s). */
  assert_non_null(strstr(a[1].err, "every device still running waits"));
  w->t->free(w);
}

static void failed_device_stops_peers(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(3, 1, 30);
  dev_arg a[3] = {0};
  for (int d = 0; d < 3; d++) a[d] = (dev_arg){.rounds = 3, .kind = OP_ALL_GATHER};
  a[2].fail_first = true;
  run_devices(w, a, 3);
  assert_non_null(strstr(a[0].err, "stopped: device #2 (replica 2, partition 0) failed"));
  assert_non_null(strstr(a[1].err, "stopped: device #2 (replica 2, partition 0) failed"));
  assert_int_equal(w->t->failed_device(w), 2);
  w->t->free(w);
}

static void early_end_stops_peers(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(1, 2, 30);
  dev_arg a[2] = {{.rounds = 2, .kind = OP_ALL_REDUCE}, {.rounds = 2, .kind = OP_ALL_REDUCE, .leave_first = true}};
  run_devices(w, a, 2);
  assert_non_null(strstr(a[0].err, "device #1 (replica 0, partition 1) ended its program without reaching"));
  w->t->free(w);
}

static void mismatch_is_reported(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(2, 1, 30);
  dev_arg a[2] = {{.rounds = 1, .kind = OP_ALL_REDUCE}, {.rounds = 1, .kind = OP_COLLECTIVE_PERMUTE}};
  run_devices(w, a, 2);
  for (int d = 0; d < 2; d++)
    assert_non_null(strstr(a[d].err, "device #0 runs 'stablehlo.all_reduce' with 1 operands, device #1 runs 'stablehlo.collective_permute'"));
  w->t->free(w);
}

static void timeout_is_last_resort(void **state) {
  (void)state;
  coll_world *w = coll_threads_new(2, 1, 1);
  dev_arg a = {.w = w, .dev = 0, .rounds = 1, .kind = OP_ALL_REDUCE};
  device(&a); /* device #1 never arrives nor leaves */
  assert_non_null(strstr(a.err, "timed out after 1 s"));
  w->t->free(w);
}

/* Groups of device (r, p) with replica_groups absent (all ids). */
static void expect_group(shl_opid k, coll_mode mode, uint32_t nr, uint32_t np, uint32_t r, uint32_t p, const uint32_t *want,
                         uint32_t n_want, uint32_t pos_want) {
  shl_op op = op_of(k);
  uint32_t ids[16], n, pos;
  shl_status st = coll_group(&op, mode, nr, np, r, p, ids, &n, &pos);
  assert_null(st);
  assert_int_equal(n, n_want);
  assert_int_equal(pos, pos_want);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(ids[i], want[i]);
}

static void default_groups_per_mode(void **state) {
  (void)state;
  /* 2 replicas x 3 partitions; device id = replica * 3 + partition. */
  expect_group(OP_ALL_REDUCE, COLL_CROSS_REPLICA, 2, 3, 1, 2, (const uint32_t[]){2, 5}, 2, 1);
  expect_group(OP_ALL_REDUCE, COLL_CROSS_PARTITION, 2, 3, 1, 2, (const uint32_t[]){3, 4, 5}, 3, 2);
  /* Partition-major, replicas of the group inside. */
  expect_group(OP_ALL_REDUCE, COLL_CROSS_REPLICA_AND_PARTITION, 2, 3, 1, 0, (const uint32_t[]){0, 3, 1, 4, 2, 5}, 6, 1);
  expect_group(OP_ALL_REDUCE, COLL_FLATTENED_IDS, 2, 3, 1, 1, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6, 4);
}

static void mode_from_attributes(void **state) {
  (void)state;
  shl_op op = op_of(OP_ALL_REDUCE);
  coll_mode m;
  assert_null(coll_mode_of(&op, &m));
  assert_int_equal(m, COLL_CROSS_REPLICA);
  op = op_of(OP_COLLECTIVE_PERMUTE);
  assert_null(coll_mode_of(&op, &m));
  assert_int_equal(m, COLL_CROSS_REPLICA);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exchange_many_rounds),   cmocka_unit_test(failed_device_stops_peers),
      cmocka_unit_test(early_end_stops_peers),  cmocka_unit_test(mismatch_is_reported),
      cmocka_unit_test(timeout_is_last_resort), cmocka_unit_test(default_groups_per_mode),
      cmocka_unit_test(mode_from_attributes),   cmocka_unit_test(disjoint_groups_run_apart),
      cmocka_unit_test(send_recv_in_order),     cmocka_unit_test(group_cycle_stops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
