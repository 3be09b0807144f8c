#!/bin/bash
# Both GPU kernels at one commit on the GPU the node has (its results folder named from the device,
# as `lassm run` names it): fast beside MetaHipMer's ht_loc on the side-by-side table's datasets
# not yet measured with the sorted table at every k on this GPU; then X-drop's two plans (logan:
# the lanes kernel and LOGAN's block; warps: longest first, false-looking seeds last, the
# wide-band block above X = 200) beside LOGAN's demo, on xdrop-sim-20k and on 20,000 pairs half of
# which are unrelated (false seeds); then the wide-band block's threads and shared ints, printed only.
# Usage (repository root of the GPU node; ht_loc's and LOGAN's pinned sources in .baselines/):
#   LASSM_GIT_SHA=<commit> bash <this script>
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 LASSM_NO_DEPS=1
unset PYTHONDONTWRITEBYTECODE
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
M=$(python3 -c "import sys; from lassm import paths; print(paths.machine_slug(sys.argv[1]))" "$gpu")
echo "git ${LASSM_GIT_SHA:-unknown}; results folder $M"
if [ "$M" = nvidia-h100-80gb-hbm3 ]; then  # the mock community and gen-k21x20 ran at 0987d41
  LA=sample-k77,sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77
else
  LA=real-mock5-k21,real-mock5-k33,real-mock5-k55,real-mock5-k77,gen-k21x20,sample-k77,sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77
fi
echo "== fast against the original"
timeout 230 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$M" --datasets "$LA" \
  --force 2>&1 | grep -v Warning
echo "== X-drop against LOGAN"
HF=/tmp/half-false-20k.parquet
AL="python3 tools/against_logan.py --source .baselines/LOGAN --machine $M --layouts logan,warps --force"
timeout 35 python3 -m lassm xdrop generate --n-pairs 20000 --unrelated 0.5 --name half-false-20k --out $HF 2>&1 | tail -1
timeout 120 $AL --dataset xdrop-sim-20k --xdrops 500,1000,5000 2>&1 | grep -v Warning
timeout 70 $AL --dataset xdrop-sim-20k --xdrops 10,20,50,100 2>&1 | grep -v Warning
timeout 70 $AL --dataset $HF --xdrops 10,100,1000 2>&1 | grep -v Warning
mkdir -p "${OUT:-/tmp}/$M/xdrop"
cp "data/results/$M/against-original.csv" "${OUT:-/tmp}/$M/"
cp "data/results/$M/xdrop/against-logan.csv" "${OUT:-/tmp}/$M/xdrop/"
echo "== the wide-band block's threads and shared ints (kernel ms by CUDA events, printed only)"
timeout 40 python3 - "$HF" <<'PY'
import sys
from lassm.backends.xdrop import cuda
from lassm.workloads.xdrop import datasets
from lassm.workloads.xdrop.config import Scoring
for name in ("xdrop-sim-20k", sys.argv[1]):
    pairs = datasets.load(name)
    for x in (100, 500, 1000, 5000):
        sc = Scoring(xdrop=x)
        ref = cuda.align(pairs, sc, layout="logan")
        runs = {"logan": ref, "warps plan": cuda.align(pairs, sc, layout="warps")}
        for group, stride in ((32, 512), (64, 1024), (128, 2048), (256, 2048) if x >= 1000 else (128, 1024)):
            runs[f"block {group}/{stride}"] = cuda.align(pairs, sc, layout="warps", group=group, stride=stride)
        print(name.rsplit("/", 1)[-1], f"X={x}", " | ".join(
            f"{k} {r.extra['kernel_seconds'] * 1e3:.1f} ms{'' if not ref.differences(r) else ' DIFFERS'}"
            for k, r in runs.items()), flush=True)
PY
