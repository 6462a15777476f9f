/* TEMPORARY: kernels not written yet (a NULL run makes the planner report the op as unsupported).
   The owner deletes each stub when writing the kernel, and the file when empty. */
#include "exec/exec.h"

const shl_kernel kernel_bitcast_convert = {NULL, NULL};
const shl_kernel kernel_chlo_broadcast = {NULL, NULL};
const shl_kernel kernel_clamp = {NULL, NULL};
const shl_kernel kernel_compare = {NULL, NULL};
const shl_kernel kernel_constant = {NULL, NULL};
const shl_kernel kernel_constant_like = {NULL, NULL};
const shl_kernel kernel_convert = {NULL, NULL};
const shl_kernel kernel_ew_binary = {NULL, NULL};
const shl_kernel kernel_ew_unary = {NULL, NULL};
const shl_kernel kernel_iota = {NULL, NULL};
const shl_kernel kernel_reduce_precision = {NULL, NULL};
const shl_kernel kernel_select = {NULL, NULL};
