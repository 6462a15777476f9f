/* shloc builder API: construct StableHLO modules in memory, for frontends
 * (language bindings, code generators) that build programs instead of text.
 *
 * Model.  A module (shloc_module_create) holds functions (shloc_func_create);
 * each function has a body block.  shloc_build_* calls append one operation
 * at the end of a block and hand back its results.  Ops with regions (reduce,
 * while, if, sort, ...) take regions built beforehand with
 * shloc_region_create: a region is filled like a function body, ends with
 * shloc_build_return, and is moved into the op that takes it.
 *
 * Everything a builder call creates (types, attributes, values, ops, names,
 * attribute text) lives in the module's arena and is freed by
 * shloc_module_destroy; nothing is interned process-wide.  Handles are valid
 * until then.
 *
 * Every op is checked completely before it is linked into its block: operand
 * visibility, attribute names and values, inferred or given result types, and
 * the op's own verifier rule (the same one shloc_module_verify runs on parsed
 * modules).  A failing call returns a status naming the offending operand,
 * attribute or pair and leaves the module's IR exactly as it was (it may
 * leave unreachable bytes in the arena).  A finished module is verified,
 * printed and executed like a parsed one.
 *
 * Attribute text.  Wherever an attribute is given as text (pairs of
 * {name, value}), the name must be a valid MLIR attribute name -- a bare
 * identifier ([A-Za-z_][A-Za-z0-9_$.]*) or a quoted string literal written
 * with its quotes ("\"my name\"") -- and the value must parse as exactly one
 * MLIR attribute ("true", "0.125 : f32", "[1, 2]", "{a = 1}",
 * "#sdy.op_sharding_rule<...>") with nothing after it.  Names may not repeat
 * within one list (after decoding quoted names).  Name and value lengths are
 * bounded by shloc_limits.max_attr_text_bytes, nesting by max_nesting. */
#ifndef SHLOC_BUILDER_H
#define SHLOC_BUILDER_H

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shloc_type shloc_type;     /* immutable, owned by the module */
typedef struct shloc_attr shloc_attr;     /* immutable, owned by the module */
typedef struct shloc_value shloc_value;   /* an SSA value: op result or block argument */
typedef struct shloc_op shloc_op;         /* an operation linked into a block */
typedef struct shloc_block shloc_block;   /* where ops are appended */
typedef struct shloc_region shloc_region; /* a region under construction, not yet owned by an op */
typedef struct shloc_func shloc_func;     /* a func.func */

/* A dynamic dimension ('?') in shloc_type_tensor. */
#define SHLOC_DYN INT64_MIN

/* {name, attribute text}: e.g. {"causal", "true"}, {"softmax_scale", "0.125 : f32"}. */
typedef struct {
  const char *name;
  const char *value;
} shloc_attr_pair;

/* {name, built attribute}. */
typedef struct {
  const char *name;
  const shloc_attr *value;
} shloc_named_attr;

/* ---- modules and functions -------------------------------------------- */

/* An empty module (`module { }`) using |ctx|'s limits; |ctx| must outlive it. */
SHLOC_API shloc_status shloc_module_create(shloc_context *ctx, shloc_module **out_module);

enum {
  SHLOC_FUNC_PRIVATE = 1u << 0, /* sym_visibility = "private" */
};

/* Appends `func.func @|name|(|arg_types|) -> (|result_types|)` to the module.
 * |result_types| NULL means "not declared": the first shloc_func_return sets
 * them from the returned values.  |name| must be new in the module.
 * |flags|: SHLOC_FUNC_*. */
SHLOC_API shloc_status shloc_func_create(shloc_module *m, const char *name, uint32_t n_args,
                                         const shloc_type *const *arg_types, uint32_t n_results,
                                         const shloc_type *const *result_types, unsigned flags,
                                         shloc_func **out_func);
SHLOC_API shloc_block *shloc_func_body(shloc_func *f);
/* Argument |i|, or NULL when out of range. */
SHLOC_API shloc_value *shloc_func_arg(shloc_func *f, uint32_t i);
/* Ends the body with func.return |values|; checks them against declared
 * result types, or declares the function's result types from them. */
SHLOC_API shloc_status shloc_func_return(shloc_func *f, uint32_t n, shloc_value *const *values);

/* ---- types -------------------------------------------------------------- */

/* tensor<|dims| x |element_type|>: |element_type| as MLIR spells it ("f32",
 * "bf16", "i1", "ui8", "complex<f32>", ...); dims >= 0 or SHLOC_DYN. */
SHLOC_API shloc_status shloc_type_tensor(shloc_module *m, const char *element_type, uint32_t rank,
                                         const int64_t *dims, const shloc_type **out);
/* Any type from text: "tensor<2x!quant.uniform<i8:f32, 0.5>>", "!stablehlo.token", "tuple<...>". */
SHLOC_API shloc_status shloc_type_parse(shloc_module *m, const char *text, size_t len, const shloc_type **out);
SHLOC_API const shloc_type *shloc_value_type(const shloc_value *v);
/* Rank of a ranked tensor type; -1 for unranked tensors and other types. */
SHLOC_API int32_t shloc_type_rank(const shloc_type *t);
/* Dimension |i| (SHLOC_DYN for '?'); 0 when out of range. */
SHLOC_API int64_t shloc_type_dim(const shloc_type *t, uint32_t i);
/* Element type name ("f32"), or NULL for non-tensor types. */
SHLOC_API const char *shloc_type_element(const shloc_type *t);

/* ---- attributes ------------------------------------------------------- */
/* Typed attribute builders, e.g. for a custom call's backend_config. */

SHLOC_API shloc_status shloc_attr_bool(shloc_module *m, bool v, const shloc_attr **out);
/* `|v| : |type|` for an integer type ("i8".."i64", "si*", "ui*", "i1",
 * "index"); |v| must fit the type (unsigned types: 0 <= v). */
SHLOC_API shloc_status shloc_attr_int(shloc_module *m, const char *type, int64_t v, const shloc_attr **out);
/* Unsigned variant covering all of ui64. */
SHLOC_API shloc_status shloc_attr_uint(shloc_module *m, const char *type, uint64_t v, const shloc_attr **out);
/* `|v| : |type|` for a float type ("f16", "bf16", "f32", "f64", f8 types),
 * rounded to nearest even. */
SHLOC_API shloc_status shloc_attr_float(shloc_module *m, const char *type, double v, const shloc_attr **out);
/* A string attribute: |len| bytes (any bytes). */
SHLOC_API shloc_status shloc_attr_string(shloc_module *m, const char *s, size_t len, const shloc_attr **out);
/* `[a, b, ...]` */
SHLOC_API shloc_status shloc_attr_array(shloc_module *m, size_t n, const shloc_attr *const *items,
                                        const shloc_attr **out);
/* `array<|type|: ...>` from |n| elements of |type| ("i8".."i64", "f32", "f64",
 * ...) at their natural C width. */
SHLOC_API shloc_status shloc_attr_dense_array(shloc_module *m, const char *type, size_t n, const void *data,
                                              const shloc_attr **out);
/* `dense<...> : |tensor_type|` from row-major host data (|nbytes| = the
 * type's size; i1 and sub-byte types take one byte per element). */
SHLOC_API shloc_status shloc_attr_dense(shloc_module *m, const shloc_type *tensor_type, const void *data,
                                        size_t nbytes, const shloc_attr **out);
/* `{name = value, ...}`: names validated as above, no duplicates; a NULL value is a unit entry. */
SHLOC_API shloc_status shloc_attr_dict(shloc_module *m, size_t n, const shloc_named_attr *items,
                                       const shloc_attr **out);
/* Exactly one attribute from text (see "Attribute text" above). */
SHLOC_API shloc_status shloc_attr_parse(shloc_module *m, const char *text, size_t len, const shloc_attr **out);

/* ---- regions ------------------------------------------------------------ */

/* A single-block region with arguments of |arg_types|, for an op that will be
 * built in block |parent| (values of |parent| and its enclosing blocks are
 * visible inside).  Fill shloc_region_body with ops, end it with
 * shloc_build_return, then pass the region to the op; it can belong to one op
 * only. */
SHLOC_API shloc_status shloc_region_create(shloc_block *parent, uint32_t n_args, const shloc_type *const *arg_types,
                                           shloc_region **out_region);
SHLOC_API shloc_block *shloc_region_body(shloc_region *r);
SHLOC_API shloc_value *shloc_region_arg(shloc_region *r, uint32_t i);
/* stablehlo.return |values|: the terminator of a region body. */
SHLOC_API shloc_status shloc_build_return(shloc_block *b, uint32_t n, shloc_value *const *values);

/* ---- any op ------------------------------------------------------------- */

typedef struct {
  const char *name; /* "stablehlo.add", "func.call", "chlo.erf", or any "dialect.op" */
  uint32_t n_operands;
  shloc_value *const *operands;
  /* Result types; with n_results == 0 they are inferred when the op has an
   * inference rule (see README), otherwise the op has no results. */
  uint32_t n_results;
  const shloc_type *const *result_types;
  uint32_t n_attrs; /* attributes as text */
  const shloc_attr_pair *attrs;
  uint32_t n_typed_attrs; /* attributes built with shloc_attr_* */
  const shloc_named_attr *typed_attrs;
  uint32_t n_regions; /* moved into the op on success */
  shloc_region *const *regions;
} shloc_op_spec;

/* Appends any op (everything in the op table, and unknown `dialect.op`s). */
SHLOC_API shloc_status shloc_build_op(shloc_block *b, const shloc_op_spec *spec, shloc_op **out_op);
SHLOC_API uint32_t shloc_op_num_results(const shloc_op *op);
/* Result |i|, or NULL when out of range. */
SHLOC_API shloc_value *shloc_op_result(shloc_op *op, uint32_t i);

/* ---- common ops, result types inferred ---------------------------------- */

/* Elementwise ops by name ("stablehlo.exponential", "stablehlo.add",
 * "chlo.erf", "stablehlo.clamp", ...); result type from the operands. */
SHLOC_API shloc_status shloc_build_elementwise(shloc_block *b, const char *name, uint32_t n,
                                               shloc_value *const *operands, shloc_value **out);
SHLOC_API shloc_status shloc_build_unary(shloc_block *b, const char *name, shloc_value *x, shloc_value **out);
SHLOC_API shloc_status shloc_build_binary(shloc_block *b, const char *name, shloc_value *lhs, shloc_value *rhs,
                                          shloc_value **out);
/* stablehlo.constant from row-major host data (as shloc_attr_dense). */
SHLOC_API shloc_status shloc_build_constant(shloc_block *b, const shloc_type *type, const void *data, size_t nbytes,
                                            shloc_value **out);
/* A constant of |type| with every element |v| (converted to the element type). */
SHLOC_API shloc_status shloc_build_constant_splat(shloc_block *b, const shloc_type *type, double v,
                                                  shloc_value **out);
/* stablehlo.convert to |element_type|, same shape. */
SHLOC_API shloc_status shloc_build_convert(shloc_block *b, shloc_value *x, const char *element_type,
                                           shloc_value **out);
/* stablehlo.broadcast_in_dim to shape |dims| (rank |rank|); |broadcast_dims|
 * has one entry per dimension of |x|. */
SHLOC_API shloc_status shloc_build_broadcast_in_dim(shloc_block *b, shloc_value *x, uint32_t rank,
                                                    const int64_t *dims, const int64_t *broadcast_dims,
                                                    shloc_value **out);
SHLOC_API shloc_status shloc_build_reshape(shloc_block *b, shloc_value *x, uint32_t rank, const int64_t *dims,
                                           shloc_value **out);
/* |permutation| has one entry per dimension of |x|. */
SHLOC_API shloc_status shloc_build_transpose(shloc_block *b, shloc_value *x, const int64_t *permutation,
                                             shloc_value **out);

typedef struct {
  uint32_t n_batch;
  const int64_t *lhs_batch, *rhs_batch;
  uint32_t n_contracting;
  const int64_t *lhs_contracting, *rhs_contracting;
} shloc_dot_dims;
/* Result: batch dims, then lhs free dims, then rhs free dims; lhs element type. */
SHLOC_API shloc_status shloc_build_dot_general(shloc_block *b, shloc_value *lhs, shloc_value *rhs,
                                               const shloc_dot_dims *dims, shloc_value **out);
/* |direction|: "EQ", "NE", "GE", "GT", "LE", "LT"; |compare_type|: NULL or
 * "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED".  Result: i1 of the shape. */
SHLOC_API shloc_status shloc_build_compare(shloc_block *b, const char *direction, shloc_value *lhs, shloc_value *rhs,
                                           const char *compare_type, shloc_value **out);
SHLOC_API shloc_status shloc_build_select(shloc_block *b, shloc_value *pred, shloc_value *on_true,
                                          shloc_value *on_false, shloc_value **out);
SHLOC_API shloc_status shloc_build_iota(shloc_block *b, const shloc_type *type, int64_t dimension,
                                        shloc_value **out);
/* stablehlo.reduce of |n| inputs with |n| init values over |dims|;
 * |body| takes 2n rank-0 tensors (inputs' elements, then accumulators) and
 * returns n.  |results| receives n values. */
SHLOC_API shloc_status shloc_build_reduce(shloc_block *b, uint32_t n, shloc_value *const *inputs,
                                          shloc_value *const *inits, uint32_t n_dims, const int64_t *dims,
                                          shloc_region *body, shloc_value **results);
/* Single-input reduce whose body is the binary op |reducer| ("stablehlo.add",
 * "stablehlo.maximum", ...), built for you. */
SHLOC_API shloc_status shloc_build_reduce_with(shloc_block *b, shloc_value *input, shloc_value *init,
                                               const char *reducer, uint32_t n_dims, const int64_t *dims,
                                               shloc_value **out);
/* func.call @|callee|: result types from the callee's signature. */
SHLOC_API shloc_status shloc_build_call(shloc_block *b, const char *callee, uint32_t n, shloc_value *const *args,
                                        shloc_op **out_op);
/* stablehlo.while: |cond| and |body| take the loop values' types; cond returns
 * tensor<i1>, body the new loop values.  Results: the final loop values. */
SHLOC_API shloc_status shloc_build_while(shloc_block *b, uint32_t n, shloc_value *const *init, shloc_region *cond,
                                         shloc_region *body, shloc_op **out_op);
/* stablehlo.if: regions without arguments; results typed by |then_region|'s return. */
SHLOC_API shloc_status shloc_build_if(shloc_block *b, shloc_value *pred, shloc_region *then_region,
                                      shloc_region *else_region, shloc_op **out_op);
/* stablehlo.sort along |dimension|: |comparator| takes 2n rank-0 tensors
 * (lhs_i, rhs_i pairs) and returns tensor<i1>.  Results: the sorted inputs. */
SHLOC_API shloc_status shloc_build_sort(shloc_block *b, uint32_t n, shloc_value *const *inputs, int64_t dimension,
                                        bool is_stable, shloc_region *comparator, shloc_op **out_op);

/* ---- custom calls ------------------------------------------------------- */

/* #stablehlo.output_operand_alias<...>: result |output_tuple_indices| shares
 * the buffer of operand |operand_index| (|operand_tuple_indices|). */
typedef struct {
  uint32_t n_output_tuple_indices;
  const int64_t *output_tuple_indices;
  int64_t operand_index;
  uint32_t n_operand_tuple_indices;
  const int64_t *operand_tuple_indices;
} shloc_output_operand_alias;

typedef struct {
  const char *call_target_name;
  /* 1..4; 0 picks 4 (typed FFI), or 1 when legacy_backend_config is set. */
  int api_version;

  /* backend_config: handler-visible.  At most one of the three forms.
   * api_version 4: a dictionary, given built (shloc_attr_dict) or as pairs;
   * api_version 1..3: a string of opaque bytes. */
  const shloc_attr *backend_config;
  uint32_t n_backend_config_pairs;
  const shloc_attr_pair *backend_config_pairs;
  const char *legacy_backend_config; /* NULL = none */
  size_t legacy_backend_config_len;

  uint32_t n_operands;
  shloc_value *const *operands;
  /* NULL, or one element type name per operand (NULL entries keep the
   * operand): operands of another element type are converted with
   * stablehlo.convert, inserted before the call. */
  const char *const *operand_element_types;
  uint32_t n_results;
  const shloc_type *const *result_types;

  /* Compiler-visible op attributes emitted by these fields when set. */
  bool has_side_effect;
  /* NULL, or one minor-to-major permutation per operand/result, each with
   * that value's rank entries (e.g. {1, 0}: row-major matrix). */
  const int64_t *const *operand_layouts;
  const int64_t *const *result_layouts;
  uint32_t n_output_operand_aliases;
  const shloc_output_operand_alias *output_operand_aliases;
  uint32_t n_called_computations; /* function names, without '@' */
  const char *const *called_computations;

  /* Further compiler-visible op attributes, {name, attribute text}, emitted
   * at the operation level (never part of backend_config), e.g.
   * {"sdy.sharding_rule", "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=8}>"}.
   * Rejected: call_target_name, api_version, backend_config,
   * mhlo.backend_config, and a name a set field above emits
   * (has_side_effect, operand_layouts, result_layouts, output_operand_aliases,
   * called_computations).  Those names are accepted when their field is unset
   * and checked for meaning (a layout must be a permutation of its value's
   * rank; operand_layouts and result_layouts come together). */
  uint32_t n_mlir_attributes;
  const shloc_attr_pair *mlir_attributes;
} shloc_custom_call_spec;

/* Appends the converts (if any) and the stablehlo.custom_call; its results
 * are shloc_op_result(*out_op, i). */
SHLOC_API shloc_status shloc_build_custom_call(shloc_block *b, const shloc_custom_call_spec *spec,
                                               shloc_op **out_op);

#ifdef __cplusplus
}
#endif
#endif
