#!/usr/bin/env bash
# Call E, on the H100: the GPU tests of the CUDA backend, the console entry and the compiled output
# writer; then `lassm extend` beside ht_loc on the six datasets and gen-k21x20 (the compiled writer
# writes gen-k21x20's 1.37 million lines; the six stay on the Python writer), and the same
# gen-k21x20 command with the Python writer forced (LASSM_PY_WRITER=1), interleaved.
# Usage: bash against-ht-loc-compiled-writer.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
G=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time timeout 240 python3 -m pytest -q -x -p no:cacheprovider tests/test_cuda.py tests/test_entry.py tests/test_extended_jit.py 2>&1 | tail -4
time timeout 280 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine "$G" \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20,gen-k21x20 --repeats 5 2>&1 | tail -12
python3 - <<'PY'
import os, statistics, subprocess, sys, time
from lassm.workloads.local_assembly import datasets, formats
ds, k = datasets.load("gen-k21x20")
formats.write_dat(ds, "/tmp/x20.dat")
cmd = [sys.executable, "-m", "lassm", "extend", "/tmp/x20.dat", "--k", str(k), "--backend", "cuda", "--protocol", "fast"]
times = {"compiled": [], "python": []}
outs = {}
for i in range(4):
    for name in times:
        env = {**os.environ, **({"LASSM_PY_WRITER": "1"} if name == "python" else {})}
        t0 = time.perf_counter()
        subprocess.run(cmd + ["--out", f"/tmp/x20.{name}.txt"], check=True, env=env, stdout=subprocess.DEVNULL)
        if i:
            times[name].append(time.perf_counter() - t0)
same = open("/tmp/x20.compiled.txt", "rb").read() == open("/tmp/x20.python.txt", "rb").read()
print({n: round(statistics.median(t), 3) for n, t in times.items()}, {n: [round(x, 3) for x in t] for n, t in times.items()},
      "outputs identical:", same, flush=True)
PY
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
