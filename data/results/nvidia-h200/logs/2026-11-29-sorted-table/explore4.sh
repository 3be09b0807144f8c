#!/bin/bash
# fast at k = 21 (its sorted build, with the first-step shortcut): where its kernel stalls on
# gen-k21x20 (tools/fast_source_profile.py), and kernel time by region size and block-team threshold.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-unknown}"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "== source profile"
timeout 150 python3 tools/fast_source_profile.py gen-k21x20 --protocol fast --ncu $NCU --top 30 --pages $OUT/pages 2>&1 | tail -45
gzip -9 $OUT/pages/*.csv
echo "== explore"
timeout 200 python3 tools/fast_explore.py gen-k21x20 gen-k21 \
  --caps built --protocols fast-sorted --sort-bytes 2048,4096 --team-bases 1536,100000 --repeat 3 2>&1 | grep -v Warning
