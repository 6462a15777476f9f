/* #stablehlo.result_accuracy<atol, rtol, ulps, mode> on transcendental ops
 * (exp, log, tanh, ...): read and checked against the spec in one place for
 * the verifier and the executor. */
#ifndef SHLOC_IR_RESULT_ACCURACY_H
#define SHLOC_IR_RESULT_ACCURACY_H

#include "ir.h"

typedef enum { RA_DEFAULT, RA_HIGHEST, RA_TOLERANCE } ra_mode;

typedef struct {
  double atol, rtol;
  int64_t ulps;
  ra_mode mode;
} ra_spec;

/* The op's result_accuracy (absent: DEFAULT, all tolerances 0).  A
 * SHLOC_ERR_VERIFY error when it is malformed or breaks the spec: the
 * tolerances are non-negative, and all zero unless mode is TOLERANCE. */
shl_status result_accuracy_of(const shl_op *op, ra_spec *out);

#endif
