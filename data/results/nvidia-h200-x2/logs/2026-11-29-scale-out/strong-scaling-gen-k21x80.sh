#!/usr/bin/env bash
# Issue 41 on the lent 2 x H200 node: gen-k21x80 (5.48 M contigs) on 1 and 2 GPUs, the
# workers-write path reading a shard folder (lassm extend DIR --cluster local-cuda:N's own path).
# Usage, repository root, wheelhouse-dask/ carried: bash .../strong-scaling-gen-k21x80.sh
set -uo pipefail
export LASSM_MACHINE=nvidia-h200-x2
nproc; free -g | head -2
NGPU=2 GPUS="1 2" REPEAT=1 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh
