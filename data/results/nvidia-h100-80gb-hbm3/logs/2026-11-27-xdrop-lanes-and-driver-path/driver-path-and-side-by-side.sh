#!/usr/bin/env bash
# Call B (issue 29): the driver path (cudadrv) and the lanes plan on the H100. The GPU tests of
# the changed paths (the driver against CuPy, a fast extend importing no CuPy, every CUDA
# protocol on the driver too), then `lassm extend` beside ht_loc on the six datasets and
# `lassm xdrop align` beside LOGAN's demo on the 20k set at seven X. Usage: bash driver-path-and-side-by-side.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
python3 -c "from lassm.backends import nvrtc; print('nvrtc:', nvrtc.find_library())"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_cudadrv.py tests/test_cuda.py tests/test_xdrop_gpu.py \
  tests/test_prepare.py 2>&1 | tail -3
LASSM_CUDA_RUNTIME=driver timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_cuda.py \
  -k "sample_k77 or one_contig or forced_slicing" 2>&1 | tail -2
time timeout 170 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine nvidia-h100-80gb-hbm3 \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 3
time timeout 200 python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \
  --dataset xdrop-sim-20k --xdrops 10,20,50,100,500,1000,5000
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
