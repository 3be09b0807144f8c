#!/usr/bin/env bash
# Call D (issue 30), on a lent 4-GPU node: tools/shard_contention.py with --machine (its figures as
# shard-contention__<dataset>.json, which the scaling chapter reads) for gen-k21x20 and the x20
# sample, then the x20 sample's scaling campaign with the compiled writer and lassm's quiet workers.
# Needs wheelhouse-dask/ carried. Usage: bash shard-contention-and-scaling-sample-k77x20.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
case $(nvidia-smi -L | head -1) in *H100*) M=nvidia-h100-x4 ;; *) M=nvidia-h200-x4 ;; esac
mkdir -p "data/results/$M/logs"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
for d in gen-k21x20 sample-k77x20; do
  timeout 150 python3 tools/shard_contention.py $d --gpus 4 --protocol casptr --repeat 3 --machine $M 2>&1 \
    | tee "data/results/$M/logs/shard-contention-$d-json.log"
done
python3 -m pip install -q --no-index --find-links wheelhouse-dask dask distributed 2>&1 | tail -2
STEPS=scaling NGPU=4 REPEAT=2 DATASET=sample-k77x20 LASSM_MACHINE=$M \
  timeout 300 bash tools/multigpu_campaign.sh 2>&1 | tee "data/results/$M/logs/scaling-sample-k77x20-jitwriter.log" \
  | grep "^gpus=\|single-process\|^== " | tail -12
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
