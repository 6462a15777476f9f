/* shloc_rt_op: one op run by the interpreter on buffers of compiled code
 * (include/shloc/aot_runtime.h).  The op's text is parsed, verified and
 * planned once per call site; each call only wraps the pointers. */
#include <stdlib.h>

#include "exec/exec.h"
#include "shloc/aot_runtime.h"

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shloc_executable *x;
} rt_site;

static void site_free(rt_site *s) {
  if (!s) return;
  executable_destroy(s->x);
  shloc_module_destroy(s->m);
  shloc_context_destroy(s->ctx);
  free(s);
}

static shl_status site_prepare(const char *text, size_t len, rt_site **out) {
  *out = NULL;
  rt_site *s = calloc(1, sizeof *s);
  if (!s) return st_oom();
  s->ctx = shloc_context_create();
  shl_status st = s->ctx ? NULL : st_oom();
  if (!st) st = shloc_module_parse(s->ctx, "<shloc_rt_op>", text, len, 1, &s->m);
  if (!st) st = shloc_module_verify(s->m);
  const shl_op *f = st ? NULL : module_find_func(s->m, str_of("main"));
  if (!st && !f) st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "no function @main in the op text");
  if (!st) st = executable_create(s->m, f, NULL, &s->x);
  if (st) {
    site_free(s);
    return st;
  }
  *out = s;
  return NULL;
}

/* The site of `cache`, prepared by whichever thread gets there first. */
static shl_status site_get(void **cache, const char *text, size_t len, rt_site **out) {
  rt_site *s = __atomic_load_n((rt_site **)cache, __ATOMIC_ACQUIRE);
  if (!s) {
    ST_TRY(site_prepare(text, len, &s));
    rt_site *expected = NULL;
    if (!__atomic_compare_exchange_n((rt_site **)cache, &expected, s, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      site_free(s);
      s = expected;
    }
  }
  *out = s;
  return NULL;
}

static shl_status site_run(rt_site *s, void *const *bufs, int64_t n) {
  const shl_type *ft = func_type(executable_func(s->x));
  if (n != (int64_t)ft->n_in + ft->n_out)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "the op takes %u buffers, got %lld", ft->n_in + ft->n_out,
                    (long long)n);
  size_t k = (size_t)n + 1;
  shl_buf *bufv = calloc(k, sizeof *bufv);
  shl_buf **args = calloc(k, sizeof *args);
  shl_status st = bufv && args ? NULL : st_oom();
  for (uint32_t i = 0; !st && i < ft->n_in; i++) {
    buf_init(&bufv[i], ft->in[i], bufs[i]);
    args[i] = &bufv[i];
  }
  if (!st) st = executable_run_into(s->x, args, bufs + ft->n_in, bufv + ft->n_in);
  free(bufv);
  free(args);
  return st;
}

int32_t shloc_rt_op(void **cache, const char *text, int64_t len, void *const *bufs, int64_t n) {
  rt_site *s = NULL;
  shl_status st = len < 0 || n < 0 ? st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "negative length") : NULL;
  if (!st) st = site_get(cache, text, (size_t)len, &s);
  if (!st) st = site_run(s, bufs, n);
  if (!st) return 0;
  int32_t code = (int32_t)shloc_status_code(st);
  shloc_status_free(st);
  return code ? code : -1;
}

void shloc_rt_op_release(void **cache) {
  site_free(__atomic_exchange_n((rt_site **)cache, NULL, __ATOMIC_ACQ_REL));
}

int32_t _mlir_ciface_shloc_rt_op(void **cache, const char *text, int64_t len, void *const *bufs, int64_t n) {
  return shloc_rt_op(cache, text, len, bufs, n);
}
