#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The X-drop study on one NVIDIA node, in one call: the X-drop campaign (`lassm run --kernel xdrop`:
# xdrop/times.csv with CUDA, the numba oracle and SeqAn on all cores, xdrop/counters.csv from
# Nsight Compute) and LOGAN's own demo beside ours (tools/against_logan.py: xdrop/against-logan.csv
# and LOGAN's counters rows), packed into $OUT/xdrop.tgz. Every step prints its seconds; both
# steps skip what is recorded at this commit, so a second call after a cut-off one goes on.
#
# Carried from the workstation in the gitignored .baselines/:
#   .baselines/LOGAN/              LOGAN's sources (albertozeni/LOGAN), built here by nvcc
#   .baselines/seqan/include/      SeqAn 2's headers, where the node has no libseqan2-dev
#   .baselines/xdrop-datasets/     the real-genome set built with pbsim (the node has none)
# and, for OpenCL rows beside CUDA's, wheelhouse-opencl/ (pyopencl's wheels). Prepared once, at the
# repository root of the workstation (Debian, libseqan2-dev, pbsim and bowtie2-examples installed):
#   mkdir -p .baselines/seqan/include && cp -r /usr/include/seqan .baselines/seqan/include/
#   LASSM_XDROP_DATA=$PWD/.baselines/xdrop-datasets PYTHONPATH=$PWD python3 -c \
#     "from lassm.workloads.xdrop import datasets; datasets.load('xdrop-real-lambda-2k')"
# Usage (repository root on the node); the results unpack with `tar xzf xdrop.tgz -C data/results`:
#   LASSM_GIT_SHA=<commit> bash tools/xdrop_h100.sh
#   STEPS="campaign" XDROPS=100,1000 bash tools/xdrop_h100.sh     # a part of it
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"check campaign logan"}
XDROPS=${XDROPS:-10,20,50,100,500,1000,5000}
COUNTERS_XDROPS=${COUNTERS_XDROPS:-100,1000}
LOGAN_DATASET=${LOGAN_DATASET:-xdrop-sim-20k}
DATASETS=${DATASETS:-}   # empty: the plan's sets for a GPU machine (lassm.campaign.xdrop_plan.GPU_DATASETS)
ARCH=${ARCH:-sm_90}
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD LASSM_GIT_SHA=${LASSM_GIT_SHA:-unknown}
export LASSM_CACHE=${LASSM_CACHE:-/tmp/lassm-cache}
mkdir -p .baselines/xdrop-datasets
export LASSM_XDROP_DATA=${LASSM_XDROP_DATA:-$PWD/.baselines/xdrop-datasets}
if [ ! -f /usr/include/seqan/seeds/seeds_extension.h ] && [ -f .baselines/seqan/include/seqan/seeds/seeds_extension.h ]; then
  export LASSM_SEQAN_INCLUDE=$PWD/.baselines/seqan/include
fi
# The X-drop kernel through NVIDIA's OpenCL too, where pyopencl's wheels are carried (wheelhouse-opencl/,
# `make wheelhouse` as for the local-assembly OpenCL runs): pyopencl installed; the backend finds NVIDIA's
# OpenCL driver itself (lassm.backends.icd), no .icd to write.
if [ -d wheelhouse-opencl ] && ! python3 -c "import pyopencl" 2>/dev/null; then
  python3 -m pip install -q --no-index --find-links wheelhouse-opencl pyopencl > "$OUT/pip-opencl.log" 2>&1 || echo "pyopencl not installed: see $OUT/pip-opencl.log"
fi
MACHINE=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
log() { echo "== $(date +%T) $*"; }
# step NAME COMMAND...: runs it, its output to $OUT/NAME.log too, then its seconds and exit code.
step() {
  local name=$1; shift
  local t0=$SECONDS
  log "$name: $*"
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  log "$name: $((SECONDS - t0)) s, exit $rc"
}
# What the node has that the steps need; the campaign's plan.
check() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; echo "cores: $(nproc)"
  if command -v g++ >/dev/null; then g++ --version | head -1; else echo "no g++: no seqan rows"; fi
  command -v ncu || ls /usr/local/cuda/bin/ncu || echo "no ncu: no counters"
  echo "SeqAn headers: ${LASSM_SEQAN_INCLUDE:-/usr/include}; carried sets: $(ls "$LASSM_XDROP_DATA" | tr '\n' ' ')"
  python3 -c "import numba, numpy, pyarrow, pandas, cupy; print('numba', numba.__version__, 'numpy', numpy.__version__,
'pyarrow', pyarrow.__version__, 'pandas', pandas.__version__, 'cupy', cupy.__version__, 'threads', numba.config.NUMBA_NUM_THREADS)"
  python3 -m lassm.cli run --kernel xdrop --machine "$MACHINE" --xdrops "$XDROPS" ${DATASETS:+--datasets "$DATASETS"} --dry-run
}
log "machine $MACHINE, commit $LASSM_GIT_SHA, X $XDROPS"
for s in $STEPS; do
  case $s in
    check)
      step check check ;;
    campaign)
      step campaign python3 -m lassm.cli run --kernel xdrop --machine "$MACHINE" --xdrops "$XDROPS" ${DATASETS:+--datasets "$DATASETS"} ;;
    logan)
      if [ -d .baselines/LOGAN ]; then
        step logan python3 tools/against_logan.py --source .baselines/LOGAN --machine "$MACHINE" --arch "$ARCH" \
          --dataset "$LOGAN_DATASET" --xdrops "$XDROPS" --counters-xdrops "$COUNTERS_XDROPS"
      else
        log "logan: no .baselines/LOGAN carried; skipped"
      fi ;;
  esac
done
RESULTS=${LASSM_RESULTS:-data/results}
tar czf "$OUT/xdrop.tgz" -C "$RESULTS" "$MACHINE/xdrop" && log "packed $OUT/xdrop.tgz ($(du -h "$OUT/xdrop.tgz" | cut -f1))"
log done
