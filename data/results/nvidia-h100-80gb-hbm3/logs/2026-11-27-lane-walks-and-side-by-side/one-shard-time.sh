#!/usr/bin/env bash
# Call B (issue 30), on one GPU: one-shard-time.py for casptr and fast.
# Usage: bash one-shard-time.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
D=data/results/nvidia-h100-80gb-hbm3/logs/2026-11-27-lane-walks-and-side-by-side
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time timeout 400 python3 $D/one-shard-time.py casptr,fast 2>&1
