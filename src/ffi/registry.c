/* The handler registry: (target, platform) -> typed bundle or legacy function,
 * kept sorted for lookup and listing; version negotiation for typed handlers. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"
#include "targets/builtin_targets.h"

struct ffi_registry {
  ffi_entry *entries; /* sorted by (target, platform) */
  size_t n, cap;
  void **libs; /* dlopen handles, closed at destroy */
  size_t n_libs, cap_libs;
  int load_tag;            /* tag for entries added while a plugin loads, else -1 */
  const char *load_origin; /* their origin text */
};

/* The registry receiving XLA_FFI_Handler_Register calls on this thread. */
static _Thread_local ffi_registry *loading_registry;

ffi_registry *ffi_loading_registry(void) { return loading_registry; }

ffi_registry *ffi_set_loading_registry(ffi_registry *r) {
  ffi_registry *prev = loading_registry;
  loading_registry = r;
  return prev;
}

shl_status ffi_registry_create(ffi_registry **out) {
  *out = NULL;
  ffi_registry *r = calloc(1, sizeof *r);
  if (!r) return st_oom();
  r->load_tag = -1;
  *out = r;
  return NULL;
}

static void entry_free(ffi_entry *e) {
  free(e->target);
  free(e->platform);
  free(e->origin);
}

void ffi_registry_destroy(ffi_registry *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) entry_free(&r->entries[i]);
  free(r->entries);
  for (size_t i = r->n_libs; i-- > 0;) dlclose(r->libs[i]);
  free(r->libs);
  free(r);
}

size_t ffi_registry_count(const ffi_registry *r) { return r->n; }

bool ffi_registry_entry(const ffi_registry *r, size_t i, ffi_target_info *out) {
  if (i >= r->n) return false;
  const ffi_entry *e = &r->entries[i];
  *out = (ffi_target_info){e->target, e->platform, e->kind, e->traits, e->origin};
  return true;
}

void ffi_registry_set_load_tag(ffi_registry *r, int load_id, const char *origin) {
  r->load_tag = load_id;
  r->load_origin = origin;
}

int ffi_registry_library_count(const ffi_registry *r) { return (int)r->n_libs; }

shl_status ffi_registry_keep_library(ffi_registry *r, void *handle) {
  if (r->n_libs == r->cap_libs) {
    size_t cap = r->cap_libs ? 2 * r->cap_libs : 4;
    void **l = realloc(r->libs, cap * sizeof *l);
    if (!l) return st_oom();
    r->libs = l;
    r->cap_libs = cap;
  }
  r->libs[r->n_libs++] = handle;
  return NULL;
}

/* "cpu" for cpu/host in any case (XLA's canonical name is "host"; shloc says
 * "cpu"), else the lower-cased name.  NULL means "cpu". */
#define PLATFORM_MAX 64
static shl_status canonical_platform(const char *p, size_t len, char out[PLATFORM_MAX + 1]) {
  if (!p) {
    p = "cpu";
    len = 3;
  }
  if (len == 0 || len > PLATFORM_MAX || memchr(p, '\0', len))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "invalid platform name '%.*s'", (int)len, p);
  for (size_t i = 0; i < len; i++) out[i] = (char)tolower((unsigned char)p[i]);
  out[len] = '\0';
  if (strcmp(out, "host") == 0) strcpy(out, "cpu");
  return NULL;
}

static int entry_cmp(const ffi_entry *e, const char *target, size_t target_len, const char *platform) {
  size_t elen = strlen(e->target);
  int c = memcmp(e->target, target, elen < target_len ? elen : target_len);
  if (!c) c = (elen > target_len) - (elen < target_len);
  return c ? c : strcmp(e->platform, platform);
}

/* Index of the first entry not less than (target, platform). */
static size_t lower_bound(const ffi_registry *r, const char *target, size_t target_len, const char *platform) {
  size_t lo = 0, hi = r->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (entry_cmp(&r->entries[mid], target, target_len, platform) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

shl_status ffi_registry_find(ffi_registry *r, const char *target, const char *platform, ffi_entry *builtin,
                             ffi_entry **out) {
  char canon[PLATFORM_MAX + 1];
  ST_TRY(canonical_platform(platform, platform ? strlen(platform) : 0, canon));
  size_t len = strlen(target);
  size_t i = r ? lower_bound(r, target, len, canon) : 0;
  if (r && i < r->n && entry_cmp(&r->entries[i], target, len, canon) == 0) {
    *out = &r->entries[i];
    return NULL;
  }
  const builtin_target *b = strcmp(canon, "cpu") == 0 ? builtin_target_find(target, len) : NULL;
  if (b) {
    /* Built-in handlers are libshloc's own: no metadata query needed. */
    *builtin = (ffi_entry){.target = (char *)b->target,
                           .platform = (char *)"cpu",
                           .kind = FFI_KIND_TYPED,
                           .bundle = {.execute = b->execute},
                           .api_minor = XLA_FFI_API_MINOR,
                           .load_id = -1};
    *out = builtin;
    return NULL;
  }
  return st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "no handler registered for custom call target '%s' on platform '%s'",
                  target, canon);
}

shl_status ffi_registry_insert(ffi_registry *r, const char *target, size_t target_len, const char *platform,
                               size_t platform_len, const ffi_entry *proto) {
  if (!target || target_len == 0) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "empty custom call target name");
  if (memchr(target, '\0', target_len))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call target name contains a NUL byte");
  char canon[PLATFORM_MAX + 1];
  ST_TRY(canonical_platform(platform, platform_len, canon));
  size_t i = lower_bound(r, target, target_len, canon);
  if (i < r->n && entry_cmp(&r->entries[i], target, target_len, canon) == 0) {
    const ffi_entry *old = &r->entries[i];
    shl_status st = st_error(SHLOC_ERR_ALREADY_EXISTS, NULL, NULL,
                             "custom call target '%.*s' is already registered for platform '%s'%s%s", (int)target_len,
                             target, canon, old->origin ? " by " : "", old->origin ? old->origin : "");
    return st;
  }
  ffi_entry e = *proto;
  e.target = ffi_strndup(target, target_len);
  e.platform = ffi_strndup(canon, strlen(canon));
  e.origin = proto->origin    ? ffi_strndup(proto->origin, strlen(proto->origin))
             : r->load_origin ? ffi_strndup(r->load_origin, strlen(r->load_origin))
                              : NULL;
  e.load_id = r->load_tag;
  bool want_origin = proto->origin || r->load_origin;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    ffi_entry *n = realloc(r->entries, cap * sizeof *n);
    if (n) {
      r->entries = n;
      r->cap = cap;
    }
  }
  if (!e.target || !e.platform || (want_origin && !e.origin) || r->n == r->cap) {
    entry_free(&e);
    return st_oom();
  }
  memmove(&r->entries[i + 1], &r->entries[i], (r->n - i) * sizeof *r->entries);
  r->entries[i] = e;
  r->n++;
  return NULL;
}

void ffi_registry_forget(ffi_registry *r, int load_id) {
  size_t k = 0;
  for (size_t i = 0; i < r->n; i++) {
    if (r->entries[i].load_id == load_id)
      entry_free(&r->entries[i]);
    else
      r->entries[k++] = r->entries[i];
  }
  r->n = k;
}

/* ---- version negotiation --------------------------------------------- */

shl_status ffi_handler_check(const char *target, const char *stage, XLA_FFI_Handler *fn,
                             XLA_FFI_Handler_Traits *traits, int *minor_out) {
  XLA_FFI_Metadata md = {.struct_size = XLA_FFI_Metadata_STRUCT_SIZE,
                         .api_version = {.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE}};
  XLA_FFI_Metadata_Extension ext = {{XLA_FFI_Metadata_Extension_STRUCT_SIZE, XLA_FFI_Extension_Metadata, NULL}, &md};
  XLA_FFI_CallFrame cf = {
      .struct_size = XLA_FFI_CallFrame_STRUCT_SIZE,
      .extension_start = &ext.extension_base,
      .api = ffi_api(),
      .ctx = NULL,
      .stage = XLA_FFI_ExecutionStage_EXECUTE,
      .args = {.struct_size = XLA_FFI_Args_STRUCT_SIZE},
      .rets = {.struct_size = XLA_FFI_Rets_STRUCT_SIZE},
      .attrs = {.struct_size = XLA_FFI_Attrs_STRUCT_SIZE},
  };
  shl_status st = ffi_error_take(fn(&cf), target, "metadata query failed");
  if (st) return st_annotate(st, "%s handler", stage);
  int major = md.api_version.major_version, minor = md.api_version.minor_version;
  if (major == 0 && minor == 0)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                    "custom call '%s': %s handler did not report its XLA FFI API version (a handler must answer the "
                    "metadata query; see SHLOC_FFI_HANDLER_PROLOGUE)",
                    target, stage);
  bool too_old = major < FFI_MIN_MAJOR || (major == FFI_MIN_MAJOR && minor < FFI_MIN_MINOR);
  bool too_new = major > XLA_FFI_API_MAJOR || (major == XLA_FFI_API_MAJOR && minor > XLA_FFI_API_MINOR);
  if (too_old || too_new)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                    "custom call '%s': %s handler was built for XLA FFI API %d.%d, but shloc supports %d.%d to %d.%d",
                    target, stage, major, minor, FFI_MIN_MAJOR, FFI_MIN_MINOR, XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR);
  if (traits) *traits |= md.traits;
  if (minor_out) *minor_out = minor;
  return NULL;
}

static shl_status check_bundle(const char *target, const XLA_FFI_Handler_Bundle *b, XLA_FFI_Handler_Traits *traits,
                               int *minor) {
  if (!b || !b->execute)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': handler bundle has no execute function",
                    target);
  ST_TRY(ffi_handler_check(target, "execute", b->execute, traits, minor));
  if (b->instantiate) ST_TRY(ffi_handler_check(target, "instantiate", b->instantiate, NULL, NULL));
  if (b->prepare) ST_TRY(ffi_handler_check(target, "prepare", b->prepare, NULL, NULL));
  if (b->initialize) ST_TRY(ffi_handler_check(target, "initialize", b->initialize, NULL, NULL));
  return NULL;
}

shl_status ffi_entry_bundle(ffi_entry *e, XLA_FFI_Handler_Bundle *out) {
  if (e->kind == FFI_KIND_LEGACY)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "custom call '%s' is a legacy handler; the op needs api_version 1, 2 or 3", e->target);
  if (e->kind == FFI_KIND_SYMBOL && !e->verified) {
    XLA_FFI_Handler_Bundle b = {NULL, NULL, NULL, (XLA_FFI_Handler *)e->legacy};
    ST_TRY(check_bundle(e->target, &b, NULL, &e->api_minor));
    e->bundle = b;
    e->verified = true;
  }
  *out = e->bundle;
  return NULL;
}

/* ---- registration ---------------------------------------------------- */

shl_status ffi_registry_add_handler_n(ffi_registry *r, const char *target, size_t target_len, const char *platform,
                                      size_t platform_len, const XLA_FFI_Handler_Bundle *bundle,
                                      XLA_FFI_Handler_Traits traits) {
  char *name = ffi_strndup(target ? target : "", target ? target_len : 0);
  if (!name) return st_oom();
  ffi_entry proto = {.kind = FFI_KIND_TYPED, .traits = traits};
  shl_status st = check_bundle(name, bundle, &proto.traits, &proto.api_minor);
  if (!st) {
    proto.bundle = *bundle;
    st = ffi_registry_insert(r, target, target_len, platform, platform_len, &proto);
  }
  free(name);
  return st;
}

shl_status ffi_registry_add_handler(ffi_registry *r, const char *target, const char *platform,
                                    const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits) {
  return ffi_registry_add_handler_n(r, target, target ? strlen(target) : 0, platform, platform ? strlen(platform) : 0,
                                    bundle, traits);
}

shl_status ffi_registry_add_legacy(ffi_registry *r, const char *target, const char *platform, shloc_legacy_fn fn) {
  if (!fn) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': NULL legacy handler", target);
  ffi_entry proto = {.kind = FFI_KIND_LEGACY, .legacy = fn};
  return ffi_registry_insert(r, target, target ? strlen(target) : 0, platform, platform ? strlen(platform) : 0, &proto);
}
