#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# How the durations beside this file were measured: the whole suite, with pytest's --durations=0
# and tools/test_timings.py's record (seconds per test phase, CPU seconds per test, seconds per
# fixture set-up), under /usr/bin/time.
#
#   logs/2026-12-05-test-durations/run.sh OUT cold [pytest arguments]   caches empty, as a newcomer's
#   logs/2026-12-05-test-durations/run.sh OUT warm [pytest arguments]   the caches the cold run left
#
# cold: a new LASSM_CACHE holding only HIP-CPU's tree (as `make hip-cpu` leaves it), so the HIP-CPU
# and SeqAn drivers are built and the generated datasets made; a new XDG_CACHE_HOME, so PoCL's and
# pyopencl's program caches are empty; numba's cache files under lassm/ deleted. OUT/ gets
# pytest.txt, timings.jsonl, time.txt and the load average at start and end; then
#   python tools/test_timings.py OUT/timings.jsonl --top 30
# prints the summaries (*.summary.txt here). Before: no pytest arguments (one process); after:
# -n auto, as `make test` runs it.
set -euo pipefail
out=$(realpath -m "$1"); mode=$2; shift 2
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
state=$out.state
mkdir -p "$out"; rm -f "$out/timings.jsonl"
if [[ $mode == cold ]]; then
    rm -rf "$state"; mkdir -p "$state/cache/hip-cpu" "$state/xdg"
    cp -r "${LASSM_CACHE:-$HOME/.cache/lassm}"/hip-cpu/HIP-CPU-* "$state/cache/hip-cpu/"
    find lassm -name '*.nbi' -delete; find lassm -name '*.nbc' -delete
fi
export LASSM_CACHE=$state/cache XDG_CACHE_HOME=$state/xdg
uptime > "$out/uptime-start.txt"
status=0
PYTHONPATH=$PWD/tools:$PWD /usr/bin/time -o "$out/time.txt" -f "%e s wall, %U s user, %S s sys" \
    .venv/bin/python -m pytest -q -p no:cacheprovider -p test_timings --timings-out "$out/timings.jsonl" \
    --durations=0 "$@" > "$out/pytest.txt" 2>&1 || status=$?
uptime > "$out/uptime-end.txt"
exit $status
