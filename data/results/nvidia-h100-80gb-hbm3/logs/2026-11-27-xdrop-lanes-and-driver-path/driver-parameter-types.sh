#!/usr/bin/env bash
# Call D (issue 29): after the driver's parameter types. The driver tests (a fast extend must
# import no CuPy: its output in full if not), the fast extension's start-up step by step on two
# inputs, `lassm extend` beside ht_loc on the six datasets (5 runs each), and the 100k X-drop set
# beside LOGAN's demo (its warm-up failed silently in call C). Usage: bash driver-parameter-types.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_cudadrv.py tests/test_cuda.py -k "cudadrv or fast" \
  --tb=short 2>&1 | tail -25
timeout 80 python3 tools/profile_extend.py --datasets sample-k77,gen-k33 --repeats 3 --top 25 2>&1 | grep -v "^ *[0-9]* *0.000 *0.000"
time timeout 200 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine nvidia-h100-80gb-hbm3 \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 5
time timeout 150 python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \
  --dataset xdrop-sim-100k --xdrops 10,100,1000,5000
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
