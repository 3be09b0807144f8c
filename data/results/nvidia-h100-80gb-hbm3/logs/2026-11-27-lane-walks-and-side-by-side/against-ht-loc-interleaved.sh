#!/usr/bin/env bash
# Call F, on the H100: `lassm extend` beside ht_loc on the six datasets again, the two programs now
# taking turns (timing.interleaved), 9 runs each; and how long this node's Python takes to start
# (the interpreter alone, without site, and importing numpy), as context for the small inputs.
# Usage: bash against-ht-loc-interleaved.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 - <<'PY'
import statistics, subprocess, sys, time
for label, cmd in (("python -c pass", [sys.executable, "-c", "pass"]), ("python -S -c pass", [sys.executable, "-S", "-c", "pass"]),
                   ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"])):
    subprocess.run(cmd, check=True)
    runs = []
    for _ in range(9):
        t0 = time.perf_counter(); subprocess.run(cmd, check=True); runs.append(time.perf_counter() - t0)
    print(f"{label}: median {statistics.median(runs) * 1e3:.1f} ms", flush=True)
PY
python3 -X importtime -c pass 2>&1 | sort -t'|' -k2 -n | tail -8
time timeout 420 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 9 2>&1 | tail -14
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
