/* Runtime half of the generated C shims (shloc/ffi_shim.h): memref
 * descriptors in, an FFI call site of src/ffi in the middle, memref
 * descriptors out.  The site is prepared the way the executor prepares a
 * stablehlo.custom_call (ffi_attrs_from_dict on the backend_config
 * dictionary, ffi_site_prepare), so handlers see the same call frames. */
#include <pthread.h>
#include <stdlib.h>

#include "exec/kernels/ffi_call.h"
#include "ffi/ffi.h"
#include "shloc/ffi_shim.h"
#include "text/parse_fragment.h"

#define SHIM_ALIGN 64
#define SHIM_MAX_RANK 64

struct shloc_shim_site {
  ffi_registry *reg; /* holds only this site's handler */
  ffi_site *site;
  pthread_mutex_t mu; /* an ffi_site must not run twice at once */
  ffi_buffer *args, *rets;
  void **handler_buf; /* per result: what the handler writes (the result, or scratch in its layout) */
  void **scratch;     /* n_args + n_rets buffers malloc'd for one call */
};

/* Serializes first-use preparation of every site. */
static pthread_mutex_t shim_prepare_mu = PTHREAD_MUTEX_INITIALIZER;

static shl_status parse_config(const shloc_shim_call_desc *d, ffi_attrs **out) {
  *out = NULL;
  shloc_context *ctx = shloc_context_create();
  if (!ctx) return st_oom();
  shloc_module *m = NULL;
  const shl_attr *dict = NULL;
  shl_status st = shloc_module_parse(ctx, d->symbol, "", 0, 1, &m);
  if (!st) st = text_parse_attr(m, d->config, d->config_len, &dict);
  if (!st && dict->kind != AT_DICT)
    st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "the backend_config of custom call '%s' is not a dictionary",
                  d->target);
  if (!st) st = ffi_attrs_create(out);
  if (!st) st = ffi_attrs_from_dict(*out, dict);
  if (st) {
    ffi_attrs_destroy(*out);
    *out = NULL;
  }
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return st;
}

static void site_free(shloc_shim_site *s) {
  ffi_site_destroy(s->site);
  ffi_registry_destroy(s->reg);
  pthread_mutex_destroy(&s->mu);
  free(s->args);
  free(s->rets);
  free(s->handler_buf);
  free(s->scratch);
  free(s);
}

static shl_status site_prepare(const shloc_shim_call_desc *d, shloc_shim_site **out) {
  *out = NULL;
  if (d->n_args < 0 || d->n_rets < 0 || !d->target || !d->symbol)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "malformed shim call description");
  for (int32_t k = 0; k < d->n_args + d->n_rets; k++) {
    const shloc_shim_buffer *b = k < d->n_args ? &d->args[k] : &d->rets[k - d->n_args];
    if (b->rank < 0 || b->rank > SHIM_MAX_RANK || (k >= d->n_args && b->rank && !b->dims))
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "custom call '%s': buffer #%d has an unsupported rank %d",
                      d->target, (int)k, (int)b->rank);
  }
  bool typed = d->api_version == 4;
  if (typed ? !d->handler : !d->legacy)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': no handler function", d->target);
  shloc_shim_site *s = calloc(1, sizeof *s);
  if (!s) return st_oom();
  pthread_mutex_init(&s->mu, NULL);
  size_t na = (size_t)d->n_args + 1, nr = (size_t)d->n_rets + 1;
  s->args = calloc(na, sizeof *s->args);
  s->rets = calloc(nr, sizeof *s->rets);
  s->handler_buf = calloc(nr, sizeof *s->handler_buf);
  s->scratch = calloc(na + nr, sizeof *s->scratch);
  shl_status st = s->args && s->rets && s->handler_buf && s->scratch ? ffi_registry_create(&s->reg) : st_oom();
  if (!st && typed) {
    XLA_FFI_Handler_Bundle bundle = {NULL, NULL, NULL, d->handler};
    st = ffi_registry_add_handler(s->reg, d->target, NULL, &bundle, 0);
  } else if (!st) {
    st = ffi_registry_add_legacy(s->reg, d->target, NULL, d->legacy);
  }
  ffi_attrs *attrs = NULL;
  if (!st && typed && d->config_len) st = parse_config(d, &attrs);
  if (!st) {
    ffi_site_desc sd = {
        .target = d->target,
        .api_version = d->api_version,
        .attrs = attrs,
        .opaque = typed ? NULL : d->config,
        .opaque_len = typed ? 0 : d->config_len,
        .n_args = d->n_args,
        .n_rets = d->n_rets,
    };
    st = ffi_site_prepare(s->reg, &sd, &s->site);
  }
  ffi_attrs_destroy(attrs);
  if (st) {
    site_free(s);
    return st;
  }
  *out = s;
  return NULL;
}

static shl_status site_get(const shloc_shim_call_desc *d, shloc_shim_site **slot, shloc_shim_site **out) {
  shloc_shim_site *s = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (s) {
    *out = s;
    return NULL;
  }
  pthread_mutex_lock(&shim_prepare_mu);
  s = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  shl_status st = NULL;
  if (!s && !(st = site_prepare(d, &s))) __atomic_store_n(slot, s, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&shim_prepare_mu);
  *out = s;
  return st;
}

/* ---- layouts ---- */

/* Element strides of a dense buffer whose dimensions are laid out in the
 * minor-to-major order m2m (NULL: row-major). */
static void layout_strides(int32_t rank, const int64_t *dims, const int64_t *m2m, int64_t *strides) {
  int64_t s = 1;
  for (int32_t k = 0; k < rank; k++) {
    int32_t d = m2m ? (int32_t)m2m[k] : rank - 1 - k;
    strides[d] = s;
    s *= dims[d];
  }
}

static bool same_strides(int32_t rank, const int64_t *dims, const int64_t *a, const int64_t *b) {
  for (int32_t d = 0; d < rank; d++)
    if (dims[d] > 1 && a[d] != b[d]) return false;
  return true;
}

/* Copies a box of elements between two strided views (element strides). */
static void copy_box(int32_t rank, const int64_t *dims, char *dst, const int64_t *ds, const char *src,
                     const int64_t *ss, size_t esz) {
  int64_t idx[SHIM_MAX_RANK];
  for (int32_t d = 0; d < rank; d++) {
    if (dims[d] == 0) return;
    idx[d] = 0;
  }
  int64_t inner = rank ? dims[rank - 1] : 1, di = rank ? ds[rank - 1] : 0, si = rank ? ss[rank - 1] : 0;
  for (;;) {
    int64_t doff = 0, soff = 0;
    for (int32_t d = 0; d + 1 < rank; d++) {
      doff += idx[d] * ds[d];
      soff += idx[d] * ss[d];
    }
    if (di == 1 && si == 1) {
      memcpy(dst + doff * (int64_t)esz, src + soff * (int64_t)esz, (size_t)inner * esz);
    } else {
      for (int64_t j = 0; j < inner; j++)
        memcpy(dst + (doff + j * di) * (int64_t)esz, src + (soff + j * si) * (int64_t)esz, esz);
    }
    int32_t d = rank - 2;
    while (d >= 0 && ++idx[d] == dims[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}

static int64_t elements(int32_t rank, const int64_t *dims) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; d++) n *= dims[d];
  return n;
}

/* Copies a memref into a dense buffer in the layout m2m. */
static void gather(const shloc_shim_memref *m, int32_t rank, const int64_t *m2m, size_t esz, void *dst) {
  int64_t ds[SHIM_MAX_RANK];
  layout_strides(rank, m->sizes, m2m, ds);
  const char *src = (const char *)m->aligned + m->offset * (int64_t)esz;
  copy_box(rank, m->sizes, dst, ds, src, m->strides, esz);
}

/* ---- calls ---- */

static shl_status alloc_result(const shloc_shim_buffer *b, shloc_shim_memref *r) {
  size_t esz = shloc_ffi_dtype_bytes(b->dtype);
  size_t nbytes = (size_t)elements(b->rank, b->dims) * esz;
  size_t padded = (nbytes + SHIM_ALIGN - 1) / SHIM_ALIGN * SHIM_ALIGN;
  void *p = aligned_alloc(SHIM_ALIGN, padded ? padded : SHIM_ALIGN);
  if (!p) return st_oom();
  r->allocated = r->aligned = p;
  r->offset = 0;
  for (int32_t d = 0; d < b->rank; d++) r->sizes[d] = b->dims[d];
  if (b->rank) layout_strides(b->rank, b->dims, NULL, r->strides);
  return NULL;
}

/* Fills the site's buffer tables for one call; scratch buffers go to s->scratch. */
static shl_status bind(shloc_shim_site *s, const shloc_shim_call_desc *d, const shloc_shim_memref *args,
                       shloc_shim_memref *rets) {
  size_t n_scratch = 0;
  for (int32_t o = 0; o < d->n_rets; o++) {
    const shloc_shim_buffer *b = &d->rets[o];
    size_t esz = shloc_ffi_dtype_bytes(b->dtype), nbytes = (size_t)elements(b->rank, b->dims) * esz;
    ST_TRY(alloc_result(b, &rets[o]));
    void *hb = rets[o].aligned;
    int64_t hs[SHIM_MAX_RANK], rs[SHIM_MAX_RANK];
    layout_strides(b->rank, b->dims, b->layout, hs);
    layout_strides(b->rank, b->dims, NULL, rs);
    if (!same_strides(b->rank, b->dims, hs, rs)) {
      if (!(hb = s->scratch[n_scratch++] = malloc(nbytes ? nbytes : 1))) return st_oom();
    }
    int32_t a = d->ret_alias ? d->ret_alias[o] : -1;
    if (a >= 0) gather(&args[a], b->rank, b->layout, esz, hb);
    s->handler_buf[o] = hb;
    s->rets[o] = (ffi_buffer){ffi_dtype_from_xla(b->dtype), hb, b->rank, b->dims};
  }
  for (int32_t i = 0; i < d->n_args; i++) {
    const shloc_shim_buffer *b = &d->args[i];
    const shloc_shim_memref *m = &args[i];
    size_t esz = shloc_ffi_dtype_bytes(b->dtype);
    void *data = (char *)m->aligned + m->offset * (int64_t)esz;
    bool aliased = false;
    for (int32_t o = 0; d->ret_alias && o < d->n_rets; o++)
      if (d->ret_alias[o] == i) {
        data = s->handler_buf[o];
        aliased = true;
      }
    int64_t hs[SHIM_MAX_RANK];
    layout_strides(b->rank, m->sizes, b->layout, hs);
    if (!aliased && !same_strides(b->rank, m->sizes, hs, m->strides)) {
      size_t nbytes = (size_t)elements(b->rank, m->sizes) * esz;
      if (!(data = s->scratch[n_scratch++] = malloc(nbytes ? nbytes : 1))) return st_oom();
      gather(m, b->rank, b->layout, esz, data);
    }
    s->args[i] = (ffi_buffer){ffi_dtype_from_xla(b->dtype), data, b->rank, m->sizes};
  }
  return NULL;
}

static shl_status run(shloc_shim_site *s, const shloc_shim_call_desc *d, const shloc_shim_memref *args,
                      shloc_shim_memref *rets) {
  for (int32_t o = 0; o < d->n_rets; o++) rets[o].allocated = rets[o].aligned = NULL;
  shl_status st = bind(s, d, args, rets);
  if (!st) st = ffi_site_call(s->site, NULL, s->args, s->rets);
  for (int32_t o = 0; !st && o < d->n_rets; o++) {
    const shloc_shim_buffer *b = &d->rets[o];
    if (s->handler_buf[o] == rets[o].aligned) continue;
    int64_t hs[SHIM_MAX_RANK];
    layout_strides(b->rank, b->dims, b->layout, hs);
    copy_box(b->rank, b->dims, rets[o].aligned, rets[o].strides, s->handler_buf[o], hs,
             shloc_ffi_dtype_bytes(b->dtype));
  }
  for (int32_t k = 0; k < d->n_args + d->n_rets; k++) {
    free(s->scratch[k]);
    s->scratch[k] = NULL;
  }
  for (int32_t o = 0; st && o < d->n_rets; o++) {
    free(rets[o].allocated);
    rets[o].allocated = rets[o].aligned = NULL;
  }
  return st;
}

shloc_status shloc_shim_call(const shloc_shim_call_desc *desc, shloc_shim_site **site, const shloc_shim_memref *args,
                             shloc_shim_memref *rets) {
  shloc_shim_site *s;
  shl_status st = site_get(desc, site, &s);
  if (!st) {
    pthread_mutex_lock(&s->mu);
    st = run(s, desc, args, rets);
    pthread_mutex_unlock(&s->mu);
  }
  return st ? st_annotate(st, "external function @%s", desc->symbol) : NULL;
}
