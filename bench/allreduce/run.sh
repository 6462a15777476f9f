#!/bin/sh
# all_reduce (sum, f32) 1 KiB .. 64 MiB: shloc's MPI transport against a bare
# MPI_Allreduce in the same run (2 and 4 ranks), and the thread transport
# against memcpy (2 and 4 devices).  Prints `uptime` before and after: the
# numbers swing with the machine's load.
#   bench/allreduce/run.sh [BUILD_DIR]   (default build)
set -eu
B=${1:-build}
export OMPI_MCA_btl=self,vader OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
uptime
for n in 2 4; do mpirun -n "$n" --oversubscribe "$B/bench_allreduce" mpi; done
for n in 2 4; do "$B/bench_allreduce" threads "$n"; done
uptime
