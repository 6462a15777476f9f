/* interpreter.probe records and check.expect_serialized_eq (probe.c): the
 * values a run probed, per executable, cleared when a run starts. */
#ifndef SHLOC_EXEC_KERNELS_PROBE_H
#define SHLOC_EXEC_KERNELS_PROBE_H

#include "exec/exec.h"

typedef struct probe_log probe_log;

/* Forgets the previous run's probes (a run starts). */
void probe_log_clear(probe_log *log);
void probe_log_free(probe_log *log);

#endif
