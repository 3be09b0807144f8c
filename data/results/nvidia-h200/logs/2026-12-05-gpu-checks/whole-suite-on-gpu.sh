#!/usr/bin/env bash
# The whole test suite on the GPU node, where the tests that need a GPU (CUDA through CuPy and the
# driver API, NVIDIA's OpenCL through pyopencl, PTX through the driver) run instead of skipping.
# pyopencl, its dependencies and pytest-xdist come from the carried wheelhouse-opencl/; NVIDIA's
# OpenCL driver is registered by its ICD file. Usage: bash whole-suite-on-gpu.sh [pytest args...]
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site \
    $(ls wheelhouse-opencl/*.whl | grep -v '/lassm-') || exit 1
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 LASSM_NO_DEPS=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git rev-parse HEAD 2>/dev/null || true
out=${OUT:-/tmp}/pytest.log
timeout 520 python3 -m pytest -q -p no:cacheprovider -n 14 -rfE "${@:-tests}" >"$out" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)|passed|failed" "$out" | tail -40
echo "pytest exit $rc"
