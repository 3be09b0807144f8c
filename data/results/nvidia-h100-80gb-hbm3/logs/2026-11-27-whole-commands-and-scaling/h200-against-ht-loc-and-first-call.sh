#!/usr/bin/env bash
# Call I (issue 29), on an H200 (kind nvidia-h200): `lassm extend` beside ht_loc on the six
# datasets with this session's start and exit (the H200's rows were from before them), and a
# first call against warm ones (tools/first_call.py). Rows go to data/results/nvidia-h200/.
# Usage: bash h200-against-ht-loc-and-first-call.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
echo "machine: $G"
python3 -m lassm extend data/metahipmer-sample/localassm_extend_9-77.dat --k 77 --backend cuda --protocol fast --out /tmp/warm.txt
time timeout 200 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 7
time timeout 120 python3 tools/first_call.py --machine "$G" --dataset gen-k77 --pairs xdrop-sim-20k --xdrop 100 --repeats 5
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
