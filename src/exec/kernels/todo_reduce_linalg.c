/* TEMPORARY: kernels not written yet (a NULL run makes the planner report the op as unsupported).
   The owner deletes each stub when writing the kernel, and the file when empty. */
#include "exec/exec.h"

const shl_kernel kernel_batch_norm_grad = {NULL, NULL};
const shl_kernel kernel_batch_norm_inference = {NULL, NULL};
const shl_kernel kernel_batch_norm_training = {NULL, NULL};
const shl_kernel kernel_cholesky = {NULL, NULL};
const shl_kernel kernel_convolution = {NULL, NULL};
const shl_kernel kernel_dot = {NULL, NULL};
const shl_kernel kernel_dot_general = {NULL, NULL};
const shl_kernel kernel_fft = {NULL, NULL};
const shl_kernel kernel_map = {NULL, NULL};
const shl_kernel kernel_reduce = {NULL, NULL};
const shl_kernel kernel_reduce_window = {NULL, NULL};
const shl_kernel kernel_select_and_scatter = {NULL, NULL};
const shl_kernel kernel_sort = {NULL, NULL};
const shl_kernel kernel_top_k = {NULL, NULL};
const shl_kernel kernel_triangular_solve = {NULL, NULL};
