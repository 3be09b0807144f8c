#!/usr/bin/env bash
# Call B (issue 27): the README's offline route on the GPU node, as a newcomer would take it.
# The clone is this tree (its committed results included, as a reader's clone has them); the
# wheelhouse (make wheelhouse PY=3.12 WHEELS=runtime+cuda13+opencl) arrived in parts under
# /root/stage; the original programs' sources at their pinned commits in .baselines/ (the node
# has no internet). Then: make venv with the wheelhouse, lassm run, and the results it wrote
# into $OUT. Usage: bash offline-route-lassm-run.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1
start=$SECONDS
mark=$(mktemp); sleep 1
mkdir -p /root/stage && cp .stage/part-* /root/stage/
cat /root/stage/part-* | tar x
ls wheelhouse | wc -l
echo "== make extras"; make -s extras
echo "== make venv ($((SECONDS - start)) s)"
time make venv EXTRAS=cuda13,opencl PIP_ARGS="--no-index --find-links wheelhouse"
echo "== lassm backends ($((SECONDS - start)) s)"
.venv/bin/lassm backends
echo "== lassm run ($((SECONDS - start)) s)"
time timeout ${RUN_LIMIT:-500} .venv/bin/lassm run --originals .baselines
echo "lassm run exit: $? ($((SECONDS - start)) s)"
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
