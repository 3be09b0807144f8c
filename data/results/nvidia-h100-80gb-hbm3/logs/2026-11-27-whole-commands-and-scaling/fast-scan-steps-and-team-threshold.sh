#!/usr/bin/env bash
# Call J (issue 29 item 3), on the H100: fast's scan steps (change 7) and block-team threshold
# (change 9) at scale, where the launch runs the 72-register build: tools/fast_explore.py with
# the build as lassm extend makes it, steps 1, 2, 4 (fast's), 8 and teams from 768, 1536 (fast's),
# 3072 read bases, on the two x20 inputs and gen-k21, every run checked against the CPU oracle.
# Usage: bash fast-scan-steps-and-team-threshold.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
time timeout 520 python3 tools/fast_explore.py gen-k21x20 sample-k77x20 gen-k21 --caps built --protocols fast \
  --steps 1,2,4,8 --team-bases 768,1536,3072 --repeat 5 \
  --ht-loc data/results/nvidia-h100-80gb-hbm3/against-original.csv 2>&1 | tail -20
