#!/usr/bin/env bash
# A from-scratch `lassm run` on the lent H200: no records for the machine (a fresh results root),
# the kernels built as `make venv` builds them, the originals' pinned sources in .originals/.
# Usage: bash whole-run-fresh-root.sh <git sha> <seconds allowed>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_RESULTS=/tmp/fresh LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1
mkdir -p "$OUT"
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; nproc
python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -1
printf '%(%s)T == lassm run\n' -1
timeout "$2" python3 -m lassm.cli run --originals .originals 2>&1
echo "rc $?"
printf '%(%s)T == end\n' -1
} 2>&1 | ts > "$OUT/whole-run-fresh-root.log"
find /tmp/fresh -printf '%T@ %s %p\n' | sort -n > "$OUT/files-by-time.txt"
tar -czf "$OUT/fresh.tgz" -C /tmp fresh 2>/dev/null
tail -30 "$OUT/whole-run-fresh-root.log" | cut -c1-200
