#!/usr/bin/env bash
# Call C (issue 30), on a lent 4-GPU node: (1) tools/shard_contention.py: gen-k21x20's four shards
# each in a process of its own on a GPU of its own, alone and all at once, without Dask: do the
# shards slow each other down on the node? (2) the scaling campaign of gen-k21x20 again
# (tools/multigpu_campaign.sh, casptr), now with the compiled output writer (extended_jit) and the
# Dask workers' statistical profiler off (DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False).
# Needs wheelhouse-dask/ carried. Usage: bash shard-contention-and-scaling-gen-k21x20.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
case $(nvidia-smi -L | head -1) in *H100*) M=nvidia-h100-x4 ;; *) M=nvidia-h200-x4 ;; esac
mkdir -p "data/results/$M/logs"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
time timeout 200 python3 tools/shard_contention.py gen-k21x20 --gpus 4 --protocol casptr --repeat 2 2>&1 \
  | tee "data/results/$M/logs/shard-contention-gen-k21x20.log"
DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False STEPS=scaling NGPU=4 REPEAT=2 DATASET=gen-k21x20 LASSM_MACHINE=$M \
  timeout 330 bash tools/multigpu_campaign.sh 2>&1 | tee "data/results/$M/logs/scaling-gen-k21x20-jitwriter.log" \
  | grep -v "^ \|distributed\.\|Traceback\|^  File\|raise \|CommClosed\|nbytes = \|value = \|\^" | tail -30
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
