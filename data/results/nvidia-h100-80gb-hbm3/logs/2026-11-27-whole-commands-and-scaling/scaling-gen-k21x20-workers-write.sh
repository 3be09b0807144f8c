#!/usr/bin/env bash
# Call E (issue 30), on a lent 4-GPU node: the sharded extension's strong scaling on 1..4 GPUs of
# gen-k21x20, now with the workers writing their blocks of the output (shard_files, what
# `lassm extend --cluster` runs: files_* keys), beside the in-memory merge and the plain
# single-process command (tools/multigpu_campaign.sh). Needs wheelhouse-dask/ carried.
# Usage: bash scaling-gen-k21x20-workers-write.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
case $(nvidia-smi -L | head -1) in *H100*) M=nvidia-h100-x4 ;; *) M=nvidia-h200-x4 ;; esac
mkdir -p "data/results/$M/logs"
STEPS=scaling NGPU=4 REPEAT=2 DATASET=gen-k21x20 LASSM_MACHINE=$M timeout 420 bash tools/multigpu_campaign.sh 2>&1 \
  | tee "data/results/$M/logs/scaling-gen-k21x20-files.log" | tail -45
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
