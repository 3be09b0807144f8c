#!/usr/bin/env bash
# Call D (issue 28): Jin and Vetter's kernels on the GPU node: their tests (CUDA and NVIDIA's
# OpenCL), then `lassm run --kernel suite` at the seed's sizes (5 timed runs after a warm-up,
# every variant checked against its reference, both compilers' PTX). System python3 with CuPy;
# pyopencl from wheelhouse-opencl/ (make wheelhouse WHEELS=opencl). Usage: bash suite-first-run.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1
python3 -m pip install --quiet --no-index --find-links wheelhouse-opencl pyopencl 2>&1 | tail -2
python3 -m lassm.cli backends
python3 -m pytest -q -p no:cacheprovider tests/test_suite.py 2>&1 | tail -6
mark=$(mktemp); sleep 1
time python3 -m lassm.cli run --kernel suite
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
