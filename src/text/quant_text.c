/* The canonical spelling of a !quant.uniform type, as MLIR prints it: the
 * storage bounds only when they are not the storage type's full range, scales
 * in MLIR's float format, zero points only when non-zero, per-axis
 * parameters separated by a bare ",".  Parsed text is stored in this form, so
 * equal types print (and compare) alike whatever the source spelled. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "quant_text.h"
#include "support/floatfmt.h"

typedef struct {
  const char *p, *end;
} qcur;

static void skip_ws(qcur *c) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

static bool lit(qcur *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

static bool integer(qcur *c, long long *out) {
  skip_ws(c);
  char buf[32];
  size_t n = 0;
  if (c->p < c->end && (*c->p == '-' || *c->p == '+')) buf[n++] = *c->p++;
  while (c->p < c->end && isdigit((unsigned char)*c->p) && n < sizeof buf - 1) buf[n++] = *c->p++;
  buf[n] = 0;
  if (!n || !isdigit((unsigned char)buf[n - 1])) return false;
  char *e;
  *out = strtoll(buf, &e, 10);
  return *e == 0;
}

static bool decimal(qcur *c, double *out) {
  skip_ws(c);
  char buf[64];
  size_t n = 0;
  while (c->p < c->end && n < sizeof buf - 1 && (isdigit((unsigned char)*c->p) || strchr("+-.eE", *c->p)))
    buf[n++] = *c->p++;
  buf[n] = 0;
  if (!n) return false;
  char *e;
  *out = strtod(buf, &e);
  return *e == 0;
}

static bool word(qcur *c, char *buf, size_t cap) {
  skip_ws(c);
  size_t n = 0;
  while (c->p < c->end && isalnum((unsigned char)*c->p) && n < cap - 1) buf[n++] = *c->p++;
  buf[n] = 0;
  return n > 0;
}

static void put(char *out, size_t cap, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n < cap) memcpy(out + *len, s, n + 1);
  *len += n;
}

static void put_param(char *out, size_t cap, size_t *len, double scale, long long zp) {
  uint64_t bits;
  memcpy(&bits, &scale, 8);
  char buf[FP_FORMAT_MAX + 32];
  fp_format(DT_F64, bits, buf, FP_FORMAT_MAX);
  put(out, cap, len, buf);
  if (zp) {
    snprintf(buf, sizeof buf, ":%lld", zp);
    put(out, cap, len, buf);
  }
}

static bool param(qcur *c, double *scale, long long *zp) {
  *zp = 0;
  if (!decimal(c, scale)) return false;
  if (lit(c, ':') && !integer(c, zp)) return false;
  return true;
}

bool quant_canonical(shl_arena *a, shl_str text, shl_str *out) {
  static const char prefix[] = "!quant.uniform<";
  if (!str_starts(text, prefix)) return false;
  qcur c = {text.p + sizeof prefix - 1, text.p + text.n};
  char storage[16], expressed[16], buf[64];
  if (!word(&c, storage, sizeof storage)) return false;
  bool is_signed = storage[0] == 'i';
  if ((storage[0] != 'i' && storage[0] != 'u') || !isdigit((unsigned char)storage[1])) return false;
  long long width = atoll(storage + 1), lo, hi;
  if (width < 1 || width > 32) return false;
  long long dlo = is_signed ? -(1ll << (width - 1)) : 0, dhi = is_signed ? (1ll << (width - 1)) - 1 : (1ll << width) - 1;
  lo = dlo;
  hi = dhi;
  if (lit(&c, '<') && !(integer(&c, &lo) && lit(&c, ':') && integer(&c, &hi) && lit(&c, '>'))) return false;
  if (!lit(&c, ':') || !word(&c, expressed, sizeof expressed)) return false;
  long long axis = -1;
  if (lit(&c, ':') && !integer(&c, &axis)) return false;
  if (!lit(&c, ',')) return false;
  /* Text grows by at most the float spellings: bound it generously. */
  size_t cap = text.n * 4 + 256, len = 0;
  char *o = arena_alloc_uninit(a, cap);
  if (!o) return false;
  o[0] = 0;
  put(o, cap, &len, prefix);
  put(o, cap, &len, storage);
  if (lo != dlo || hi != dhi) {
    snprintf(buf, sizeof buf, "<%lld:%lld>", lo, hi);
    put(o, cap, &len, buf);
  }
  put(o, cap, &len, ":");
  put(o, cap, &len, expressed);
  double scale;
  long long zp;
  if (axis >= 0) {
    snprintf(buf, sizeof buf, ":%lld, {", axis);
    put(o, cap, &len, buf);
    if (!lit(&c, '{')) return false;
    for (int i = 0;; i++) {
      if (!param(&c, &scale, &zp)) return false;
      if (i) put(o, cap, &len, ",");
      put_param(o, cap, &len, scale, zp);
      if (lit(&c, '}')) break;
      if (!lit(&c, ',')) return false;
    }
    put(o, cap, &len, "}>");
  } else {
    put(o, cap, &len, ", ");
    if (!param(&c, &scale, &zp)) return false;
    put_param(o, cap, &len, scale, zp);
    put(o, cap, &len, ">");
  }
  if (!lit(&c, '>') || c.p != c.end || len >= cap) return false;
  *out = (shl_str){o, len};
  return true;
}
