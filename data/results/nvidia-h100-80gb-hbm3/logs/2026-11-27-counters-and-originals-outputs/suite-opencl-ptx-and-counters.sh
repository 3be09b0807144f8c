#!/usr/bin/env bash
# Call F (issue 28): the suite with its OpenCL builds launched by CUDA (opencl-ptx) and Nsight
# Compute counters on every CUDA-launched variant, then HeCBench's programs again with their
# outputs captured and compared with our CUDA kernels'. System python3 with CuPy; pyopencl from
# wheelhouse-opencl/. (A first try hung in cmap's count kernel: its grid-stride loop read the
# global size from %envreg6, patched to 0; now %nctaid.x.) Usage: bash suite-opencl-ptx-and-counters.sh <git sha> [suite|hecbench|both]
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
what=${2:-both}
python3 -m pip install --quiet --no-index --find-links wheelhouse-opencl pyopencl 2>&1 | tail -2
mark=$(mktemp); sleep 1
if [ "$what" != hecbench ]; then
  timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_suite.py tests/test_opencl_ptx.py \
    -k "opencl_build_launched or counters_count or envreg or global_size" 2>&1 | tail -4
  time timeout 420 python3 -m lassm.cli run --kernel suite
fi
if [ "$what" != suite ]; then
  time timeout 420 python3 tools/against_hecbench.py --source .baselines --force
fi
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
