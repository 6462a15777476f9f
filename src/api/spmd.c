/* Public SPMD runs on .npy files (shloc/spmd.h): loads the inputs (global
 * arrays, or per-device files assembled by the arguments' shardings), runs
 * the function on every device (exec/collectives/spmd.c) and writes the
 * results (once, or per device cut by the results' shardings).
 *
 * Under MPI this process holds one device (its rank): it reads only its own
 * files, gathers the other devices' tiles through the transport, writes
 * only its own per-device outputs, and rank 0 writes the results written
 * once and prints (the other ranks' printed values are gathered to it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/sdy/sdy_roundtrip.h"
#include "exec/collectives/shard.h"
#include "exec/collectives/spmd.h"
#include "shloc/mpi.h"
#include "shloc/spmd.h"
#include "support/npy.h"
#include "text/print_value.h"

/* Larger grids are certainly a mistake (one thread per device). */
#define SPMD_MAX_DEVICES 4096

static shl_status module_count(const shloc_module *m, const char *name, uint32_t *out) {
  const shl_attr *a = op_attr(m->top, name);
  int64_t v = 1;
  if (a && (!attr_as_int(a, &v) || v < 1 || v > SPMD_MAX_DEVICES))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "module attribute %s must be an integer in [1, %d]", name,
                    SPMD_MAX_DEVICES);
  *out = (uint32_t)v;
  return NULL;
}

shloc_status shloc_spmd_devices(const shloc_module *m, uint32_t *replicas, uint32_t *partitions) {
  ST_TRY(module_count(m, "mhlo.num_replicas", replicas));
  return module_count(m, "mhlo.num_partitions", partitions);
}

/* The flag's count, checked against the module's attribute when it has one. */
static shl_status grid_count(const shloc_module *m, const char *name, const char *flag, uint32_t given, uint32_t *out) {
  ST_TRY(module_count(m, name, out));
  if (!given) return NULL;
  if (op_attr(m->top, name) && given != *out)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s %u contradicts the module's %s = %u", flag, given, name,
                    *out);
  if (given > SPMD_MAX_DEVICES)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s %u is above %d", flag, given, SPMD_MAX_DEVICES);
  *out = given;
  return NULL;
}

/* NAME.npy -> NAME.dev<K>.npy (NAME.dev<K> without the suffix); malloc'd. */
static char *device_path(const char *path, uint32_t dev) {
  size_t n = strlen(path);
  bool npy = n >= 4 && !strcmp(path + n - 4, ".npy");
  size_t cap = n + 24;
  char *s = malloc(cap);
  if (s) snprintf(s, cap, "%.*s.dev%u%s", (int)(npy ? n - 4 : n), path, dev, npy ? ".npy" : "");
  return s;
}

/* The tile layout of argument or result i (its sdy.sharding, mhlo.sharding
 * or frontend attribute xla.sdy.sharding); *has = false without one. */
static shl_status value_layout(const shloc_module *m, const shl_op *f, const char *which, uint32_t i, const shl_type *t,
                               uint32_t nr, uint32_t np, shard_layout *out, bool *has) {
  *has = false;
  const shl_attr *all = op_attr(f, which);
  const shl_attr *d = all && all->kind == AT_ARRAY && i < all->u.arr.n ? all->u.arr.items[i] : NULL;
  if (!d || d->kind != AT_DICT || t->kind != TY_TENSOR) return NULL;
  const shl_attr *hlo = attr_dict_get(d->u.dict.items, d->u.dict.n, "mhlo.sharding");
  const shl_attr *sdy = attr_dict_get(d->u.dict.items, d->u.dict.n, "sdy.sharding");
  shl_status st = NULL;
  /* Shardy's round-trip form: the sharding as a string (JAX writes an
   * mhlo.sharding beside it, which then serves), parsed once per module. */
  if (!sdy && !hlo)
    st = sdy_rt_parse((shloc_module *)m, f, attr_dict_get(d->u.dict.items, d->u.dict.n, "mhlo.frontend_attributes"),
                      "xla.sdy.sharding", SDY_SHARDING, &sdy);
  if (!st && sdy && sdy_attr_sharding(sdy)) {
    const sdy_mesh *mesh;
    st = sdy_rt_sharding_mesh((shloc_module *)m, f, "sdy.sharding", sdy_attr_sharding(sdy), &mesh);
    if (!st) st = shard_from_sdy(sdy_attr_sharding(sdy), mesh, NULL, t->rank, nr, np, out);
  } else if (!st && hlo && hlo->kind == AT_STRING) {
    st = shard_from_hlo(hlo->u.str, t->rank, nr, np, out);
  } else if (!st) {
    return NULL;
  }
  if (st) return st_annotate(st, "the sharding of %s #%u", which[0] == 'a' ? "argument" : "result", i);
  *has = true;
  return NULL;
}

/* What one SPMD run holds. */
typedef struct {
  uint32_t nr, np, n, n_in, n_out;
  uint32_t lo, hi; /* the devices of this process: all, or the rank's own under MPI */
  coll_world *w;   /* the MPI world, or NULL (threads) */
  const shl_op *f;
  npy_array *files; /* n x n_in (per device) or n_in */
  void **global;    /* n_in: assembled per-device tiles, or NULL */
  shl_buf *bufs;    /* n x n_in */
  shl_buf **ptrs;   /* n x n_in */
  shl_buf *const **args;
  shl_buf *res; /* n x n_out */
} spmd_job;

static void job_free(spmd_job *j) {
  size_t nf = j->files ? (size_t)j->n * j->n_in : 0;
  for (size_t k = 0; k < nf; k++) npy_array_free(&j->files[k]);
  for (uint32_t i = 0; j->global && i < j->n_in; i++) free(j->global[i]);
  for (size_t k = 0; j->res && k < (size_t)j->n * j->n_out; k++) free(j->res[k].data);
  free(j->files);
  free(j->global);
  free(j->bufs);
  free(j->ptrs);
  free((void *)j->args);
  free(j->res);
}

static shl_status file_error(shl_status st, const char *what, uint32_t i, const char *path) {
  return st_annotate(st, "%s #%u (%s)", what, i, path);
}

/* Whether file a holds a value of element type t and shape (rank, dims). */
static bool fits(const npy_array *a, const shl_type *t, int32_t rank, const int64_t *dims) {
  if (!npy_descr_accepts(a->descr, type_storage_dtype(t)) || a->rank != rank) return false;
  for (int32_t k = 0; k < rank; k++)
    if (a->dims[k] != dims[k]) return false;
  return true;
}

/* "expected WHAT (tensor<2x2xf32>, or the tile shape), got <f4 of shape (8)". */
static shl_status type_mismatch(const npy_array *a, const shl_type *t, int32_t rank, const int64_t *dims,
                                const char *what) {
  char got[200], want[200];
  int at = snprintf(got, sizeof got, "%s of shape (", a->descr);
  for (int k = 0; k < a->rank && at < (int)sizeof got - 24; k++)
    at += snprintf(got + at, sizeof got - at, "%s%lld", k ? ", " : "", (long long)a->dims[k]);
  snprintf(got + at, sizeof got - at, ")");
  at = snprintf(want, sizeof want, "%s of shape (",
                npy_descr_for(type_storage_dtype(t)) ? npy_descr_for(type_storage_dtype(t)) : "?");
  for (int k = 0; k < rank && at < (int)sizeof want - 24; k++)
    at += snprintf(want + at, sizeof want - at, "%s%lld", k ? ", " : "", (long long)dims[k]);
  snprintf(want + at, sizeof want - at, ")");
  return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "expected %s: %s, got %s", what, want, got);
}

/* Argument i on every device from per-device files: each device's own
 * value, or tiles assembled into one global value. */
/* Under MPI: whether every device's file is the whole value (each rank
 * knows only its own). */
static shl_status agree_whole(const spmd_job *j, bool *whole) {
  uint8_t mine = *whole, *all = malloc(j->n);
  size_t *n = malloc(j->n * sizeof *n);
  shl_status st = all && n ? NULL : st_oom();
  for (uint32_t d = 0; !st && d < j->n; d++) n[d] = 1;
  if (!st) st = coll_mpi_gather(j->w, j->f, &mine, n, COLL_ALL, all);
  for (uint32_t d = 0; !st && d < j->n; d++) *whole = *whole && all[d];
  free(all);
  free(n);
  return st;
}

/* Under MPI: the other devices' tiles of argument i, into the global value
 * (this device's own is in place already). */
static shl_status gather_tiles(spmd_job *j, const shard_layout *l, const shl_type *t, const int64_t *tile, uint32_t i) {
  size_t es = dtype_bytes(type_storage_dtype(t)), tb = es;
  for (int32_t k = 0; k < t->rank; k++) tb *= (size_t)tile[k];
  uint8_t *all = exec_malloc(tb * j->n + 1), *mine = calloc(tb + 1, 1);
  size_t *n = malloc(j->n * sizeof *n);
  shl_status st = all && mine && n ? NULL : st_oom();
  for (uint32_t d = 0; !st && d < j->n; d++) n[d] = tb;
  if (!st && shard_holds(l, j->lo)) memcpy(mine, j->files[(size_t)j->lo * j->n_in + i].data, tb);
  if (!st) st = coll_mpi_gather(j->w, j->f, mine, n, COLL_ALL, all);
  for (uint32_t d = 0; !st && d < j->n; d++)
    if (d != j->lo && shard_holds(l, d)) shard_insert(l, d, t->dims, all + tb * d, j->global[i], es);
  free(all);
  free(mine);
  free(n);
  return st;
}

static shl_status load_per_device(spmd_job *j, const shloc_module *m, const shl_op *f, const char *path, uint32_t i) {
  const shl_type *t = func_type(f)->in[i];
  for (uint32_t d = j->lo; d < j->hi; d++) {
    char *p = device_path(path, d);
    if (!p) return st_oom();
    shl_status st = npy_read_file(p, &j->files[(size_t)d * j->n_in + i]);
    if (st) {
      st = file_error(st, "argument", i, p);
      free(p);
      return st;
    }
    free(p);
  }
  const npy_array *first = &j->files[(size_t)j->lo * j->n_in + i];
  bool whole = fits(first, t, t->rank, t->dims);
  for (uint32_t d = j->lo; whole && d < j->hi; d++)
    if (!fits(&j->files[(size_t)d * j->n_in + i], t, t->rank, t->dims))
      return file_error(type_mismatch(&j->files[(size_t)d * j->n_in + i], t, t->rank, t->dims,
                                      "every device's file to be the whole value"),
                        "argument", i, path);
  if (j->w) ST_TRY(agree_whole(j, &whole));
  if (whole) {
    for (uint32_t d = j->lo; d < j->hi; d++)
      buf_init(&j->bufs[(size_t)d * j->n_in + i], t, j->files[(size_t)d * j->n_in + i].data);
    return NULL;
  }
  shard_layout l;
  bool has;
  ST_TRY(value_layout(m, f, "arg_attrs", i, t, j->nr, j->np, &l, &has));
  int64_t tile[SHARD_MAX_RANK];
  shl_status st = has ? shard_tile_dims(&l, t->dims, tile) : NULL;
  if (!st && !has)
    st = type_mismatch(first, t, t->rank, t->dims, "the argument's type (it has no sharding to assemble tiles by)");
  size_t es = dtype_bytes(type_storage_dtype(t));
  if (!st && !(j->global[i] = exec_malloc(es * (size_t)type_num_elements(t) + 1))) st = st_oom();
  for (uint32_t d = j->lo; !st && d < j->hi; d++) {
    const npy_array *a = &j->files[(size_t)d * j->n_in + i];
    if (!shard_holds(&l, d)) continue;
    if (!fits(a, t, t->rank, tile))
      st = type_mismatch(a, t, t->rank, tile, "the sharding's tile shape");
    else
      shard_insert(&l, d, t->dims, a->data, j->global[i], es);
  }
  if (!st && j->w) st = gather_tiles(j, &l, t, tile, i);
  for (uint32_t d = j->lo; !st && d < j->hi; d++) buf_init(&j->bufs[(size_t)d * j->n_in + i], t, j->global[i]);
  if (has) shard_layout_free(&l);
  return st ? file_error(st, "argument", i, path) : NULL;
}

static shl_status load_inputs(spmd_job *j, const shloc_module *m, const shl_op *f, const shloc_spmd_npy_run *run) {
  const shl_type *ft = func_type(f);
  for (uint32_t i = 0; i < j->n_in; i++) {
    const shl_type *t = ft->in[i];
    if (t->kind == TY_TOKEN) {
      for (uint32_t d = j->lo; d < j->hi; d++) buf_init(&j->bufs[(size_t)d * j->n_in + i], t, NULL);
      continue;
    }
    if (t->kind != TY_TENSOR || !type_is_static(t))
      return op_error(f, SHLOC_ERR_UNSUPPORTED, "argument #%u: SPMD runs take statically shaped tensors and tokens", i);
    if (run->per_device) {
      ST_TRY(load_per_device(j, m, f, run->inputs[i], i));
      continue;
    }
    npy_array *a = &j->files[i];
    ST_TRY(file_error(npy_read_file(run->inputs[i], a), "argument", i, run->inputs[i]));
    if (!fits(a, t, t->rank, t->dims))
      return file_error(type_mismatch(a, t, t->rank, t->dims, "the argument's type"), "argument", i, run->inputs[i]);
    for (uint32_t d = j->lo; d < j->hi; d++) buf_init(&j->bufs[(size_t)d * j->n_in + i], t, a->data);
  }
  return NULL;
}

/* This rank's device of the MPI world: the grid must fill the world. */
static shl_status mpi_join(spmd_job *j, shloc_mpi *mpi) {
  if ((uint64_t)shloc_mpi_size(mpi) != j->n)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "the program runs on %u devices (%u replicas x %u partitions), mpirun started %d ranks", j->n,
                    j->nr, j->np, shloc_mpi_size(mpi));
  uint32_t dev = 0;
  ST_TRY(coll_mpi_world_new(mpi, j->nr, j->np, j->f, &j->w, &dev));
  j->lo = dev;
  j->hi = dev + 1;
  return NULL;
}

static shl_status print_value(const shloc_spmd_npy_run *run, const shl_buf *b) {
  char *s;
  size_t n;
  ST_TRY(print_dense_value(b->type, b->data, b->nbytes, &s, &n));
  bool ok = run->print(run->print_user, s, n);
  free(s);
  return ok ? NULL : st_error(SHLOC_ERR_IO, NULL, NULL, "could not write the printed results");
}

/* Device d's result i, or its tile when the result's sharding splits it. */
static shl_status write_device(const spmd_job *j, const shloc_module *m, const shl_op *f, const shloc_spmd_npy_run *run,
                               uint32_t d, uint32_t i) {
  const shl_buf *b = &j->res[(size_t)d * j->n_out + i];
  if (b->type->kind != TY_TENSOR) return NULL;
  shard_layout l;
  bool has;
  ST_TRY(value_layout(m, f, "res_attrs", i, b->type, j->nr, j->np, &l, &has));
  bool split = has && shard_is_split(&l);
  shl_status st = NULL;
  if (split && !shard_holds(&l, d)) { /* {maximal} elsewhere: nothing to write */
    shard_layout_free(&l);
    return NULL;
  }
  int64_t tile[SHARD_MAX_RANK];
  void *data = b->data;
  size_t nbytes = b->nbytes, es = dtype_bytes(b->dtype);
  const int64_t *dims = b->dims;
  if (split) {
    st = shard_tile_dims(&l, b->dims, tile);
    nbytes = es;
    for (int32_t k = 0; k < b->rank; k++) nbytes *= (size_t)tile[k];
    data = st ? NULL : exec_malloc(nbytes + 1);
    if (!st && !data) st = st_oom();
    if (!st) shard_extract(&l, d, b->dims, b->data, data, es);
    dims = tile;
  }
  char *p = !st && j->n_out && (size_t)i < run->n_outputs ? device_path(run->outputs[i], d) : NULL;
  if (!st && (size_t)i < run->n_outputs && !p) st = st_oom();
  if (!st && p) st = npy_write_file_atomic(p, npy_descr_for(b->dtype), dims, b->rank, data, nbytes);
  if (st && p) st = file_error(st, "result", i, p);
  if (!st && run->print) {
    shl_type lt = *b->type;
    lt.dims = dims;
    shl_buf v = *b;
    v.type = &lt;
    v.data = data;
    v.nbytes = nbytes;
    st = print_value(run, &v);
  }
  free(p);
  if (split) free(data);
  if (has) shard_layout_free(&l);
  return st;
}

/* Printed text kept for rank 0: strings, each ended by a NUL. */
typedef struct {
  char *s;
  size_t n, cap;
  bool oom;
} text_buf;

static bool text_add(void *user, const char *s, size_t n) {
  text_buf *t = user;
  if (t->n + n + 1 > t->cap) {
    size_t cap = (t->n + n + 1) * 2;
    char *g = realloc(t->s, cap);
    if (!g) return !(t->oom = true);
    t->s = g;
    t->cap = cap;
  }
  memcpy(t->s + t->n, s, n);
  t->s[t->n + n] = 0;
  t->n += n + 1;
  return true;
}

/* Under MPI: every device's printed text, printed by rank 0 in device order. */
static shl_status print_gathered(const spmd_job *j, const shloc_spmd_npy_run *run, const text_buf *mine) {
  size_t *n = calloc(j->n, sizeof *n), own = mine->n, total = 0;
  shl_status st = n ? NULL : st_oom();
  size_t *ones = malloc(j->n * sizeof *ones);
  if (!st && !ones) st = st_oom();
  for (uint32_t d = 0; !st && d < j->n; d++) ones[d] = sizeof(size_t);
  if (!st) st = coll_mpi_gather(j->w, j->f, &own, ones, COLL_ALL, n);
  for (uint32_t d = 0; !st && d < j->n; d++) total += n[d];
  char *all = !st && j->lo == 0 ? malloc(total + 1) : NULL;
  if (!st && j->lo == 0 && !all) st = st_oom();
  if (!st) st = coll_mpi_gather(j->w, j->f, mine->s, n, 0, all);
  for (size_t at = 0; !st && all && at < total; at += strlen(all + at) + 1)
    if (!run->print(run->print_user, all + at, strlen(all + at)))
      st = st_error(SHLOC_ERR_IO, NULL, NULL, "could not write the printed results");
  free(all);
  free(ones);
  free(n);
  return st;
}

static shl_status write_per_device(const spmd_job *j, const shloc_module *m, const shl_op *f,
                                   const shloc_spmd_npy_run *run) {
  text_buf tb = {0};
  shloc_spmd_npy_run local = *run;
  if (j->w && run->print) {
    local.print = text_add;
    local.print_user = &tb;
  }
  shl_status st = NULL;
  for (uint32_t d = j->lo; !st && d < j->hi; d++) {
    if (local.print) {
      char head[48];
      int n = snprintf(head, sizeof head, "device #%u:", d);
      if (!local.print(local.print_user, head, (size_t)n)) st = st_error(SHLOC_ERR_IO, NULL, NULL, "could not print");
    }
    for (uint32_t i = 0; !st && i < j->n_out; i++) st = write_device(j, m, f, &local, d, i);
  }
  if (!st && tb.oom) st = st_oom();
  if (!st && j->w && run->print) st = print_gathered(j, run, &tb);
  free(tb.s);
  return st;
}

/* A word-wise FNV-style hash: results are compared across MPI ranks by it
 * rather than moved. */
static uint64_t bytes_hash(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ull, w;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    memcpy(&w, b + k, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; k < n; k++) h = (h ^ b[k]) * 1099511628211ull;
  return h ^ n;
}

/* The first device whose result i differs from device 0's, or 0. */
static shl_status first_differing(const spmd_job *j, uint32_t i, uint32_t *out) {
  const shl_buf *b = &j->res[(size_t)j->lo * j->n_out + i];
  *out = 0;
  if (!j->w) {
    for (uint32_t d = 1; d < j->n && !*out; d++)
      if (b->nbytes && memcmp(b->data, j->res[(size_t)d * j->n_out + i].data, b->nbytes)) *out = d;
    return NULL;
  }
  uint64_t mine = bytes_hash(b->data, b->nbytes), *all = malloc(j->n * sizeof *all);
  size_t *n = malloc(j->n * sizeof *n);
  shl_status st = all && n ? NULL : st_oom();
  for (uint32_t d = 0; !st && d < j->n; d++) n[d] = sizeof mine;
  if (!st) st = coll_mpi_gather(j->w, j->f, &mine, n, COLL_ALL, all);
  for (uint32_t d = 1; !st && d < j->n && !*out; d++)
    if (all[d] != all[0]) *out = d;
  free(all);
  free(n);
  return st;
}

static shl_status write_outputs(const spmd_job *j, const shloc_module *m, const shl_op *f,
                                const shloc_spmd_npy_run *run) {
  if (run->per_device) return write_per_device(j, m, f, run);
  for (uint32_t i = 0; i < j->n_out; i++) {
    const shl_buf *b = &j->res[(size_t)j->lo * j->n_out + i];
    if (b->type->kind != TY_TENSOR) continue;
    uint32_t d;
    ST_TRY(first_differing(j, i, &d));
    if (d)
      return op_error(f, SHLOC_ERR_RUNTIME,
                      "result #%u differs between device #0 and device #%u (replica %u, partition %u); per-device "
                      "results need per-device outputs",
                      i, d, d / j->np, d % j->np);
    if (j->lo) continue; /* written by device 0 */
    if ((size_t)i < run->n_outputs)
      ST_TRY(file_error(
          npy_write_file_atomic(run->outputs[i], npy_descr_for(b->dtype), b->dims, b->rank, b->data, b->nbytes),
          "result", i, run->outputs[i]));
    if (run->print) ST_TRY(print_value(run, b));
  }
  return NULL;
}

shloc_status shloc_spmd_run_npy(shloc_module *m, const shloc_func *func, shloc_ffi_registry *registry,
                                const shloc_spmd_npy_run *run) {
  const shl_op *f = (const shl_op *)func; /* a shloc_func is its func.func op */
  spmd_job j = {0};
  ST_TRY(grid_count(m, "mhlo.num_replicas", "--replicas", run->replicas, &j.nr));
  ST_TRY(grid_count(m, "mhlo.num_partitions", "--partitions", run->partitions, &j.np));
  if ((uint64_t)j.nr * j.np > SPMD_MAX_DEVICES)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%u x %u devices are above %d", j.nr, j.np, SPMD_MAX_DEVICES);
  const shl_type *ft = func_type(f);
  j.n = j.nr * j.np;
  j.hi = j.n;
  j.f = f;
  j.n_in = ft->n_in;
  j.n_out = ft->n_out;
  if (run->n_inputs != j.n_in)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "@%.*s takes %u arguments, got %zu inputs",
                    (int)func_sym_name(f).n, func_sym_name(f).p, j.n_in, run->n_inputs);
  if (run->n_outputs && run->n_outputs != j.n_out)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "@%.*s returns %u results, got %zu outputs",
                    (int)func_sym_name(f).n, func_sym_name(f).p, j.n_out, run->n_outputs);
  size_t nb = (size_t)j.n * j.n_in + 1;
  j.files = calloc(nb, sizeof *j.files);
  j.global = calloc(j.n_in + 1, sizeof *j.global);
  j.bufs = calloc(nb, sizeof *j.bufs);
  j.ptrs = calloc(nb, sizeof *j.ptrs);
  j.args = calloc(j.n + 1, sizeof *j.args);
  j.res = calloc((size_t)j.n * j.n_out + 1, sizeof *j.res);
  shl_status st = j.files && j.global && j.bufs && j.ptrs && j.args && j.res ? NULL : st_oom();
  for (size_t k = 0; !st && k < (size_t)j.n * j.n_in; k++) j.ptrs[k] = &j.bufs[k];
  for (uint32_t d = 0; !st && d < j.n; d++) j.args[d] = j.ptrs + (size_t)d * j.n_in;
  shloc_executable *x = NULL;
  if (!st) st = executable_create(m, f, &(exec_config){.registry = (ffi_registry *)registry}, &x);
  if (!st && run->mpi) st = mpi_join(&j, run->mpi);
  if (!st) st = load_inputs(&j, m, f, run);
  if (!st && j.w) {
    /* A device that could not load its inputs stopped and told the others. */
    st = spmd_run_mpi(x, run->mpi, j.w, j.lo, j.args[j.lo], j.res + (size_t)j.lo * j.n_out);
  } else if (!st) {
    st = spmd_run(x, j.nr, j.np, j.args, j.res);
  }
  if (!st) st = write_outputs(&j, m, f, run);
  if (st && j.w) j.w->t->leave(j.w, j.lo, true); /* peers waiting for this rank stop (quiet when one failed before) */
  if (j.w) j.w->t->free(j.w);
  executable_destroy(x);
  job_free(&j);
  return st;
}
