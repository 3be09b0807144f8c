#!/bin/bash
# fast's sorted table at every k (records of one to four words) on one GPU: the GPU tests of the
# sorted build; the rule, timed by tools/fast_explore.py with the sorted build sorting up to k = 30
# (one-word records, the hash table beyond: the earlier rule) and up to k = 121 (every k); then
# tools/against_original.py beside MetaHipMer's ht_loc (same GPU, same call, kernel times from
# Nsight Compute) on the real mock community at k = 21, 33, 55, 77 and on gen-k21x20.
# Usage (repository root of the GPU node, ht_loc's pinned source in .baselines/gpu_local_ht):
#   bash data/results/nvidia-h100-80gb-hbm3/logs/2026-12-07-sorted-every-k/sorted-rule-and-against-ht-loc.sh
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 LASSM_NO_DEPS=1
unset PYTHONDONTWRITEBYTECODE
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-$(git rev-parse --short HEAD 2>/dev/null)}"
echo "== tests"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_cuda.py -k "fast or sorted" -x 2>&1 | tail -2
echo "== the rule: sorted up to k = 30 against every k"
timeout 200 python3 tools/fast_explore.py real-mock5-k21 real-mock5-k33 real-mock5-k55 real-mock5-k77 gen-k33 gen-k77 \
  gen-k21x20 --caps built --protocols fast-sorted --sort-max-k 30,121 --repeat 3 \
  --ht-loc data/results/nvidia-h200/against-original.csv 2>&1 | grep -v Warning
echo "== against the original"
timeout 330 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine nvidia-h200 \
  --datasets real-mock5-k21,real-mock5-k33,real-mock5-k55,real-mock5-k77,gen-k21x20 --force 2>&1 | grep -v Warning
cp data/results/nvidia-h200/against-original.csv "${OUT:-/tmp}/against-original.csv"
