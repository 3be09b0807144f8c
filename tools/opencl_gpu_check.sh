#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The portable OpenCL kernels (portable.cl and fast.cl, backend `opencl`) on an NVIDIA GPU through
# NVIDIA's own OpenCL driver: bit identity with the CPU oracle (tests/test_opencl.py, protocol fast
# included), then a small timing of opencl vs cuda, protocols casptr and fast, on the samples and
# the generated datasets.
#
# Run from the repository root on a node whose python3 has numpy, numba, cupy, pandas, pyarrow
# and rich but no pyopencl, and no internet. Carry the wheels (gitignored), made on a machine
# with internet by either of:
#   make wheelhouse WHEELS=opencl WHEELHOUSE=wheelhouse-opencl PY=3.12
#   pip download pyopencl pytest --only-binary=:all: --python-version 3.12 \
#       --platform manylinux_2_28_x86_64 -d wheelhouse-opencl      # then drop numpy-*.whl
# Writes under $OUT (default /tmp/opencl-check): test_opencl.txt, timing.csv, devices.txt.
set -uo pipefail
OUT=${OUT:-/tmp/opencl-check}
WHEELS=${WHEELS:-wheelhouse-opencl}
REPEAT=${REPEAT:-5}
DATASETS=${DATASETS:-sample-k77 sample-k21 sample-k77x20 gen-k21-s0.3 gen-k33-s0.3 gen-k55-s0.3 gen-k77-s0.3}
mkdir -p "$OUT"
log() { echo "== $(date +%T) $*"; }

# NVIDIA's OpenCL driver comes with the CUDA driver but no .icd names it in the bare image: the
# backend finds libnvidia-opencl.so.1 itself (lassm.backends.icd), no root needed.
python3 -m pip install -q --no-index --find-links "$WHEELS" pyopencl pytest 2>&1 | tail -2
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 LASSM_OPENCL_DEVICE=${LASSM_OPENCL_DEVICE:-NVIDIA}
L="python3 -m lassm.cli"

log "devices"
python3 - <<'PY' | tee "$OUT/devices.txt"
from lassm.backends import opencl  # the backend's loader set-up, NVIDIA's driver found without root
devices = opencl.devices()
print("drivers named to the loader:", ", ".join(opencl.loader_libraries()) or "OCL_ICD_VENDORS or the system's")
for d in devices:
    ext = d.extensions.split()
    print(f"{d.platform.name} | {d.name} | {d.version} | {d.opencl_c_version} | driver {d.driver_version} | "
          f"subgroups={'cl_khr_subgroups' in ext} int64_atomics={'cl_khr_int64_base_atomics' in ext} "
          f"fp64={'cl_khr_fp64' in ext}")
PY
$L backends | tee -a "$OUT/devices.txt"

log "bit identity: tests/test_opencl.py on $LASSM_OPENCL_DEVICE"
python3 -m pytest -q -p no:cacheprovider -rs tests/test_opencl.py 2>&1 | tee "$OUT/test_opencl.txt" | tail -15

log "timing: cuda vs opencl, casptr and fast, median of $REPEAT kernel times"
OUT="$OUT" REPEAT="$REPEAT" DATASETS="$DATASETS" python3 - <<'PY'
import csv, os, statistics
from lassm import Params, extend
from lassm.workloads.local_assembly import datasets

repeat = int(os.environ["REPEAT"])
# Each OpenCL row is compared with the CUDA row of its protocol (the first of that protocol).
# fast/t32w128: narrow teams of 32, wide teams of 128 for the heaviest ends (the defaults);
# fast/t32w32: no wide teams (one launch per slice).
variants = [("cuda", {"protocol": "casptr"}), ("opencl", {"protocol": "casptr", "team": 32}),
            ("opencl", {"protocol": "casptr", "team": 64}),
            ("cuda", {"protocol": "fast"}), ("opencl", {"protocol": "fast", "team": 32, "block_team": 128}),
            ("opencl", {"protocol": "fast", "team": 32, "block_team": 32})]
rows = []
for name in os.environ["DATASETS"].split():
    ds, k = datasets.load(name)
    ref = extend(ds, Params(k=k), backend="cpu")
    base = {}
    for backend, opts in variants:
        first = extend(ds, Params(k=k), backend=backend, **opts)  # build + warm-up
        equal = first.compare(ref) == []
        times = [extend(ds, Params(k=k), backend=backend, **opts).kernel_seconds for _ in range(repeat)]
        med = statistics.median(times)
        proto = opts["protocol"]
        if backend == "cuda":
            base.setdefault(proto, med)
        ref_ms = base.get(proto)
        label = f"{backend}/{proto}" + (f"/t{opts['team']}" if "team" in opts else "") + \
            (f"w{opts['block_team']}" if "block_team" in opts else "")
        rows.append({"dataset": name, "k": k, "variant": label, "protocol": proto, "kernel_ms": round(med * 1e3, 3),
                     "vs_cuda": round(med / ref_ms, 3) if ref_ms else "", "equal_cpu": equal,
                     "launches": len(first.right.extra.get("launches", [])),
                     "device": first.right.extra.get("device", "")})
        print(f"{name:16s} k={k:3d} {label:22s} {med * 1e3:9.3f} ms  x{med / ref_ms if ref_ms else float('nan'):6.2f}  "
              f"equal={equal}", flush=True)
with open(os.path.join(os.environ["OUT"], "timing.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
log "done: $OUT"
