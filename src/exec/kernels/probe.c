/* interpreter.probe and check.expect_serialized_eq, with the reference
 * interpreter's files: with a probe directory (exec_config.probe_dir, the
 * CLI's --probe-output-dir) the K-th probe of a run writes probe<K>.npy there
 * and appends "probe_id,type,path" to index.csv (emptied when the run
 * starts); expect_serialized_eq then reads its value back from those files.
 * Without a directory the values stay in memory.  `iter = K` selects the
 * K-th (from 0) value recorded under that probe_id in the run, as the op's
 * description says (the reference counts lines of index.csv instead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/plan.h"
#include "probe.h"
#include "support/npy.h"
#include "verify/rules.h"

typedef struct probe_rec {
  shl_str id;          /* the op's attribute (module arena) */
  const shl_type *type;
  void *data;
  size_t nbytes;
  struct probe_rec *next;
} probe_rec;

struct probe_log {
  probe_rec *head, *tail;
  uint32_t count;
};

void probe_log_clear(probe_log *log) {
  if (!log) return;
  for (probe_rec *r = log->head, *n; r; r = n) {
    n = r->next;
    free(r->data);
    free(r);
  }
  log->head = log->tail = NULL;
  log->count = 0;
}

void probe_log_free(probe_log *log) {
  probe_log_clear(log);
  free(log);
}

static shl_str probe_id(const shl_op *op) {
  const shl_attr *a = op_attr(op, "probe_id");
  return a && a->kind == AT_STRING ? a->u.str : (shl_str){"", 0};
}

static shl_status probe_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  if (op->n_operands != 1 || op->n_results != 1 || op->operands[0]->type->kind != TY_TENSOR)
    return op_error(op, SHLOC_ERR_VERIFY, "expects one tensor operand and one result");
  if (!op_attr(op, "probe_id") || op_attr(op, "probe_id")->kind != AT_STRING)
    return op_error(op, SHLOC_ERR_VERIFY, "requires a string attribute 'probe_id'");
  return NULL;
}

static shl_status index_path(char *buf, size_t cap, const char *dir, const char *file) {
  if ((size_t)snprintf(buf, cap, "%s/%s", dir, file) >= cap)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "probe directory path is too long");
  return NULL;
}

/* Writes probe<K>.npy and its index.csv line. */
static shl_status write_probe(const char *dir, const probe_rec *r, uint32_t k, const shl_buf *b) {
  char path[4096], idx[4096];
  char name[32];
  snprintf(name, sizeof name, "probe%u.npy", k);
  ST_TRY(index_path(path, sizeof path, dir, name));
  ST_TRY(index_path(idx, sizeof idx, dir, "index.csv"));
  const char *descr = npy_descr_for(b->dtype);
  if (!descr) return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "probes of %s cannot be written", dtype_name(b->dtype));
  ST_TRY(npy_write_file_atomic(path, descr, b->dims, b->rank, r->data, r->nbytes));
  FILE *f = fopen(idx, k == 1 ? "w" : "a");
  if (!f) return st_error(SHLOC_ERR_IO, NULL, NULL, "cannot write %s", idx);
  fprintf(f, "%.*s,%s,%s\n", (int)r->id.n, r->id.p, vfy_tstr(r->type), path);
  return fclose(f) ? st_error(SHLOC_ERR_IO, NULL, NULL, "cannot write %s", idx) : NULL;
}

static shl_status probe_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const shl_op *op = po->op;
  shloc_executable *x = ec->x;
  if (out[0]->nbytes && out[0]->data != in[0]->data) memcpy(out[0]->data, in[0]->data, out[0]->nbytes);
  if (!x->probes && !(x->probes = calloc(1, sizeof *x->probes))) return st_oom();
  probe_rec *r = calloc(1, sizeof *r);
  if (!r) return st_oom();
  r->id = probe_id(op);
  r->type = op->operands[0]->type;
  r->nbytes = in[0]->nbytes;
  r->data = malloc(r->nbytes ? r->nbytes : 1);
  if (!r->data) {
    free(r);
    return st_oom();
  }
  if (r->nbytes) memcpy(r->data, in[0]->data, r->nbytes);
  probe_log *log = x->probes;
  if (log->tail) log->tail->next = r;
  else log->head = r;
  log->tail = r;
  log->count++;
  const char *dir = x->cfg.probe_dir;
  shl_status st = dir ? write_probe(dir, r, log->count, in[0]) : NULL;
  return st ? st_at(st, &op->pos, op_name_cstr(op)) : NULL;
}

const shl_kernel kernel_probe = {probe_prepare, probe_run};

/* ---- check.expect_serialized_eq ---- */

static uint32_t iteration(const shl_op *op) {
  int64_t it = 0;
  attr_as_int(op_attr(op, "iteration"), &it);
  return it > 0 && it <= UINT32_MAX ? (uint32_t)it : 0;
}

/* The K-th line of index.csv recorded under id: its type text and path. */
static shl_status find_in_index(const shl_op *op, const char *dir, shl_str id, uint32_t k, char *type, size_t tcap,
                                char *path, size_t pcap) {
  char idx[4096], line[8192];
  ST_TRY(index_path(idx, sizeof idx, dir, "index.csv"));
  FILE *f = fopen(idx, "r");
  if (!f) return op_error(op, SHLOC_ERR_CHECK, "no probe index %s", idx);
  uint32_t seen = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    /* id,type,path: the path is after the last comma, the type before it */
    char *last = strrchr(line, ',');
    if (!last || (size_t)(last - line) < id.n + 1 || memcmp(line, id.p, id.n) || line[id.n] != ',') continue;
    if (seen++ != k) continue;
    fclose(f);
    snprintf(type, tcap, "%.*s", (int)(last - line - (ptrdiff_t)id.n - 1), line + id.n + 1);
    snprintf(path, pcap, "%s", last + 1);
    return NULL;
  }
  fclose(f);
  return op_error(op, SHLOC_ERR_CHECK, "no value #%u of probe '%.*s' in %s", k, (int)id.n, id.p, idx);
}

static shl_status serialized_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)out;
  const shl_op *op = po->op;
  shloc_executable *x = ec->x;
  shl_str id = probe_id(op);
  uint32_t k = iteration(op);
  exec_count_check(ec);
  bool ok;
  if (x->cfg.probe_dir) {
    char type[4096], path[4096];
    ST_TRY(find_in_index(op, x->cfg.probe_dir, id, k, type, sizeof type, path, sizeof path));
    const char *want = vfy_tstr(in[0]->type);
    if (strcmp(type, want))
      return op_error(op, SHLOC_ERR_CHECK, "probe '%.*s' was recorded as %s, not %s", (int)id.n, id.p, type, want);
    npy_array a;
    shl_status st = npy_read_file(path, &a);
    if (st) return st_at(st, &op->pos, op_name_cstr(op));
    bool shape = a.rank == in[0]->rank && a.nbytes == in[0]->nbytes && npy_descr_accepts(a.descr, in[0]->dtype);
    for (int d = 0; shape && d < a.rank; d++) shape = a.dims[d] == in[0]->dims[d];
    st = shape ? check_compare(op, CHECK_EXACT, in[0], a.data, 0, 0, 0, &ok)
               : op_error(op, SHLOC_ERR_CHECK, "%s does not hold a %s", path, want);
    npy_array_free(&a);
    return st;
  }
  uint32_t seen = 0;
  for (const probe_rec *r = x->probes ? x->probes->head : NULL; r; r = r->next) {
    if (!str_eq(r->id, id) || seen++ != k) continue;
    if (!type_eq(r->type, in[0]->type))
      return op_error(op, SHLOC_ERR_CHECK, "probe '%.*s' was recorded as %s, not %s", (int)id.n, id.p, vfy_tstr(r->type),
                      vfy_tstr(in[0]->type));
    return check_compare(op, CHECK_EXACT, in[0], r->data, 0, 0, 0, &ok);
  }
  return op_error(op, SHLOC_ERR_CHECK, "no value #%u of probe '%.*s' was recorded in this run", k, (int)id.n, id.p);
}

const shl_kernel kernel_check_serialized = {NULL, serialized_run};
