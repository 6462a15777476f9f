/* Float literals: APFloat's decimal formatting (exact, on big integers) and
 * correctly rounded decimal parsing for every float dtype. */
#include "floatfmt.h"

#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalar.h"

/* ---- a fixed-size unsigned big integer (enough for 2^-1074 * 2^53 * 5^1074) */

#define BIG_LIMBS 90

typedef struct {
  uint32_t d[BIG_LIMBS]; /* little-endian limbs */
  int n;                 /* limbs in use; d[n-1] != 0 unless n == 0 */
} big;

static void big_set(big *b, uint64_t v) {
  b->n = 0;
  while (v) {
    b->d[b->n++] = (uint32_t)v;
    v >>= 32;
  }
}

static void big_mul_small(big *b, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < b->n; i++) {
    uint64_t x = (uint64_t)b->d[i] * m + carry;
    b->d[i] = (uint32_t)x;
    carry = x >> 32;
  }
  if (carry) b->d[b->n++] = (uint32_t)carry;
}

static void big_shl(big *b, unsigned s) {
  if (!b->n) return;
  unsigned limbs = s / 32, bits = s % 32;
  b->d[b->n] = 0;
  for (int i = b->n; i >= 0; i--) {
    uint32_t hi = bits ? b->d[i] << bits : b->d[i];
    uint32_t lo = (bits && i > 0) ? b->d[i - 1] >> (32 - bits) : 0;
    b->d[i + (int)limbs] = hi | lo;
  }
  for (unsigned i = 0; i < limbs; i++) b->d[i] = 0;
  b->n += (int)limbs + 1;
  while (b->n && !b->d[b->n - 1]) b->n--;
}

/* b = floor(b / q); returns the remainder. */
static uint32_t big_div_small(big *b, uint32_t q) {
  uint64_t rem = 0;
  for (int i = b->n - 1; i >= 0; i--) {
    uint64_t x = rem << 32 | b->d[i];
    b->d[i] = (uint32_t)(x / q);
    rem = x % q;
  }
  while (b->n && !b->d[b->n - 1]) b->n--;
  return (uint32_t)rem;
}

static unsigned big_bits(const big *b) {
  if (!b->n) return 0;
  return (unsigned)(b->n - 1) * 32 + (32 - (unsigned)__builtin_clz(b->d[b->n - 1]));
}

static const uint32_t pow10_small[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

/* ---- APFloat::toString ---------------------------------------------------- */

/* Appends to a bounded output buffer, counting what did not fit. */
typedef struct {
  char *p;
  size_t cap, len;
} outbuf;

static void out_c(outbuf *o, char c) {
  if (o->len + 1 < o->cap) o->p[o->len] = c;
  o->len++;
}

/* Writes sign * sig * 2^exp (sig != 0) as APFloat's toString does with the
 * given FormatPrecision (0 = enough digits for the format's precision
 * `semprec`), FormatMaxPadding and TruncateZero.  Note the quirks kept on
 * purpose: excess digits are first dropped by truncating division, and the
 * final rounding to FormatPrecision digits is round-half-up on the digits. */
static void apfloat_to_string(outbuf *o, bool neg, uint64_t sig, int exp, unsigned semprec, unsigned prec,
                              unsigned max_pad, bool trunc_zero) {
  if (neg) out_c(o, '-');
  if (!prec) prec = 2 + semprec * 59 / 196;
  int tz = __builtin_ctzll(sig);
  exp += tz;
  sig >>= tz;

  big b;
  big_set(&b, sig);
  if (exp > 0) {
    big_shl(&b, (unsigned)exp);
    exp = 0;
  } else if (exp < 0) {
    int k = -exp; /* sig * 2^-k == sig * 5^k * 10^-k */
    for (; k >= 13; k -= 13) big_mul_small(&b, 1220703125u); /* 5^13 */
    uint32_t p5 = 1;
    while (k--) p5 *= 5;
    big_mul_small(&b, p5);
  }

  unsigned bits = big_bits(&b), required = (prec * 196 + 58) / 59;
  if (bits > required) {
    unsigned tens = (bits - required) * 59 / 196;
    exp += (int)tens;
    for (; tens >= 9; tens -= 9) big_div_small(&b, 1000000000u);
    big_div_small(&b, pow10_small[tens]);
  }

  /* Digits, least significant first, trailing zeros folded into exp. */
  char digits[64];
  unsigned nd = 0;
  bool in_trail = true;
  while (b.n && nd < sizeof digits) {
    unsigned d = big_div_small(&b, 10);
    if (in_trail && !d) {
      exp++;
    } else {
      digits[nd++] = (char)('0' + d);
      in_trail = false;
    }
  }

  if (nd > prec) { /* round half up to prec digits */
    unsigned first = nd - prec;
    if (digits[first - 1] < '5') {
      while (first < nd && digits[first] == '0') first++;
    } else {
      while (first < nd && digits[first] == '9') first++;
      if (first < nd) digits[first]++;
    }
    exp += (int)first;
    if (first == nd) {
      digits[0] = '1';
      nd = 1;
    } else {
      memmove(digits, digits + first, nd - first);
      nd -= first;
    }
  }

  bool scientific;
  if (!max_pad) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = (unsigned)exp > max_pad || nd + (unsigned)exp > prec;
  } else {
    int msd = exp + (int)nd - 1;
    scientific = msd < 0 && (unsigned)-msd > max_pad;
  }

  if (scientific) {
    exp += (int)nd - 1;
    out_c(o, digits[nd - 1]);
    out_c(o, '.');
    if (nd == 1 && trunc_zero) out_c(o, '0');
    for (unsigned i = 1; i < nd; i++) out_c(o, digits[nd - 1 - i]);
    if (!trunc_zero && prec > nd - 1)
      for (unsigned i = 0; i < prec - nd + 1; i++) out_c(o, '0');
    out_c(o, trunc_zero ? 'E' : 'e');
    out_c(o, exp >= 0 ? '+' : '-');
    unsigned ue = (unsigned)(exp < 0 ? -exp : exp);
    char eb[8];
    int ne = 0;
    do {
      eb[ne++] = (char)('0' + ue % 10);
      ue /= 10;
    } while (ue);
    if (!trunc_zero && ne < 2) eb[ne++] = '0';
    while (ne) out_c(o, eb[--ne]);
    return;
  }
  if (exp >= 0) {
    for (unsigned i = 0; i < nd; i++) out_c(o, digits[nd - 1 - i]);
    for (int i = 0; i < exp; i++) out_c(o, '0');
    return;
  }
  int whole = exp + (int)nd;
  unsigned i = 0;
  if (whole > 0) {
    for (; i < (unsigned)whole; i++) out_c(o, digits[nd - 1 - i]);
    out_c(o, '.');
  } else {
    out_c(o, '0');
    out_c(o, '.');
    for (int z = 0; z < -whole; z++) out_c(o, '0');
  }
  for (; i < nd; i++) out_c(o, digits[nd - 1 - i]);
}

/* ---- printing ------------------------------------------------------------- */

/* Splits a finite nonzero value into sign * sig * 2^exp as APFloat holds it;
 * *semprec gets the format's precision (fraction bits + 1). */
static void fp_decompose(shl_dtype t, uint64_t storage, bool *neg, uint64_t *sig, int *exp, unsigned *semprec) {
  fp_layout L = fp_layout_of(t);
  uint64_t p = fp_pattern_of(t, storage);
  *semprec = L.mant + 1u;
  if (L.kind == FPK_E8M0) {
    *neg = false;
    *sig = 1;
    *exp = (int)p - 127;
    return;
  }
  unsigned sbit = (unsigned)L.ebits + L.mant;
  uint64_t e = (p >> L.mant) & fp__mask(L.ebits), f = p & fp__mask(L.mant);
  *neg = (p >> sbit) & 1;
  *sig = e ? f | 1ull << L.mant : f;
  *exp = (e ? (int)e : 1) - L.bias - L.mant;
}

static void out_hex(outbuf *o, uint64_t v) {
  static const char hexd[] = "0123456789ABCDEF";
  out_c(o, '0');
  out_c(o, 'x');
  int shift = 60;
  while (shift > 0 && !(v >> shift)) shift -= 4;
  for (; shift >= 0; shift -= 4) out_c(o, hexd[(v >> shift) & 0xF]);
}

static void out_str(outbuf *o, const char *s) {
  while (*s) out_c(o, *s++);
}

int fp_format(shl_dtype t, uint64_t storage, char *buf, size_t cap) {
  outbuf o = {buf, cap, 0};
  if (!dtype_is_float(t)) {
    if (cap) buf[0] = 0;
    return 0;
  }
  fp_layout L = fp_layout_of(t);
  uint64_t p = fp_pattern_of(t, storage);
  bool zero = L.kind != FPK_E8M0 && !(p & fp__mask((unsigned)L.ebits + L.mant));
  if (!fp_is_finite(t, storage)) {
    out_hex(&o, p);
  } else if (zero) {
    out_str(&o, p ? "-0.000000e+00" : "0.000000e+00");
  } else {
    bool neg;
    uint64_t sig;
    int exp;
    unsigned semprec;
    fp_decompose(t, storage, &neg, &sig, &exp, &semprec);
    char tmp[FP_FORMAT_MAX];
    outbuf s = {tmp, sizeof tmp, 0};
    apfloat_to_string(&s, neg, sig, exp, semprec, 6, 0, false);
    uint64_t back;
    if (s.len < sizeof tmp && fp_parse_decimal(t, tmp, s.len, &back) && fp_pattern_of(t, back) == p) {
      tmp[s.len] = 0;
      out_str(&o, tmp);
    } else {
      s.len = 0;
      apfloat_to_string(&s, neg, sig, exp, semprec, 0, 3, true);
      if (s.len < sizeof tmp && memchr(tmp, '.', s.len)) {
        tmp[s.len] = 0;
        out_str(&o, tmp);
      } else {
        out_hex(&o, p);
      }
    }
  }
  if (cap) buf[o.len < cap ? o.len : cap - 1] = 0;
  return (int)o.len;
}

/* ---- parsing -------------------------------------------------------------- */

static bool is_decimal(const char *s, size_t len) {
  size_t i = 0, digits = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) i++;
  while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
  if (i < len && s[i] == '.') {
    i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
  }
  if (!digits) return false;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '-' || s[i] == '+')) i++;
    size_t ed = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, ed++;
    if (!ed) return false;
  }
  return i == len;
}

/* Nearest double to the text under the current rounding direction. */
static double strtod_mode(const char *z, int mode) {
  int old = fegetround();
  fesetround(mode);
  double d = strtod(z, NULL);
  fesetround(old);
  return d;
}

/* True when the finite nonzero d lies exactly halfway between two adjacent
 * values of layout L (overflow thresholds included): only then can rounding
 * the text to double first change the result. */
static bool is_tie(fp_layout L, double d) {
  uint64_t x = fp_f64_bits(d), f = x & fp__mask(52);
  int ex = (int)(x >> 52 & 0x7FF);
  uint64_t m = ex ? f | 1ull << 52 : f;
  int q = (ex ? ex : 1) - 1075;
  int msb = 63 - __builtin_clzll(m), e = msb + q;
  if (L.kind == FPK_E8M0) return msb > 0 && (m & fp__mask((unsigned)msb)) == 1ull << (msb - 1);
  int emin = 1 - L.bias;
  int sh = (e > emin ? e : emin) - L.mant - q;
  if (sh <= 0 || sh > msb + 1) return false;
  return (m & fp__mask((unsigned)sh)) == 1ull << (sh - 1);
}

/* NUL-terminated copy of the text in small (or malloc'd when long). */
static char *text_copy(const char *s, size_t len, char *small, size_t small_cap) {
  char *z = len < small_cap ? small : malloc(len + 1);
  if (!z) return NULL;
  memcpy(z, s, len);
  z[len] = 0;
  return z;
}

bool fp_parse_decimal(shl_dtype t, const char *s, size_t len, uint64_t *out_storage) {
  if (!dtype_is_float(t) || !is_decimal(s, len)) return false;
  char small[128];
  char *z = text_copy(s, len, small, sizeof small);
  if (!z) return false;
  if (t == DT_F32) {
    *out_storage = fp_f32_bits(strtof(z, NULL));
  } else {
    double d = strtod(z, NULL);
    if (t != DT_F64 && isfinite(d) && d != 0 && is_tie(fp_layout_of(t), d)) {
      double lo = strtod_mode(z, FE_DOWNWARD), hi = strtod_mode(z, FE_UPWARD);
      if (lo != hi) d = nextafter(d, d == hi ? -INFINITY : INFINITY); /* the text is off the tie */
    }
    *out_storage = fp_from_f64(t, d);
  }
  if (z != small) free(z);
  return true;
}

bool fp_parse_literal(shl_dtype t, const char *s, size_t len, uint64_t *out_storage) {
  if (!dtype_is_float(t) || !is_decimal(s, len)) return false;
  char small[128];
  char *z = text_copy(s, len, small, sizeof small);
  if (!z) return false;
  *out_storage = fp_from_f64(t, strtod(z, NULL));
  if (z != small) free(z);
  return true;
}
