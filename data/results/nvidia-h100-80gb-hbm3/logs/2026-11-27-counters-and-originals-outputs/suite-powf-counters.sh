#!/usr/bin/env bash
# Call H (issue 28): Nsight Compute again on k5's CUDA powf variant alone. Its raw file of call F
# was overwritten by __powf's (both names slugged to one file; now named as they are), so its
# counters row could not be re-derived from a raw file. Usage: bash suite-powf-counters.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
mark=$(mktemp); sleep 1
timeout 200 python3 -c "
from lassm.campaign import suite_counters
print(suite_counters.collect([('minkowski', 'cuda', 'powf')], 'gpu', 'nvidia-h100-80gb-hbm3', sha='$1', force=True, say=print))"
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
