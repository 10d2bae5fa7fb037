#!/usr/bin/env bash
# The profiler half's files from a real job (tests/fixtures/workload/.../<job>/profiler-run/) against
# that run's COLL log and the job's own counts, for each captured job. The checker writes its
# imports beside the capture, so it runs on a copy.
#   profiler_capture_check.sh CCTUNE SOURCE_DIR WORK_DIR
set -euo pipefail
cctune=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
caps=$src/tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9
for job in ddp fsdp alltoall grouped; do
  cp -r "$caps/$job/profiler-run" "$work/$job"
  echo "== $job"
  python3 "$src/tests/gpu/workload/check_profiler_workload.py" "$cctune" "$src/configs/schema/workload.schema.json" "$work/$job"
done
