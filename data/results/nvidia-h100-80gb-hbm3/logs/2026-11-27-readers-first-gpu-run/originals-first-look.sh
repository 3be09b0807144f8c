#!/usr/bin/env bash
# Call A (issue 27): the originals part on the GPU node, first look (system python3 with CuPy),
# sources carried in .baselines/; results to $OUT. Usage: bash originals-first-look.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 LASSM_RESULTS=/tmp/res
nvidia-smi | head -4
python3 tools/extras.py --why
python3 -c "from lassm.backends import icd; print(icd.driver_libraries())"
python3 -m lassm.cli run --dry-run 2>&1 | tail -12
time python3 -m lassm.cli run --kernel originals --originals .baselines --machine nvidia-h100-80gb-hbm3 \
    --datasets sample-k77,gen-k21,xdrop-sim-20k --xdrops 10,100,5000
tar czf "$OUT/res.tgz" -C /tmp res
