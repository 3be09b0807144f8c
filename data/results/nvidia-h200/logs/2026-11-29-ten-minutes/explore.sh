#!/usr/bin/env bash
# Where a from-scratch `lassm run` spends its time on the lent H200, part by part (each under its
# own limit, so that every part is seen within one device call). Results go to a scratch root.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_RESULTS=/tmp/fresh LASSM_CACHE=/tmp/lassm-cache
mkdir -p "$OUT"
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
stamp() { printf '%(%s)T == %s\n' -1 "$*"; }
{
stamp start; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; nproc
stamp build-kernels; python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -3
stamp dry-run; python3 -m lassm.cli run --machine h200-scratch --originals .originals --dry-run 2>&1
stamp local-assembly; timeout 170 python3 -m lassm.cli run --kernel local-assembly --machine h200-scratch 2>&1 | tail -25
stamp xdrop; timeout 140 python3 -m lassm.cli run --kernel xdrop --machine h200-scratch 2>&1 | tail -25
stamp suite; timeout 90 python3 -m lassm.cli run --kernel suite --machine h200-scratch 2>&1 | tail -25
stamp originals; timeout 120 python3 -m lassm.cli run --kernel originals --machine h200-scratch --originals .originals 2>&1 | tail -60
stamp end
} 2>&1 | ts > "$OUT/explore.log"
find /tmp/fresh -printf '%T@ %s %p\n' | sort -n > "$OUT/files-by-time.txt"
tar -czf "$OUT/fresh.tgz" -C /tmp fresh 2>/dev/null
