#!/usr/bin/env bash
# The GPU tests after the transfers were timed apart from the kernel (lassm/backends/cuda.py
# _run_slice's clock) and the CUDA walks came back packed (device_segments.pack_rows): the CUDA
# backend against the CPU oracle on every fixture and protocol, the device segments, the driver
# runtime, and the sharded runs on local-cuda.
set -uo pipefail
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
python3 -m pip install -q --no-index --find-links wheelhouse-dask dask distributed 2>&1 | tail -2
timeout 480 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py tests/test_device_segments.py \
  tests/test_cudadrv.py tests/test_distributed.py tests/test_worker_memory.py 2>&1 | grep -v "^\s*$" | tail -25
