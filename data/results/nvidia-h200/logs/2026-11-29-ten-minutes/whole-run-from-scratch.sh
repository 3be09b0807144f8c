#!/usr/bin/env bash
# The whole study from scratch on the lent H200: set-up as `make venv` does it (the kernels and the
# CPU oracle compiled by `lassm build-kernels`), then `lassm run` in a tree with no records for
# this GPU's folder nor this node's CPU folder (both moved aside first), the originals' pinned
# sources in .originals/. The fresh folders come back whole; tools/merge_results.py lays them
# onto the committed ones. Usage: bash whole-run-from-scratch.sh <git sha> <seconds allowed>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1
mkdir -p "$OUT" /tmp/aside
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; nproc
python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -2
gpu=$(python3 -c "from lassm.runs.records import machine_for_backend as m; print(m('cuda'))")
cpu=$(python3 -c "from lassm.runs.records import machine_for_backend as m; print(m('cpu'))")
echo "folders: $gpu $cpu"
for f in "$gpu" "$cpu"; do [ -d "data/results/$f" ] && mv "data/results/$f" /tmp/aside/; done
find data/results -maxdepth 1 | sort
printf '%(%s)T == lassm run\n' -1
timeout "$2" python3 -m lassm.cli run --originals .originals 2>&1
echo "rc $?"
printf '%(%s)T == end\n' -1
cat "data/results/$gpu/runs.json" 2>/dev/null
} 2>&1 | ts > "$OUT/whole-run-from-scratch.log"
tar -czf "$OUT/fresh.tgz" -C data/results "$(python3 -c "from lassm.runs.records import machine_for_backend as m; print(m('cuda'))")" \
    "$(python3 -c "from lassm.runs.records import machine_for_backend as m; print(m('cpu'))")" 2>/dev/null
ls -la "$OUT"
grep -v "│\|┃\|━\|┏\|┡\|└\|GCUPS\|ms, ok\|: whole" "$OUT/whole-run-from-scratch.log" | tail -60 | cut -c1-220
