#!/usr/bin/env bash
# Call A (issue 29), on the H100: where a whole `lassm extend` now spends its time (the steps'
# timeline of tools/profile_extend.py --timeline-only, after the entry point's early driver start
# and early exit), then `lassm extend` beside ht_loc on the six datasets, then the 100k X-drop
# set beside LOGAN's demo at X = 20, 50 and 500 (the rows still from before the lanes kernel).
# Usage: bash extend-timeline-and-side-by-side.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
echo "machine: $G"
python3 -m lassm extend data/metahipmer-sample/localassm_extend_9-77.dat --k 77 --backend cuda --protocol fast --out /tmp/warm.txt
time timeout 90 python3 tools/profile_extend.py --timeline-only --repeats 5 \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20
time timeout 150 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 5
time timeout 300 python3 tools/against_logan.py --source .baselines/LOGAN --machine "$G" \
  --dataset xdrop-sim-100k --xdrops 20,50,500
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
