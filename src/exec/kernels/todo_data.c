/* TEMPORARY: kernels not written yet (a NULL run makes the planner report the op as unsupported).
   The owner deletes each stub when writing the kernel, and the file when empty. */
#include "exec/exec.h"

const shl_kernel kernel_broadcast = {NULL, NULL};
const shl_kernel kernel_broadcast_in_dim = {NULL, NULL};
const shl_kernel kernel_concatenate = {NULL, NULL};
const shl_kernel kernel_dynamic_slice = {NULL, NULL};
const shl_kernel kernel_dynamic_update_slice = {NULL, NULL};
const shl_kernel kernel_gather = {NULL, NULL};
const shl_kernel kernel_get_dimension_size = {NULL, NULL};
const shl_kernel kernel_get_tuple_element = {NULL, NULL};
const shl_kernel kernel_pad = {NULL, NULL};
const shl_kernel kernel_probe = {NULL, NULL};
const shl_kernel kernel_reshape = {NULL, NULL};
const shl_kernel kernel_reverse = {NULL, NULL};
const shl_kernel kernel_rng = {NULL, NULL};
const shl_kernel kernel_rng_bit_generator = {NULL, NULL};
const shl_kernel kernel_scatter = {NULL, NULL};
const shl_kernel kernel_slice = {NULL, NULL};
const shl_kernel kernel_transpose = {NULL, NULL};
const shl_kernel kernel_tuple = {NULL, NULL};
