#!/usr/bin/env bash
# Call C (issue 27): call B's `lassm run` again on the same node (its .venv kept), after call B's
# results were put back into the tree it copies: the run resumes where call B's limit stopped it.
# Usage: bash offline-route-lassm-run-resumed.sh <git sha of call B>
export LASSM_GIT_SHA=$1
mark=$(mktemp) && sleep 1
(time .venv/bin/lassm run --originals .baselines) 2>&1 | tee "$OUT/offline-route-lassm-run-resumed.log" | tail -40
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
