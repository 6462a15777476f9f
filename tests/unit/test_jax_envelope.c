/* jax.export envelopes: every field of every serialization version decodes
 * to what the test's own encoder (jax_envelope_build.h, written from the
 * schema) put there; malformed envelopes (truncated at every byte, bytes
 * corrupted, bad offsets, huge counts, shared subtrees) give errors, never
 * crashes or unbounded work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/jax_export.h"
#include "ok.h"
#include "jax_envelope_build.h"

/* @main as JAX wraps it for two platforms and one ordered effect: platform
 * index, token, then the kept arrays (inputs 0 and 2 of 3). */
static const char module_text[] =
    "func.func public @main(%arg0: tensor<i32>, %arg1: !stablehlo.token, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>)"
    " -> (!stablehlo.token, tensor<2xf32>) {\n"
    "  %0 = stablehlo.add %arg2, %arg3 : tensor<2xf32>\n"
    "  return %arg1, %0 : !stablehlo.token, tensor<2xf32>\n"
    "}\n";

static tb_export sample(unsigned version) {
  tb_export e = {
      .version = version,
      .fun_name = "fun",
      .n_in = 3,
      .n_out = 1,
      .in = {{JT_F32, 1, {"2"}}, {JT_I32, 2, {"b", "2*b + 1"}}, {JT_F32, 1, {"2"}}},
      .out = {{JT_F32, 1, {"2"}}},
      .n_platforms = 2,
      .platforms = {"cpu", "cuda"},
      .n_ordered = 1,
      .ordered = {"<class 'jax._src.debugging.OrderedDebugEffect'>"},
      .n_unordered = 1,
      .unordered = {"<class 'jax._src.debugging.DebugEffect'>"},
      .check_platform = true,
      .check_custom_call = "my_target",
      .ccv = 9,
      .n_kept = 2,
      .kept = {0, 2},
      .global_constants = true,
      .nr_devices = 1,
      .module = module_text,
      .module_len = sizeof module_text - 1,
      .vjp = version >= 2,
      .jax_version = "0.7.3",
  };
  if (version >= 4) e.in[1].dtype = JT_KEY_FRY;
  else if (version >= 2) e.in[1].dtype = JT_F0;
  return e;
}

static void check_aval(const shloc_jax_aval *a, const char *dtype, size_t rank, const char *d0, const char *d1,
                       unsigned version) {
  assert_string_equal(a->dtype, dtype);
  assert_int_equal(a->rank, rank);
  if (rank > 0) assert_string_equal(a->dims[0], d0);
  if (rank > 1) assert_string_equal(a->dims[1], d1);
  if (version >= 5) assert_string_equal(a->memory_space, "device");
  else assert_null(a->memory_space);
}

/* The named sharding of input 0 / output 0, as JAX's repr would show it. */
static const char *named_text(unsigned v) {
  if (v >= 11)
    return "NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,), device_kind='cpu', platform='cpu'), "
           "spec=P('x', None))";
  if (v >= 8) return "NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,), device_kind='cpu'), spec=P('x', None))";
  return "NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,)), spec=P('x', None))";
}

static void check_fields(const shloc_jax_export *e, unsigned v, size_t env_len, bool is_vjp) {
  tb_export want = sample(v);
  assert_string_equal(e->function_name, "fun");
  assert_int_equal(e->serialization_version, tb_stored_version(v));
  if (v >= 12 && !is_vjp) assert_string_equal(e->jax_version, "0.7.3");
  else if (v < 12) assert_null(e->jax_version);
  assert_string_equal(e->in_tree, "((*, *, *), {})");
  assert_string_equal(e->out_tree, v >= 3 ? "{'y': *}" : "*");
  assert_int_equal(e->n_in, 3);
  assert_int_equal(e->n_out, 1);
  check_aval(&e->in_avals[0], "f32", 1, "2", NULL, v);
  check_aval(&e->in_avals[1], v >= 4 ? "key<fry>" : v >= 2 ? "f0" : "i32", 2, "b", "2*b + 1", v);
  check_aval(&e->in_avals[2], "f32", 1, "2", NULL, v);
  check_aval(&e->out_avals[0], "f32", 1, "2", NULL, v);
  assert_int_equal(e->n_in_shardings, 3);
  assert_int_equal(e->n_out_shardings, 1);
  const shloc_jax_sharding *s0 = &e->in_shardings[0];
  if (v >= 6) {
    assert_int_equal(s0->kind, SHLOC_JAX_SHARDING_NAMED);
    assert_string_equal(s0->text, named_text(v));
    assert_string_equal(e->out_shardings[0].text, named_text(v));
  } else {
    assert_int_equal(s0->kind, SHLOC_JAX_SHARDING_HLO);
    assert_int_equal(s0->hlo_proto_len, sizeof tb_proto_maximal);
    assert_string_equal(s0->text, "{maximal device=0}");
    assert_memory_equal(s0->hlo_proto, tb_proto_maximal, sizeof tb_proto_maximal);
  }
  assert_int_equal(e->in_shardings[1].kind, SHLOC_JAX_SHARDING_UNSPECIFIED);
  assert_string_equal(e->in_shardings[2].text, "unspecified");
  assert_int_equal(e->n_platforms, 2);
  assert_string_equal(e->platforms[0], "cpu");
  assert_string_equal(e->platforms[1], "cuda");
  assert_int_equal(e->n_ordered_effects, 1);
  assert_string_equal(e->ordered_effects[0], want.ordered[0]);
  assert_int_equal(e->n_unordered_effects, 1);
  assert_string_equal(e->unordered_effects[0], want.unordered[0]);
  assert_int_equal(e->n_disabled_checks, 2);
  assert_string_equal(e->disabled_checks[0], "platform");
  assert_string_equal(e->disabled_checks[1], "custom_call:my_target");
  assert_int_equal(e->calling_convention_version, 9);
  assert_int_equal(e->n_kept, 2);
  assert_int_equal(e->module_kept_var_idx[0], 0);
  assert_int_equal(e->module_kept_var_idx[1], 2);
  assert_true(e->uses_global_constants);
  assert_int_equal(e->nr_devices, 1);
  assert_int_equal(e->module_len, sizeof module_text - 1);
  assert_true(e->module_offset + e->module_len <= env_len);
  assert_int_equal(shloc_jax_export_num_platform_args(e), 1);
  assert_int_equal(shloc_jax_export_num_token_args(e), 1);
}

static const unsigned versions[] = {1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12};

static void test_every_version(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
    unsigned v = versions[k];
    tb_export spec = sample(v);
    size_t len;
    uint8_t *env = tb_envelope(&spec, &len);
    shloc_jax_export *e;
    OK(shloc_jax_export_read(env, len, "env", &e));
    check_fields(e, v, len, false);
    assert_memory_equal(env + e->module_offset, module_text, e->module_len);
    /* The oldest schema with every field used: dtypes f0 (2), key<fry> (4),
     * memory_space (5), named shardings (6), devices (8), indices (10),
     * device platform (11), jax_version (12). */
    unsigned schema = v >= 12 ? 12 : v >= 11 ? 11 : v >= 10 ? 10 : v >= 8 ? 8 : v >= 6 ? 6 : v >= 4 ? v : v >= 2 ? 2 : 1;
    assert_int_equal(e->schema_version, schema);
    if (v >= 2) {
      assert_non_null(e->vjp);
      check_fields(e->vjp, v, len, true);
      assert_int_equal(e->vjp->schema_version, schema);
      assert_null(e->vjp->vjp);
    } else {
      assert_null(e->vjp);
    }
    shloc_jax_export_free(e);

    /* Through the module: the embedded text is parsed and verified. */
    shloc_context *ctx = shloc_context_create();
    shloc_module *m;
    OK(shloc_module_parse(ctx, "env", (const char *)env, len, 1, &m));
    OK(shloc_module_verify(m));
    assert_non_null(shloc_module_jax_export(m));
    check_fields(shloc_module_jax_export(m), v, len, false);
    shloc_module_destroy(m);
    shloc_context_destroy(ctx);
    free(env);
  }
}

static void test_text_has_none(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  OK(shloc_module_parse(ctx, "t.mlir", module_text, sizeof module_text - 1, 1, &m));
  assert_null(shloc_module_jax_export(m));
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* Parses data as a module (and, when `as_envelope`, decodes it as an
 * envelope); each must fail cleanly. */
static void expect_error_as(const uint8_t *data, size_t len, const char *needle, bool as_envelope) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "bad", (const char *)data, len, 1, &m);
  if (!st) fail_msg("parsing %zu bytes succeeded", len);
  if (needle && !strstr(shloc_status_message(st), needle))
    fail_msg("error '%s' does not mention '%s'", shloc_status_message(st), needle);
  assert_null(m);
  shloc_status_free(st);
  shloc_context_destroy(ctx);
  if (!as_envelope) return;
  shloc_jax_export *e = NULL;
  st = shloc_jax_export_read(data, len, "bad", &e);
  assert_non_null(st);
  assert_null(e);
  shloc_status_free(st);
}

static void expect_error(const uint8_t *data, size_t len, const char *needle) { expect_error_as(data, len, needle, true); }

static void test_truncated_everywhere(void **state) {
  (void)state;
  tb_export spec = sample(12);
  size_t len;
  uint8_t *env = tb_envelope(&spec, &len);
  for (size_t n = 0; n < len; n++) {
    uint8_t *cut = malloc(n ? n : 1); /* exact size: ASan sees any overread */
    memcpy(cut, env, n);
    shloc_jax_export *e = NULL;
    shloc_status st = shloc_jax_export_read(cut, n, "cut", &e);
    if (!st) fail_msg("a %zu-byte prefix of %zu decoded", n, len);
    shloc_status_free(st);
    free(cut);
  }
  free(env);
}

/* Every byte replaced by a few values: decoding may succeed or fail, but
 * stays in bounds (run under ASan) and finishes. */
static void test_corrupted_bytes(void **state) {
  (void)state;
  static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  tb_export spec = sample(12);
  size_t len;
  uint8_t *env = tb_envelope(&spec, &len);
  uint8_t *copy = malloc(len);
  for (size_t i = 0; i < len; i++)
    for (size_t k = 0; k < sizeof values; k++) {
      memcpy(copy, env, len);
      copy[i] = values[k];
      shloc_jax_export *e = NULL;
      shloc_status st = shloc_jax_export_read(copy, len, "x", &e);
      shloc_status_free(st);
      shloc_jax_export_free(e);
    }
  free(copy);
  free(env);
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void test_bad_offsets_and_counts(void **state) {
  (void)state;
  tb_export spec = sample(9);
  size_t len;
  uint8_t *env = tb_envelope(&spec, &len);
  uint8_t *b = malloc(len);
  uint32_t root = rd32(env);

  memcpy(b, env, len); /* root offset past the end */
  wr32(b, (uint32_t)len + 4);
  expect_error(b, len, "out of bounds");

  memcpy(b, env, len); /* vtable before the buffer */
  wr32(b + root, root + 100);
  expect_error(b, len, "vtable");

  memcpy(b, env, len); /* vtable claims more bytes than exist */
  uint32_t vt = root - rd32(b + root);
  b[vt] = 0xfe, b[vt + 1] = 0xff;
  expect_error(b, len, "does not fit");

  /* A huge count for mlir_module_serialized: refused before any allocation. */
  memcpy(b, env, len);
  uint32_t field = root + (uint32_t)(env[vt + 4 + 2 * TB_MODULE] | env[vt + 5 + 2 * TB_MODULE] << 8);
  uint32_t vec = field + rd32(b + field);
  wr32(b + vec, 0xfffffff0u);
  expect_error(b, len, "does not fit");

  /* The same for a vector of tables (platforms). */
  memcpy(b, env, len);
  field = root + (uint32_t)(env[vt + 4 + 2 * TB_PLATFORMS] | env[vt + 5 + 2 * TB_PLATFORMS] << 8);
  vec = field + rd32(b + field);
  wr32(b + vec, 0x40000000u);
  expect_error(b, len, "does not fit");

  /* A kept index beyond the inputs. */
  memcpy(b, env, len);
  field = root + (uint32_t)(env[vt + 4 + 2 * TB_KEPT] | env[vt + 5 + 2 * TB_KEPT] << 8);
  vec = field + rd32(b + field);
  b[vec + 4] = 7;
  expect_error(b, len, "module_kept_var_idx");

  /* Too short to be anything, but binary. */
  static const uint8_t tiny[] = {4, 0, 0, 0};
  expect_error(tiny, sizeof tiny, "too short");
  free(b);
  free(env);
}

/* A pytree whose nodes list the same child twice, 60 levels deep: 2^60
 * visits if followed naively.  The visit budget stops it. */
static void test_shared_subtrees(void **state) {
  (void)state;
  fbb b;
  fbb_init(&b);
  fbb_start(&b);
  fbb_add_scalar(&b, 0, 0, 1);
  uint32_t node = fbb_end(&b);
  for (int d = 0; d < 60; d++) {
    uint32_t kids[2] = {node, node};
    uint32_t v = fbb_refs(&b, kids, 2);
    fbb_start(&b);
    fbb_add_scalar(&b, 0, 2, 1);
    fbb_add_ref(&b, 1, v);
    node = fbb_end(&b);
  }
  uint32_t mod = fbb_bytes(&b, module_text, sizeof module_text - 1);
  fbb_start(&b);
  fbb_add_ref(&b, TB_IN_TREE, node);
  fbb_add_ref(&b, TB_MODULE, mod);
  uint32_t root = fbb_end(&b);
  size_t len;
  const uint8_t *p = fbb_finish(&b, root, &len);
  expect_error(p, len, "");
  fbb_free(&b);
}

/* An envelope inside an envelope is not followed. */
static void test_nested_envelope(void **state) {
  (void)state;
  tb_export inner = sample(12);
  size_t n1;
  uint8_t *e1 = tb_envelope(&inner, &n1);
  tb_export outer = sample(12);
  outer.module = (const char *)e1;
  outer.module_len = n1;
  size_t n2;
  uint8_t *e2 = tb_envelope(&outer, &n2);
  expect_error_as(e2, n2, "mlir_module_serialized", false);
  free(e1);
  free(e2);
}

/* OpSharding protos (hand-encoded from xla_data.proto field numbers) shown
 * as XLA prints HloShardings. */
static void test_hlo_sharding_text(void **state) {
  (void)state;
  static const struct {
    uint8_t proto[24];
    size_t len;
    const char *text;
  } cases[] = {
      {{0}, 0, "{replicated}"},
      {{0x08, 0x01, 0x22, 0x01, 0x03}, 5, "{maximal device=3}"},
      {{0x08, 0x03, 0x1a, 0x02, 0x02, 0x01, 0x22, 0x02, 0x00, 0x01}, 10, "{devices=[2,1]0,1}"},
      {{0x08, 0x03, 0x1a, 0x01, 0x02, 0x20, 0x00, 0x20, 0x01}, 9, "{devices=[2]0,1}"},
      {{0x08, 0x03, 0x1a, 0x02, 0x04, 0x02, 0x4a, 0x02, 0x02, 0x04, 0x52, 0x02, 0x01, 0x00}, 14,
       "{devices=[4,2]<=[2,4]T(1,0)}"},
      {{0x08, 0x03, 0x1a, 0x03, 0x02, 0x01, 0x02, 0x22, 0x04, 0x00, 0x01, 0x02, 0x03, 0x30, 0x01}, 15,
       "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"},
      {{0x08, 0x02, 0x2a, 0x00, 0x2a, 0x05, 0x08, 0x01, 0x22, 0x01, 0x00}, 11, "{{replicated}, {maximal device=0}}"},
      {{0x08, 0x04}, 2, "{manual}"},
      {{0x08}, 1, "{proto: 1 bytes}"},
  };
  enum { N = sizeof cases / sizeof cases[0] };
  fbb b;
  fbb_init(&b);
  uint32_t sh[N], av[N];
  for (int i = 0; i < N; i++) {
    uint32_t proto = fbb_bytes(&b, cases[i].proto, cases[i].len);
    fbb_start(&b);
    fbb_add_scalar(&b, 0, 1, 1); /* hlo_sharding */
    fbb_add_ref(&b, 1, proto);
    sh[i] = fbb_end(&b);
    uint32_t shape = fbb_refs(&b, NULL, 0);
    fbb_start(&b);
    fbb_add_ref(&b, 1, shape);
    fbb_add_scalar(&b, 2, JT_F32, 1);
    av[i] = fbb_end(&b);
  }
  uint32_t shardings = fbb_refs(&b, sh, N), avals = fbb_refs(&b, av, N);
  uint32_t mod = fbb_bytes(&b, module_text, sizeof module_text - 1);
  fbb_start(&b);
  fbb_add_ref(&b, TB_IN_AVALS, avals);
  fbb_add_ref(&b, TB_IN_SHARDINGS, shardings);
  fbb_add_ref(&b, TB_MODULE, mod);
  uint32_t root = fbb_end(&b);
  size_t len;
  const uint8_t *p = fbb_finish(&b, root, &len);
  shloc_jax_export *e;
  OK(shloc_jax_export_read(p, len, "shardings", &e));
  assert_int_equal(e->n_in_shardings, N);
  for (int i = 0; i < N; i++) {
    assert_int_equal(e->in_shardings[i].kind, SHLOC_JAX_SHARDING_HLO);
    assert_int_equal(e->in_shardings[i].hlo_proto_len, cases[i].len);
    assert_string_equal(e->in_shardings[i].text, cases[i].text);
  }
  shloc_jax_export_free(e);
  fbb_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_version),     cmocka_unit_test(test_text_has_none),
      cmocka_unit_test(test_truncated_everywhere), cmocka_unit_test(test_corrupted_bytes),
      cmocka_unit_test(test_bad_offsets_and_counts), cmocka_unit_test(test_shared_subtrees),
      cmocka_unit_test(test_nested_envelope), cmocka_unit_test(test_hlo_sharding_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
