#!/bin/bash
# The sorted table's rule at scale and X-drop's two plans, on the node's GPU (its results folder named
# from the device): fast's sorted build sorting up to k = 30 and up to 121 on the x20 scale points
# and sample-k77 (tools/fast_explore.py, the register-capped build where the launch is large); fast
# beside ht_loc on the two scale points with the rule as committed; then X-drop's logan and warps
# plans beside LOGAN's demo on xdrop-sim-20k at X = 10 to 5000 and on 20,000 pairs half of which
# are unrelated (false seeds).
# Usage (repository root of the GPU node; ht_loc's and LOGAN's pinned sources in .baselines/):
#   LASSM_GIT_SHA=<commit> bash <this script>
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 LASSM_NO_DEPS=1
unset PYTHONDONTWRITEBYTECODE
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M=$(python3 -c "import sys; from lassm import paths; print(paths.machine_slug(sys.argv[1]))" "$gpu")
echo "git ${LASSM_GIT_SHA:-unknown}; results folder $M"
echo "== the rule at scale: sorted up to k = 30 against every k"
timeout 90 python3 tools/fast_explore.py sample-k77x20 gen-k21x20 sample-k77 --caps built --protocols fast-sorted \
  --sort-max-k 30,121 --repeat 3 2>&1 | grep -v Warning
echo "== fast against the original, the scale points"
timeout 100 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$M" \
  --datasets sample-k77x20,gen-k21x20 --force 2>&1 | grep -v Warning
mkdir -p "${OUT:-/tmp}/$M/xdrop"
cp "data/results/$M/against-original.csv" "${OUT:-/tmp}/$M/"
echo "== X-drop against LOGAN"
HF=/tmp/half-false-20k.parquet
AL="python3 tools/against_logan.py --source .baselines/LOGAN --machine $M --layouts logan,warps --force"
timeout 35 python3 -m lassm xdrop generate --n-pairs 20000 --unrelated 0.5 --name half-false-20k --out $HF 2>&1 | tail -1
timeout 150 $AL --dataset xdrop-sim-20k --xdrops 10,20,50,100,500,1000,5000 2>&1 | grep -v Warning
cp "data/results/$M/xdrop/against-logan.csv" "${OUT:-/tmp}/$M/xdrop/"
timeout 110 $AL --dataset $HF --xdrops 10,100,1000,5000 2>&1 | grep -v Warning
cp "data/results/$M/xdrop/against-logan.csv" "${OUT:-/tmp}/$M/xdrop/"
