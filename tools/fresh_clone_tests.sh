#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# `make test` as a newcomer runs it, N times in a row: each run in a fresh clone of this
# repository's HEAD (its own .venv, set-up included in the time), one line of the log per run.
# Why: a suite that passes once on a warm tree says little about the next clone; a flake or a
# slow set-up shows only over several fresh runs, and under load.
#
#   tools/fresh_clone_tests.sh LOG [N] [--load] [--one-core] [-- make arguments]
#
#   LOG         the log to append to (Markdown: a header when new, then a row per run)
#   N           how many runs (default 5)
#   --load      a `yes > /dev/null` spinning on core 0 for the length of each run
#   --one-core  `make test` itself pinned to core 0 (taskset -c 0)
#
# Each row: the run's number, the commit, its start (UTC), wall seconds of `make test` (clone
# excluded, venv set-up included), its exit status, pytest's summary line, and the load average
# at its start and end. Each clone is removed after its run unless it failed (its path is then in
# the row, for its pytest output: make-test.txt there). The caches under ~/.cache (numba's,
# HIP-CPU's, PoCL's, the generated datasets) are the machine's, as a newcomer's second clone
# finds them. Exit status: 0 when every run passed, else 1.
set -uo pipefail

usage() { echo "usage: $0 LOG [N] [--load] [--one-core] [-- make arguments]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
log=$(realpath -m "$1"); shift
runs=5
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
load=0; pin=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --load) load=1 ;;
    --one-core) pin=(taskset -c 0) ;;
    --) shift; break ;;
    *) usage ;;
    esac
    shift
done
((runs >= 1)) || usage

repo=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse --short HEAD)
if [[ ! -s $log ]]; then
    mkdir -p "$(dirname "$log")"
    {
        echo "| run | commit | start (UTC) | wall s | exit | pytest | load at start | load at end | how |"
        echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    } > "$log"
fi
how="make test${*:+ $*}${pin:+, taskset -c 0}$( ((load)) && echo ', yes on core 0')"

failed=0
for ((i = 1; i <= runs; i++)); do
    work=$(mktemp -d "${TMPDIR:-/tmp}/lassm-fresh-clone.XXXXXX")
    git clone --quiet "$repo" "$work/lassm"
    git -C "$work/lassm" checkout --quiet "$commit"
    spinner=
    if ((load)); then taskset -c 0 yes > /dev/null & spinner=$!; fi
    start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    t0=$(date +%s.%N)
    (cd "$work/lassm" && "${pin[@]}" make test "$@") > "$work/lassm/make-test.txt" 2>&1
    status=$?
    t1=$(date +%s.%N)
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    [[ -n $spinner ]] && kill "$spinner"
    summary=$(grep -E '^=* ?[0-9]+ (passed|failed|errors?|skipped|deselected)\b' "$work/lassm/make-test.txt" | tail -n 1 |
        tr -d '=|' | sed 's/^ *//; s/ *$//')
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
    where=
    if ((status == 0)); then rm -rf "$work"; else failed=1; where=" (kept: $work/lassm)"; fi
    echo "| $i | $commit | $start | $wall | $status | ${summary:-no summary line}$where | $load0 | $load1 | $how |" >> "$log"
    echo "run $i of $runs: exit $status in $wall s: ${summary:-no summary line}$where" >&2
done
exit $failed
