#!/usr/bin/env bash
# Call F (issue 29), on the H100: a GPU command's first call against its warm ones
# (tools/first_call.py: an empty kernel cache, and one filled by lassm build-kernels first),
# for lassm extend (fast, gen-k77) and lassm xdrop align (20k set, X = 100).
# Usage: bash first-call-against-warm.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
time timeout 400 python3 tools/first_call.py --machine "$G" --dataset gen-k77 --pairs xdrop-sim-20k --xdrop 100 --repeats 5
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
