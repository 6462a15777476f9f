/* .npy reading and writing.  The header is a Python dict literal; only the
 * subset NumPy writes is accepted (string, True/False and int-tuple values),
 * and every size is checked against the real file size before allocating. */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char npy_magic[6] = {(char)0x93, 'N', 'U', 'M', 'P', 'Y'};

#define NPY_MAX_HEADER (1u << 20) /* far beyond any real header; bounds the allocation */

/* ---- descr ---------------------------------------------------------------- */

/* Splits "<f4" into kind 'f', size 4 and byte order; normalizes into norm
 * ('|' for one-byte items, else '<').  False for anything else. */
static bool descr_parse(const char *s, size_t len, char norm[8], size_t *itemsize, bool *big_endian) {
  size_t i = 0;
  *big_endian = false;
  if (i < len && strchr("<>|=", s[i])) *big_endian = s[i++] == '>';
  if (i >= len || !strchr("biufcV", s[i])) return false;
  char kind = s[i++];
  size_t size = 0, digits = 0;
  for (; i < len && s[i] >= '0' && s[i] <= '9' && digits < 3; i++, digits++) size = size * 10 + (size_t)(s[i] - '0');
  if (i != len || !digits || !size) return false;
  bool ok;
  switch (kind) {
    case 'b': ok = size == 1; break;
    case 'i':
    case 'u': ok = size == 1 || size == 2 || size == 4 || size == 8; break;
    case 'f': ok = size == 2 || size == 4 || size == 8; break;
    case 'c': ok = size == 8 || size == 16; break;
    default: ok = size <= 16; break; /* 'V': raw bits */
  }
  if (!ok) return false;
  if (size == 1) *big_endian = false;
  snprintf(norm, 8, "%c%c%u", size == 1 ? '|' : '<', kind, (unsigned)(size % 1000));
  *itemsize = size;
  return true;
}

const char *npy_descr_for(shl_dtype t) {
  switch (t) {
    case DT_I1: return "|b1";
    case DT_I2:
    case DT_I4:
    case DT_I8:
    case DT_SI2:
    case DT_SI4:
    case DT_SI8: return "|i1";
    case DT_I16:
    case DT_SI16: return "<i2";
    case DT_I32:
    case DT_SI32: return "<i4";
    case DT_I64:
    case DT_SI64:
    case DT_INDEX: return "<i8";
    case DT_UI2:
    case DT_UI4:
    case DT_UI8: return "|u1";
    case DT_UI16: return "<u2";
    case DT_UI32: return "<u4";
    case DT_UI64: return "<u8";
    case DT_F16: return "<f2";
    case DT_F32:
    case DT_TF32: return "<f4";
    case DT_F64: return "<f8";
    case DT_BF16: return "<V2";
    case DT_C64: return "<c8";
    case DT_C128: return "<c16";
    default: return dtype_is_float(t) && dtype_bytes(t) == 1 ? "|V1" : NULL;
  }
}

bool npy_descr_accepts(const char *descr, shl_dtype t) {
  char norm[8];
  size_t size;
  bool big;
  if (t <= DT_INVALID || t >= DT_COUNT || !descr_parse(descr, strlen(descr), norm, &size, &big)) return false;
  if (size != dtype_bytes(t)) return false;
  char kind = norm[1];
  switch (dtype_class(t)) {
    case DTC_BOOL: return kind == 'b' || kind == 'i' || kind == 'u';
    case DTC_SINT:
    case DTC_UINT: return kind == 'i' || kind == 'u' || (dtype_bits(t) < 8 && kind == 'V');
    case DTC_FLOAT: /* 'f' only where NumPy has the type; raw bits always */
      return kind == 'V' || kind == 'u' || (kind == 'f' && (t == DT_F16 || t == DT_F32 || t == DT_TF32 || t == DT_F64));
    case DTC_COMPLEX: return kind == 'c' || kind == 'V';
    default: return false;
  }
}

shl_dtype npy_dtype_for_descr(const char *descr) {
  static const struct {
    const char *descr;
    shl_dtype t;
  } map[] = {
      {"|b1", DT_I1},   {"|i1", DT_I8},   {"<i2", DT_I16},  {"<i4", DT_I32},  {"<i8", DT_I64},
      {"|u1", DT_UI8},  {"<u2", DT_UI16}, {"<u4", DT_UI32}, {"<u8", DT_UI64}, {"<f2", DT_F16},
      {"<f4", DT_F32},  {"<f8", DT_F64},  {"<c8", DT_C64},  {"<c16", DT_C128}, {"<V2", DT_BF16},
  };
  char norm[8];
  size_t size;
  bool big;
  if (!descr_parse(descr, strlen(descr), norm, &size, &big)) return DT_INVALID;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i].descr, norm)) return map[i].t;
  return DT_INVALID;
}

/* ---- header dict ---------------------------------------------------------- */

typedef struct {
  const char *p, *end;
} cursor;

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool eat(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A quoted string without escapes; returns its contents. */
static bool read_string(cursor *c, const char **s, size_t *n) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
  char q = *c->p++;
  const char *start = c->p;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\') return false;
    c->p++;
  }
  if (c->p >= c->end) return false;
  *s = start;
  *n = (size_t)(c->p - start);
  c->p++;
  return true;
}

static bool read_word(cursor *c, const char *w) {
  skip_ws(c);
  size_t n = strlen(w);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n)) return false;
  c->p += n;
  return true;
}

typedef struct {
  bool has_descr, has_order, has_shape, fortran;
  char descr[8];
  size_t itemsize;
  bool big_endian;
  int rank;
  int64_t dims[NPY_MAX_RANK];
} header_info;

/* Parses "(d0, d1, ...)" with Python's optional trailing comma (and the
 * Python 2 'L' suffix old writers left behind). */
static shl_status read_shape(cursor *c, const char *name, header_info *h) {
  if (!eat(c, '(')) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: 'shape' is not a tuple", name);
  h->rank = 0;
  for (;;) {
    skip_ws(c);
    if (eat(c, ')')) return NULL;
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
      return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: bad dimension in 'shape'", name);
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      v = v * 10 + (uint64_t)(*c->p++ - '0');
      if (v > (uint64_t)INT64_MAX)
        return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: dimension too large", name);
    }
    if (c->p < c->end && *c->p == 'L') c->p++;
    if (h->rank == NPY_MAX_RANK)
      return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "%s: npy header: more than %d dimensions", name, NPY_MAX_RANK);
    h->dims[h->rank++] = (int64_t)v;
    if (eat(c, ',')) continue;
    if (eat(c, ')')) return NULL;
    return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: expected ',' or ')' in 'shape'", name);
  }
}

static shl_status parse_dict(const char *text, size_t len, const char *name, header_info *h) {
  cursor c = {text, text + len};
  memset(h, 0, sizeof *h);
  if (!eat(&c, '{')) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header is not a dict", name);
  while (!eat(&c, '}')) {
    const char *key;
    size_t kn;
    if (!read_string(&c, &key, &kn) || !eat(&c, ':'))
      return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: malformed npy header", name);
    if (kn == 5 && !memcmp(key, "descr", 5) && !h->has_descr) {
      const char *d;
      size_t dn;
      if (!read_string(&c, &d, &dn)) {
        skip_ws(&c);
        if (c.p < c.end && *c.p == '[')
          return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s: structured npy dtypes are not supported", name);
        return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: 'descr' is not a string", name);
      }
      if (!descr_parse(d, dn, h->descr, &h->itemsize, &h->big_endian))
        return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s: unsupported npy dtype '%.*s'", name,
                        (int)(dn > 32 ? 32 : dn), d);
      h->has_descr = true;
    } else if (kn == 13 && !memcmp(key, "fortran_order", 13) && !h->has_order) {
      if (read_word(&c, "True"))
        h->fortran = true;
      else if (!read_word(&c, "False"))
        return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: 'fortran_order' is not True/False", name);
      h->has_order = true;
    } else if (kn == 5 && !memcmp(key, "shape", 5) && !h->has_shape) {
      ST_TRY(read_shape(&c, name, h));
      h->has_shape = true;
    } else {
      return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header: unexpected or repeated key '%.*s'", name,
                      (int)(kn > 32 ? 32 : kn), key);
    }
    if (!eat(&c, ',')) {
      if (eat(&c, '}')) break;
      return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: malformed npy header", name);
    }
  }
  skip_ws(&c);
  if (c.p != c.end) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: trailing text after the npy header", name);
  if (!h->has_descr || !h->has_order || !h->has_shape)
    return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy header lacks 'descr', 'fortran_order' or 'shape'", name);
  if (h->fortran)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s: Fortran-order npy arrays are not supported", name);
  return NULL;
}

/* Validates the fixed prefix; *hlen and *data_off describe the header. */
static shl_status read_prefix(const unsigned char *b, size_t n, const char *name, size_t *hlen, size_t *data_off) {
  if (n < 10) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: truncated npy file", name);
  if (memcmp(b, npy_magic, 6)) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: not an npy file", name);
  unsigned major = b[6], minor = b[7];
  if (major < 1 || major > 3 || minor != 0)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s: unsupported npy format version %u.%u", name, major, minor);
  size_t off = major == 1 ? 10 : 12;
  if (n < off) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: truncated npy file", name);
  size_t len = major == 1 ? (size_t)b[8] | (size_t)b[9] << 8
                          : (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
  if (len > NPY_MAX_HEADER) return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "%s: npy header too large", name);
  *hlen = len;
  *data_off = off + len;
  return NULL;
}

/* Checks the element count against the bytes present; sets out's metadata. */
static shl_status describe(const header_info *h, size_t data_bytes, const char *name, npy_array *out) {
  uint64_t count = 1;
  bool overflow = false;
  for (int i = 0; i < h->rank; i++) {
    uint64_t d = (uint64_t)h->dims[i];
    if (d && count > UINT64_MAX / d) overflow = true;
    count *= d;
  }
  if (!overflow && count > SIZE_MAX / h->itemsize) overflow = true;
  bool any_zero = false;
  for (int i = 0; i < h->rank; i++) any_zero |= h->dims[i] == 0;
  if (overflow && !any_zero)
    return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy shape is too large for memory", name);
  size_t nbytes = any_zero ? 0 : (size_t)count * h->itemsize;
  if (nbytes != data_bytes)
    return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: npy data is %zu bytes but the header describes %zu", name,
                    data_bytes, nbytes);
  memcpy(out->descr, h->descr, sizeof out->descr);
  out->itemsize = h->itemsize;
  out->rank = h->rank;
  memcpy(out->dims, h->dims, sizeof out->dims);
  out->nbytes = nbytes;
  return NULL;
}

/* Big-endian files: swap each scalar (complex items are two scalars). */
static void swap_to_little(void *data, size_t nbytes, size_t itemsize, char kind) {
  size_t w = kind == 'c' ? itemsize / 2 : itemsize;
  unsigned char *p = data;
  for (size_t i = 0; i + w <= nbytes; i += w)
    for (size_t a = 0, b = w - 1; a < b; a++, b--) {
      unsigned char t = p[i + a];
      p[i + a] = p[i + b];
      p[i + b] = t;
    }
}

shl_status npy_read_mem(const void *buf, size_t len, const char *name, npy_array *out) {
  memset(out, 0, sizeof *out);
  const unsigned char *b = buf;
  size_t hlen, off;
  ST_TRY(read_prefix(b, len, name, &hlen, &off));
  if (off > len) return st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: truncated npy header", name);
  header_info h;
  ST_TRY(parse_dict((const char *)b + (off - hlen), hlen, name, &h));
  npy_array tmp = {0};
  ST_TRY(describe(&h, len - off, name, &tmp));
  tmp.data = malloc(tmp.nbytes ? tmp.nbytes : 1);
  if (!tmp.data) return st_oom_size(name, tmp.nbytes);
  memcpy(tmp.data, b + off, tmp.nbytes);
  if (h.big_endian) swap_to_little(tmp.data, tmp.nbytes, tmp.itemsize, h.descr[1]);
  *out = tmp;
  return NULL;
}

static bool read_exact(FILE *f, void *p, size_t n) { return fread(p, 1, n, f) == n; }

shl_status npy_read_file(const char *path, npy_array *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return st_error(SHLOC_ERR_IO, NULL, NULL, "%s: cannot open: %s", path, strerror(errno));
  shl_status st = NULL;
  char *header = NULL;
  npy_array tmp = {0};
  struct stat sb;
  unsigned char pre[12];
  size_t hlen, off;
  if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: not a regular file", path);
    goto done;
  }
  size_t fsize = (size_t)sb.st_size, npre = fsize < sizeof pre ? fsize : sizeof pre;
  if (!read_exact(f, pre, npre)) {
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: read error", path);
    goto done;
  }
  if ((st = read_prefix(pre, npre, path, &hlen, &off))) goto done;
  if (off > fsize) {
    st = st_error(SHLOC_ERR_PARSE, NULL, NULL, "%s: truncated npy header", path);
    goto done;
  }
  header = malloc(hlen ? hlen : 1);
  if (!header) {
    st = st_oom();
    goto done;
  }
  header_info h;
  if (fseek(f, (long)(off - hlen), SEEK_SET) || !read_exact(f, header, hlen)) {
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: read error", path);
    goto done;
  }
  if ((st = parse_dict(header, hlen, path, &h)) || (st = describe(&h, fsize - off, path, &tmp))) goto done;
  tmp.data = malloc(tmp.nbytes ? tmp.nbytes : 1);
  if (!tmp.data) {
    st = st_oom_size(path, tmp.nbytes);
    goto done;
  }
  if (!read_exact(f, tmp.data, tmp.nbytes)) {
    free(tmp.data);
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: read error", path);
    goto done;
  }
  if (h.big_endian) swap_to_little(tmp.data, tmp.nbytes, tmp.itemsize, h.descr[1]);
  *out = tmp;
done:
  free(header);
  fclose(f);
  return st;
}

void npy_array_free(npy_array *a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* ---- writing -------------------------------------------------------------- */

/* Builds magic + version + length + padded dict (total a multiple of 64, as
 * NumPy aligns it); returns the malloc'd prefix and its size. */
static char *build_header(const char *descr, const int64_t *dims, int rank, size_t *out_len) {
  size_t cap = 128 + (size_t)rank * 24, n = 0;
  char *dict = malloc(cap);
  if (!dict) return NULL;
  n += (size_t)snprintf(dict + n, cap - n, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < rank; i++)
    n += (size_t)snprintf(dict + n, cap - n, i ? ", %lld" : "%lld", (long long)dims[i]);
  n += (size_t)snprintf(dict + n, cap - n, rank == 1 ? ",), }" : "), }");
  size_t pre = 10, total = (pre + n + 1 + 63) / 64 * 64;
  if (total - pre > 0xFFFF) { /* version 1.0 unless the header length needs 2.0's 32 bits */
    pre = 12;
    total = (pre + n + 1 + 63) / 64 * 64;
  }
  char *out = malloc(total);
  if (!out) {
    free(dict);
    return NULL;
  }
  size_t hlen = total - pre;
  memcpy(out, npy_magic, 6);
  out[6] = pre == 10 ? 1 : 2;
  out[7] = 0;
  for (size_t i = 0; i < pre - 8; i++) out[8 + i] = (char)(hlen >> (8 * i));
  memcpy(out + pre, dict, n);
  memset(out + pre + n, ' ', total - pre - n - 1);
  out[total - 1] = '\n';
  free(dict);
  *out_len = total;
  return out;
}

shl_status npy_write_file_atomic(const char *path, const char *descr, const int64_t *dims, int rank,
                                 const void *data, size_t nbytes) {
  char norm[8];
  size_t itemsize;
  bool big;
  if (!descr || !descr_parse(descr, strlen(descr), norm, &itemsize, &big) || big)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: unsupported npy dtype '%s'", path, descr ? descr : "");
  if (rank < 0 || rank > NPY_MAX_RANK)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: npy rank %d out of range", path, rank);
  uint64_t count = 1;
  bool overflow = false, zero = false;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: negative npy dimension", path);
    uint64_t d = (uint64_t)dims[i];
    zero |= d == 0;
    if (d && count > UINT64_MAX / d) overflow = true;
    count *= d;
  }
  if (!zero && (overflow || count > SIZE_MAX / itemsize || count * itemsize != nbytes))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: %zu data bytes do not match the npy shape", path, nbytes);
  if (zero && nbytes) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: data given for an empty npy array", path);

  size_t hsize;
  char *header = build_header(norm, dims, rank, &hsize);
  if (!header) return st_oom();
  /* Devices and pipes (/dev/null, /dev/stdout) are written in place: renaming
   * a temporary over them would replace the device. */
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(header, 1, hsize, f) == hsize && (!nbytes || fwrite(data, 1, nbytes, f) == nbytes);
    if (f && fclose(f) != 0) ok = false;
    free(header);
    return ok ? NULL : st_error(SHLOC_ERR_IO, NULL, NULL, "%s: write failed: %s", path, strerror(errno));
  }
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) {
    free(header);
    return st_oom();
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", 12);
  shl_status st = NULL;
  int fd = mkstemp(tmp);
  if (fd < 0) {
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: cannot create temporary file: %s", path, strerror(errno));
    goto out;
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: %s", path, strerror(errno));
    goto out;
  }
  (void)fchmod(fd, 0644); /* mkstemp makes it private; an output file should not be */
  bool ok = fwrite(header, 1, hsize, f) == hsize && (!nbytes || fwrite(data, 1, nbytes, f) == nbytes);
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path)) {
    st = st_error(SHLOC_ERR_IO, NULL, NULL, "%s: write failed: %s", path, strerror(errno));
    unlink(tmp);
  }
out:
  free(tmp);
  free(header);
  return st;
}
