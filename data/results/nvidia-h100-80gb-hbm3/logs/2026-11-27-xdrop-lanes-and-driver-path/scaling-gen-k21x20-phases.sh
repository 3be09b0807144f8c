#!/usr/bin/env bash
# Call E, on a lent 4-GPU node (issues 30 and 29): the sharded extension's strong scaling on
# 1..4 GPUs of gen-k21x20 with its phases and the plain single-process command beside it
# (tools/multigpu_campaign.sh, records under data/results/nvidia-<gpu>-x4/); then, on GPU 0 alone,
# `lassm extend` beside ht_loc on the six datasets after the early driver start, and the 100k
# X-drop set beside LOGAN's demo at X = 1000 and 5000 (call D's limit ended those).
# Needs wheelhouse-dask/ carried. Usage: bash scaling-gen-k21x20-phases.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
case $(nvidia-smi -L | head -1) in *H100*) M=nvidia-h100-x4 ;; *) M=nvidia-h200-x4 ;; esac
mkdir -p "data/results/$M/logs"
STEPS=scaling NGPU=4 REPEAT=2 DATASET=gen-k21x20 LASSM_MACHINE=$M timeout 300 bash tools/multigpu_campaign.sh 2>&1 \
  | tee "data/results/$M/logs/scaling-gen-k21x20.log" | tail -40
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
export CUDA_VISIBLE_DEVICES=0
time timeout 110 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 3
time timeout 140 python3 tools/against_logan.py --source .baselines/LOGAN --machine "$G" \
  --dataset xdrop-sim-100k --xdrops 1000,5000
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
