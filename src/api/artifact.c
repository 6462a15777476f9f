/* Public entry points for writing portable artifacts (include/shloc/artifact.h). */
#include <stdio.h>
#include <stdlib.h>

#include "bytecode/vhlo/vhlo.h"
#include "bytecode/vhlo/vhlo_write.h"
#include "passes/chlo_legalize.h"
#include "shloc/artifact.h"

const char *shloc_vhlo_current_version(void) { return "1.20.0"; }
const char *shloc_vhlo_minimum_version(void) { return "0.9.0"; }

static const uint32_t minimum_version[3] = {0, 9, 0};

/* The bytecode format StableHLO writes for each of its versions
 * (stablehlo/dialect/Version.cpp, getBytecodeVersion). */
static int64_t bytecode_version_for(const uint32_t *v) {
  if (vx_older(v, 0, 10, 0)) return 0;
  if (vx_older(v, 0, 12, 0)) return 1;
  if (vx_older(v, 0, 14, 0)) return 3;
  if (vx_older(v, 0, 15, 0)) return 4;
  return 6;
}

static shl_status parse_version(const char *s, uint32_t out[3]) {
  unsigned long v[3];
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    char *end;
    if (*p < '0' || *p > '9') goto bad;
    v[i] = strtoul(p, &end, 10);
    if (v[i] > 9999 || (i < 2 && *end != '.') || (i == 2 && *end)) goto bad;
    out[i] = (uint32_t)v[i];
    p = end + 1;
  }
  const uint32_t *cur = vhlo_current_version();
  if (vx_older(out, 0, 9, 0) || vx_older(cur, out[0], out[1], out[2]))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "target version %s is outside the supported range %s to %s", s, shloc_vhlo_minimum_version(),
                    shloc_vhlo_current_version());
  return NULL;
bad:
  return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                  "invalid target version '%s' (expected X.Y.Z between %s and %s, 'current' or 'oldest')", s,
                  shloc_vhlo_minimum_version(), shloc_vhlo_current_version());
}

/* Converts m for `target` (probe: finds the oldest version instead). */
static shl_status convert_module(const shloc_module *m, const uint32_t target[3], bool probe, bool strip, const char *producer,
                          uint8_t **out, size_t *len, uint32_t need[3]) {
  bw_writer w;
  bw_init(&w, bytecode_version_for(target), producer);
  vx_ctx x = {.w = &w, .probe = probe, .strip = strip};
  memcpy(x.target, target, sizeof x.target);
  memcpy(x.need, minimum_version, sizeof x.need);
  x.d_builtin = bw_dialect(&w, "builtin", 7);
  x.d_vhlo = bw_dialect(&w, "vhlo", 4);
  strmap_init(&x.ops_cache, &w.arena);
  bw_op *root;
  shl_status st = vhlo_write_module(m, &x, &root);
  if (!st && out) st = bw_write(&w, root, out, len);
  if (need) memcpy(need, x.need, sizeof x.need);
  bw_free(&w);
  return st;
}

/* convert_module, on a copy with its CHLO ops decomposed when it has any
 * (VHLO has no CHLO; XLA's SerializeUsingVersionedStablehlo runs
 * chlo-preserve-high-level-ops and chlo-legalize-to-stablehlo first too).
 * Composites need VHLO 0.19.0; the oldest version is probed without them. */
static shl_status convert(const shloc_module *m, const uint32_t target[3], bool probe, unsigned flags,
                          const char *producer, uint8_t **out, size_t *len, uint32_t need[3]) {
  bool strip = flags & SHLOC_SERIALIZE_STRIP_DEBUGINFO;
  if (!pass_has_chlo(m)) return convert_module(m, target, probe, strip, producer, out, len, need);
  bool composites = !probe && !(flags & SHLOC_SERIALIZE_INLINE_CHLO) && !vx_older(target, 0, 19, 0);
  shloc_module *copy;
  ST_TRY(module_clone(m, &copy));
  /* The rules rely on verified ops (operand counts, types). */
  shl_status st = shloc_module_verify(copy);
  if (!st && composites) st = pass_wrap_chlo_composites(copy, NULL);
  if (!st) st = pass_legalize_chlo(copy, vx_older(target, 1, 4, 0) ? PASS_CHLO_EXPAND_TAN : 0, NULL);
  if (!st) st = convert_module(copy, target, probe, strip, producer, out, len, need);
  shloc_module_destroy(copy);
  return st;
}

shloc_status shloc_module_legalize_chlo(shloc_module *m, unsigned flags, size_t *out_replaced) {
  if (out_replaced) *out_replaced = 0;
  if (flags & ~(unsigned)SHLOC_LEGALIZE_CHLO_COMPOSITES)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "unknown flags 0x%x", flags);
  ST_TRY(shloc_module_verify(m));
  if (flags & SHLOC_LEGALIZE_CHLO_COMPOSITES) ST_TRY(pass_wrap_chlo_composites(m, NULL));
  return pass_legalize_chlo(m, 0, out_replaced);
}

shloc_status shloc_module_min_version(const shloc_module *m, char *buf, size_t cap) {
  if (!m || !m->top || !buf) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no module");
  uint32_t need[3];
  ST_TRY(convert(m, vhlo_current_version(), true, SHLOC_SERIALIZE_STRIP_DEBUGINFO, "", NULL, NULL, need));
  snprintf(buf, cap, "%u.%u.%u", need[0], need[1], need[2]);
  return NULL;
}

shloc_status shloc_module_serialize(const shloc_module *m, const char *target_version, unsigned flags,
                                    void **out_bytes, size_t *out_len) {
  if (!out_bytes || !out_len) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no output");
  *out_bytes = NULL;
  *out_len = 0;
  if (!m || !m->top) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no module");
  char vbuf[48];
  const char *ver = target_version && strcmp(target_version, "current") ? target_version : shloc_vhlo_current_version();
  if (!strcmp(ver, "oldest")) {
    ST_TRY(shloc_module_min_version(m, vbuf, sizeof vbuf));
    ver = vbuf;
  }
  uint32_t target[3];
  ST_TRY(parse_version(ver, target));
  char producer[64];
  snprintf(producer, sizeof producer, "StableHLO_v%s", ver);
  /* Patch releases share their minor release's VHLO. */
  uint32_t vt[3] = {target[0], target[1], 0};
  uint8_t *bytes;
  size_t len;
  ST_TRY(convert(m, vt, false, flags, producer, &bytes, &len, NULL));
  *out_bytes = bytes;
  *out_len = len;
  return NULL;
}
