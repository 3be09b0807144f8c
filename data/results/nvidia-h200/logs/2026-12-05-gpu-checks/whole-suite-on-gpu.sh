#!/usr/bin/env bash
# The whole test suite on the GPU node, where the tests that need a GPU (CUDA through CuPy and the
# driver API, NVIDIA's OpenCL through pyopencl, PTX through the driver) run instead of skipping.
# pyopencl, its dependencies and pytest-xdist come from the carried wheelhouse-opencl/, installed
# into the node's Python (tests start fresh interpreters with PYTHONPATH set to the repository
# alone); NVIDIA's OpenCL driver is registered by its ICD file. Then a quick main job, without the
# original programs (their pinned sources are not on the node), into a scratch results folder.
# Usage: bash whole-suite-on-gpu.sh [pytest args...]
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile $(ls wheelhouse-opencl/*.whl | grep -v '/lassm-') || exit 1
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 LASSM_NO_DEPS=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
out=${OUT:-/tmp}/pytest.log
timeout 520 python3 -m pytest -q -p no:cacheprovider -n 14 -rfEs "${@:-tests}" >"$out" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)|passed|failed" "$out" | tail -40
echo "pytest exit $rc"
echo "== skips"; grep -E "^SKIPPED" "$out" | sed -E 's/^SKIPPED \[[0-9]+\] [^ ]+: //' | sort | uniq -c | sort -rn | head -25
echo "== lassm run --quick --no-originals"
unset PYTHONDONTWRITEBYTECODE
LASSM_RESULTS=/tmp/quick-results timeout 300 python3 -m lassm run --quick --no-originals --machine quick 2>&1 | tail -40
echo "run exit ${PIPESTATUS[0]}"
