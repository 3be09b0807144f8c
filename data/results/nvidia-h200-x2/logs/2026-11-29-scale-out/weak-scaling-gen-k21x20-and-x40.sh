#!/usr/bin/env bash
# Issue 41 on the lent 2 x H200 node, weak scaling's other steps: gen-k21x40 and gen-k21x20 on 1
# and 2 GPUs each (the x20 records replace this node's older ones, so that one campaign's figures
# sit together). Usage, repository root, wheelhouse-dask/ carried: bash .../weak-scaling-gen-k21x20-and-x40.sh
set -uo pipefail
export LASSM_MACHINE=nvidia-h200-x2
NGPU=2 GPUS="1 2" REPEAT=1 DATASET=gen-k21x40 STEPS=scaling bash tools/multigpu_campaign.sh
mv "$OUT/scaling.log" "$OUT/scaling-gen-k21x40.log"
NGPU=2 GPUS="1 2" REPEAT=2 DATASET=gen-k21x20 STEPS=scaling bash tools/multigpu_campaign.sh
mv "$OUT/scaling.log" "$OUT/scaling-gen-k21x20.log"
