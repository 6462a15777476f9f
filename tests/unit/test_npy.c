/* .npy reading and writing: byte-exact agreement with files NumPy 1.24 wrote,
 * round trips for every element type, and every kind of bad input returning
 * a status instead of crashing. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/npy.h"
#include "support/status.h"

static char tmpdir[64];

static int setup(void **state) {
  (void)state;
  strcpy(tmpdir, "/tmp/shloc_npy_XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  DIR *d = opendir(tmpdir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
      if (e->d_name[0] != '.') {
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(tmpdir);
  return 0;
}

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", tmpdir, name); }

static void write_raw(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

static unsigned char *read_raw(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static unsigned char buf[1 << 16];
  *n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return buf;
}

/* A v1.0 file exactly as NumPy lays it out: header padded with spaces to a
 * 64-byte boundary, then the data. */
static size_t numpy_file(unsigned char *out, const char *dict, const void *data, size_t nbytes) {
  size_t n = strlen(dict), total = (10 + n + 1 + 63) / 64 * 64, hlen = total - 10;
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = (unsigned char)hlen;
  out[9] = (unsigned char)(hlen >> 8);
  memcpy(out + 10, dict, n);
  memset(out + 10 + n, ' ', hlen - n - 1);
  out[total - 1] = '\n';
  memcpy(out + total, data, nbytes);
  return total + nbytes;
}

static const float arange6[6] = {0, 1, 2, 3, 4, 5};
static const char arange6_dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

static void expect_error(shl_status st, shloc_code code, const char *needle) {
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), code);
  if (needle && !strstr(shloc_status_message(st), needle))
    fail_msg("message '%s' lacks '%s'", shloc_status_message(st), needle);
  shloc_status_free(st);
}

/* ---- agreement with NumPy ------------------------------------------------- */

static void test_numpy_layout(void **state) {
  (void)state;
  static const struct {
    const char *descr, *dict;
    int rank;
    int64_t dims[2];
    const void *data;
    size_t nbytes;
  } cases[] = {
      {"<f4", arange6_dict, 2, {2, 3}, arange6, 24},
      {"|b1", "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 1, {3, 0}, "\1\0\1", 3},
      {"<f8", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0, {0, 0},
       "\0\0\0\0\0\0\x04\x40", 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char want[256];
    size_t wn = numpy_file(want, cases[i].dict, cases[i].data, cases[i].nbytes);
    char p[128];
    path_of(p, sizeof p, "layout.npy");
    assert_null(npy_write_file_atomic(p, cases[i].descr, cases[i].dims, cases[i].rank, cases[i].data, cases[i].nbytes));
    size_t gn;
    unsigned char *got = read_raw(p, &gn);
    assert_int_equal(gn, wn);
    assert_memory_equal(got, want, wn);

    npy_array a;
    assert_null(npy_read_mem(want, wn, "mem", &a));
    assert_string_equal(a.descr, cases[i].descr);
    assert_int_equal(a.rank, cases[i].rank);
    for (int d = 0; d < a.rank; d++) assert_int_equal(a.dims[d], cases[i].dims[d]);
    assert_int_equal(a.nbytes, cases[i].nbytes);
    assert_memory_equal(a.data, cases[i].data, a.nbytes);
    npy_array_free(&a);
  }
}

static void test_header_variants(void **state) {
  (void)state;
  unsigned char buf[512];
  /* Spacing and key order NumPy's own reader accepts, Python 2 'L' suffixes. */
  static const char *dicts[] = {
      "{'shape' : (2, 3), 'fortran_order':False, \"descr\": '<f4'}",
      "{'descr':'<f4','fortran_order':False,'shape':(2L,3L),}",
      "{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }",
  };
  for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
    size_t n = numpy_file(buf, dicts[i], arange6, 24);
    npy_array a;
    assert_null(npy_read_mem(buf, n, "variant", &a));
    assert_int_equal(a.rank, 2);
    assert_int_equal(a.dims[1], 3);
    npy_array_free(&a);
  }
  /* Versions 2.0 and 3.0 carry a 4-byte header length. */
  for (int major = 2; major <= 3; major++) {
    size_t dn = strlen(arange6_dict), total = (12 + dn + 1 + 63) / 64 * 64, hlen = total - 12;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major, buf[7] = 0;
    buf[8] = (unsigned char)hlen, buf[9] = (unsigned char)(hlen >> 8), buf[10] = 0, buf[11] = 0;
    memcpy(buf + 12, arange6_dict, dn);
    memset(buf + 12 + dn, ' ', hlen - dn - 1);
    buf[total - 1] = '\n';
    memcpy(buf + total, arange6, 24);
    char p[128];
    path_of(p, sizeof p, "v2.npy");
    write_raw(p, buf, total + 24);
    npy_array a;
    assert_null(npy_read_file(p, &a));
    assert_memory_equal(a.data, arange6, 24);
    npy_array_free(&a);
  }
}

static void test_big_endian(void **state) {
  (void)state;
  unsigned char buf[256];
  size_t n = numpy_file(buf, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
                        "\x00\x00\x00\x01\xff\xff\xff\xfe", 8);
  npy_array a;
  assert_null(npy_read_mem(buf, n, "be", &a));
  assert_string_equal(a.descr, "<i4");
  int32_t v[2];
  memcpy(v, a.data, 8);
  assert_int_equal(v[0], 1);
  assert_int_equal(v[1], -2);
  npy_array_free(&a);
  n = numpy_file(buf, "{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", "\x3f\x80\x00\x00\x40\x00\x00\x00",
                 8);
  assert_null(npy_read_mem(buf, n, "be", &a));
  float c[2];
  memcpy(c, a.data, 8);
  assert_true(c[0] == 1.0f && c[1] == 2.0f);
  npy_array_free(&a);
}

/* ---- every element type --------------------------------------------------- */

static void test_roundtrip_all_dtypes(void **state) {
  (void)state;
  for (int t = DT_INVALID + 1; t < DT_COUNT; t++) {
    const char *descr = npy_descr_for((shl_dtype)t);
    if (t == DT_QUANT) {
      assert_null(descr);
      continue;
    }
    assert_non_null(descr);
    assert_true(npy_descr_accepts(descr, (shl_dtype)t));
    size_t item = dtype_bytes((shl_dtype)t);
    static const int64_t shapes[][3] = {{2, 3, 1}, {0, 4, 1}, {1, 1, 1}};
    static const int ranks[] = {2, 2, 0};
    for (int s = 0; s < 3; s++) {
      size_t count = (size_t)(shapes[s][0] * shapes[s][1]);
      if (ranks[s] == 0) count = 1;
      unsigned char data[6 * 16];
      for (size_t i = 0; i < count * item; i++) data[i] = (unsigned char)(i * 37 + (size_t)t);
      char p[128];
      path_of(p, sizeof p, "rt.npy");
      assert_null(npy_write_file_atomic(p, descr, shapes[s], ranks[s], data, count * item));
      npy_array a;
      assert_null(npy_read_file(p, &a));
      assert_string_equal(a.descr, descr);
      assert_int_equal(a.itemsize, item);
      assert_int_equal(a.rank, ranks[s]);
      for (int d = 0; d < a.rank; d++) assert_int_equal(a.dims[d], shapes[s][d]);
      assert_int_equal(a.nbytes, count * item);
      if (count) assert_memory_equal(a.data, data, count * item);
      npy_array_free(&a);
    }
  }
  /* No temporary files are left next to the output. */
  DIR *d = opendir(tmpdir);
  struct dirent *e;
  while ((e = readdir(d))) assert_null(strstr(e->d_name, ".tmp."));
  closedir(d);
}

static void test_descr_mapping(void **state) {
  (void)state;
  assert_string_equal(npy_descr_for(DT_I1), "|b1");
  assert_string_equal(npy_descr_for(DT_I4), "|i1");
  assert_string_equal(npy_descr_for(DT_UI2), "|u1");
  assert_string_equal(npy_descr_for(DT_UI64), "<u8");
  assert_string_equal(npy_descr_for(DT_F16), "<f2");
  assert_string_equal(npy_descr_for(DT_BF16), "<V2");
  assert_string_equal(npy_descr_for(DT_F8E4M3FN), "|V1");
  assert_string_equal(npy_descr_for(DT_F4E2M1FN), "|V1");
  assert_string_equal(npy_descr_for(DT_C128), "<c16");
  assert_true(npy_descr_accepts("|V1", DT_F8E5M2FNUZ));
  assert_true(npy_descr_accepts("<u2", DT_BF16));
  assert_true(npy_descr_accepts("|V2", DT_BF16));
  assert_false(npy_descr_accepts("<f2", DT_BF16));
  assert_true(npy_descr_accepts("<u4", DT_I32));
  assert_true(npy_descr_accepts("<f4", DT_TF32));
  assert_true(npy_descr_accepts("<i1", DT_I4));
  assert_false(npy_descr_accepts("<f4", DT_I32));
  assert_false(npy_descr_accepts("<i8", DT_I32));
  assert_false(npy_descr_accepts("<f8", DT_C64));
  assert_false(npy_descr_accepts("junk", DT_F32));
  assert_int_equal(npy_dtype_for_descr("<i1"), DT_I8);
  assert_int_equal(npy_dtype_for_descr("<V2"), DT_BF16);
  assert_int_equal(npy_dtype_for_descr(">f8"), DT_F64);
  assert_int_equal(npy_dtype_for_descr("|V1"), DT_INVALID);
  assert_int_equal(npy_dtype_for_descr("<U4"), DT_INVALID);
}

/* ---- bad input ------------------------------------------------------------ */

static void test_truncated(void **state) {
  (void)state;
  unsigned char buf[256];
  size_t n = numpy_file(buf, arange6_dict, arange6, 24);
  for (size_t len = 0; len < n; len++) {
    npy_array a;
    shl_status st = npy_read_mem(buf, len, "cut.npy", &a);
    assert_non_null(st);
    assert_null(a.data);
    assert_non_null(strstr(shloc_status_message(st), "cut.npy"));
    shloc_status_free(st);
  }
  char p[128];
  path_of(p, sizeof p, "cut.npy");
  write_raw(p, buf, n - 1);
  npy_array a;
  expect_error(npy_read_file(p, &a), SHLOC_ERR_PARSE, "describes 24");
  write_raw(p, buf, 60);
  expect_error(npy_read_file(p, &a), SHLOC_ERR_PARSE, "truncated");
  write_raw(p, buf, 3);
  expect_error(npy_read_file(p, &a), SHLOC_ERR_PARSE, "truncated");
  /* Extra bytes after the data are a mismatch too. */
  unsigned char longer[256];
  memcpy(longer, buf, n);
  longer[n] = 0;
  expect_error(npy_read_mem(longer, n + 1, "long", &a), SHLOC_ERR_PARSE, "25 bytes");
}

static void test_bad_headers(void **state) {
  (void)state;
  static const struct {
    const char *dict;
    shloc_code code;
    const char *needle;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", SHLOC_ERR_UNSUPPORTED, "Fortran"},
      {"{'descr': '<f4', 'shape': (2, 3), }", SHLOC_ERR_PARSE, "lacks"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", SHLOC_ERR_PARSE, "'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_PARSE, "repeated"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_UNSUPPORTED, "structured"},
      {"{'descr': '<f3', 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_UNSUPPORTED, "'<f3'"},
      {"{'descr': '<U4', 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_UNSUPPORTED, "dtype"},
      {"{'descr': 'O', 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_UNSUPPORTED, "dtype"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}", SHLOC_ERR_PARSE, "fortran_order"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", SHLOC_ERR_PARSE, "dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", SHLOC_ERR_PARSE, "tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", SHLOC_ERR_PARSE, "shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", SHLOC_ERR_PARSE, "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904)}",
       SHLOC_ERR_PARSE, "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807,)}", SHLOC_ERR_PARSE, "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", SHLOC_ERR_PARSE, "trailing"},
      {"{'descr': '<f4\\n', 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_PARSE, "descr"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}", SHLOC_ERR_UNSUPPORTED, NULL},
      {"['descr', '<f4']", SHLOC_ERR_PARSE, "not a dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", SHLOC_ERR_PARSE, NULL},
      {"", SHLOC_ERR_PARSE, NULL},
  };
  unsigned char buf[1024];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = numpy_file(buf, cases[i].dict, arange6, 24);
    char p[128];
    path_of(p, sizeof p, "bad_header.npy");
    write_raw(p, buf, n);
    npy_array a;
    shl_status st = npy_read_file(p, &a);
    if (!st) fail_msg("accepted header %s", cases[i].dict);
    assert_null(a.data);
    assert_non_null(strstr(shloc_status_message(st), "bad_header.npy")); /* names the file */
    expect_error(st, cases[i].code, cases[i].needle);
  }
  /* A rank beyond the limit. */
  char dict[512] = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < NPY_MAX_RANK + 1; i++) strcat(dict, "1, ");
  strcat(dict, "), }");
  size_t n = numpy_file(buf, dict, arange6, 4);
  npy_array a;
  expect_error(npy_read_mem(buf, n, "rank", &a), SHLOC_ERR_LIMIT, "dimensions");
}

static void test_bad_prefix(void **state) {
  (void)state;
  unsigned char buf[256];
  size_t n = numpy_file(buf, arange6_dict, arange6, 24);
  npy_array a;
  buf[1] = 'X';
  expect_error(npy_read_mem(buf, n, "magic", &a), SHLOC_ERR_PARSE, "not an npy");
  buf[1] = 'N';
  buf[6] = 4;
  expect_error(npy_read_mem(buf, n, "ver", &a), SHLOC_ERR_UNSUPPORTED, "version 4.0");
  buf[6] = 1, buf[7] = 1;
  expect_error(npy_read_mem(buf, n, "ver", &a), SHLOC_ERR_UNSUPPORTED, "1.1");
  buf[7] = 0, buf[8] = 0xFF, buf[9] = 0xFF; /* header longer than the file */
  expect_error(npy_read_mem(buf, n, "hlen", &a), SHLOC_ERR_PARSE, "truncated");
  char p[128];
  path_of(p, sizeof p, "hlen.npy");
  write_raw(p, buf, n);
  expect_error(npy_read_file(p, &a), SHLOC_ERR_PARSE, "truncated");
  buf[6] = 2, buf[8] = 0, buf[9] = 0, buf[10] = 0, buf[11] = 0x40; /* 1 GiB header claim */
  expect_error(npy_read_mem(buf, n, "huge", &a), SHLOC_ERR_LIMIT, "header too large");
  path_of(p, sizeof p, "missing.npy");
  expect_error(npy_read_file(p, &a), SHLOC_ERR_IO, "missing.npy");
  expect_error(npy_read_file(tmpdir, &a), SHLOC_ERR_IO, NULL);
}

/* Random corruption of a valid file never crashes and never half-fills out. */
static void test_mutations(void **state) {
  (void)state;
  unsigned char good[256], buf[256];
  size_t n = numpy_file(good, arange6_dict, arange6, 24);
  uint32_t x = 2463534242u;
  for (int iter = 0; iter < 20000; iter++) {
    memcpy(buf, good, n);
    int flips = 1 + iter % 4;
    for (int k = 0; k < flips; k++) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      buf[(x >> 8) % n] = (unsigned char)x;
    }
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    size_t len = (x & 7) ? n : x % (n + 1);
    npy_array a;
    shl_status st = npy_read_mem(buf, len, "m", &a);
    if (st) {
      assert_null(a.data);
      shloc_status_free(st);
    } else {
      assert_true(a.nbytes <= len);
      npy_array_free(&a);
    }
  }
}

static void test_write_errors(void **state) {
  (void)state;
  char p[128];
  path_of(p, sizeof p, "w.npy");
  int64_t dims[2] = {2, 3};
  expect_error(npy_write_file_atomic(p, "<f4", dims, 2, arange6, 20), SHLOC_ERR_INVALID_ARG, "do not match");
  expect_error(npy_write_file_atomic(p, "<f3", dims, 2, arange6, 24), SHLOC_ERR_INVALID_ARG, "dtype");
  expect_error(npy_write_file_atomic(p, ">f4", dims, 2, arange6, 24), SHLOC_ERR_INVALID_ARG, "dtype");
  int64_t neg[2] = {2, -3};
  expect_error(npy_write_file_atomic(p, "<f4", neg, 2, arange6, 24), SHLOC_ERR_INVALID_ARG, "negative");
  int64_t huge[2] = {INT64_MAX, INT64_MAX};
  expect_error(npy_write_file_atomic(p, "<f4", huge, 2, arange6, 24), SHLOC_ERR_INVALID_ARG, "do not match");
  expect_error(npy_write_file_atomic(p, "<f4", dims, NPY_MAX_RANK + 1, arange6, 24), SHLOC_ERR_INVALID_ARG, "rank");
  int64_t empty[2] = {0, 3};
  expect_error(npy_write_file_atomic(p, "<f4", empty, 2, arange6, 24), SHLOC_ERR_INVALID_ARG, "empty");
  assert_int_equal(access(p, F_OK), -1); /* nothing was written */
  path_of(p, sizeof p, "no/such/dir/w.npy");
  expect_error(npy_write_file_atomic(p, "<f4", dims, 2, arange6, 24), SHLOC_ERR_IO, "w.npy");
  /* Overwriting an existing file replaces it whole. */
  path_of(p, sizeof p, "w.npy");
  assert_null(npy_write_file_atomic(p, "<f4", dims, 2, arange6, 24));
  int64_t one = 1;
  assert_null(npy_write_file_atomic(p, "<f4", &one, 1, arange6, 4));
  npy_array a;
  assert_null(npy_read_file(p, &a));
  assert_int_equal(a.nbytes, 4);
  npy_array_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_layout),  cmocka_unit_test(test_header_variants),
      cmocka_unit_test(test_big_endian),    cmocka_unit_test(test_roundtrip_all_dtypes),
      cmocka_unit_test(test_descr_mapping), cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_bad_headers),   cmocka_unit_test(test_bad_prefix),
      cmocka_unit_test(test_mutations),     cmocka_unit_test(test_write_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
