/* Run-time values as MLIR text: what `shloc run --print` shows. */
#ifndef SHLOC_TEXT_PRINT_VALUE_H
#define SHLOC_TEXT_PRINT_VALUE_H

#include "ir/ir.h"

/* Formats `data` (row-major element storage of the static tensor type t, as
 * executor buffers hold it) as a dense literal with its type,
 * `dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>`: every element is written out
 * (no splat or hex form), rank 0 gives `dense<v>`, empty tensors `dense<>`.
 * *out is malloc'd and NUL-terminated. */
shl_status print_dense_value(const shl_type *t, const void *data, size_t nbytes, char **out, size_t *out_len);

/* `data` as the StableHLO reference interpreter prints a tensor
 * (interpreter.print, results of stablehlo-translate --interpret): the type,
 * then the elements in nested brackets, one dimension per line, indented by
 * two spaces per level:
 *   tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}
 * rank 0 gives `tensor<i8> {1}`, an empty dimension `[]`.  Elements read as
 * in dense literals.  *out is malloc'd and NUL-terminated. */
shl_status print_interpreter_value(const shl_type *t, const void *data, size_t nbytes, char **out, size_t *out_len);

/* The name shloc's printer gives value v (`%0`, `%cst_1`, `%arg2`) when it
 * prints the function holding it; *out is malloc'd.  Runs the naming pass
 * over that function, keeping every value's scratch id as it was. */
shl_status printer_value_name(const shl_value *v, char **out);

/* Op `op` alone as `func.func @main(...)` (generic form) over its distinct
 * operands in order, returning its results, named as when the function
 * holding it is printed; every value's scratch id is kept.  *out is malloc'd. */
shl_status printer_op_as_func(const shl_op *op, char **out, size_t *out_len);

/* A type as MLIR prints it ("tensor<4x8xf32>"); *out is malloc'd. */
shl_status print_type_text(const shl_type *t, char **out);
/* An attribute as MLIR prints it ("1 : i32", "\"text\"", "[1, 2]"); *out is malloc'd. */
shl_status print_attr_text(const shl_attr *a, char **out);

#endif
