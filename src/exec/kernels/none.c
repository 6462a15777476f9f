/* Ops that have no kernel (distribution, I/O, dynamic shapes): the planner
 * reports them as unsupported at plan time, before anything runs. */
#include "exec/exec.h"

const shl_kernel kernel_none = {NULL, NULL};
