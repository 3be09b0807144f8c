#!/usr/bin/env bash
# Call D (issue 29), on the H100: after one hardware work queue for the command's context
# (CUDA_DEVICE_MAX_CONNECTIONS=1 set by the early start), the steps' timeline again and
# `lassm extend` beside ht_loc on the six datasets. Usage: bash one-work-queue-and-against-ht-loc.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
python3 -m lassm extend data/metahipmer-sample/localassm_extend_9-77.dat --k 77 --backend cuda --protocol fast --out /tmp/warm.txt
time timeout 90 python3 tools/profile_extend.py --timeline-only --repeats 5 \
  --datasets sample-k77,gen-k33,gen-k55,gen-k77
time timeout 200 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 7
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
