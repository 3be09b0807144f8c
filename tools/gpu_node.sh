# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the GPU campaign scripts: what a fresh GPU node needs before any step. Installs what
# its python lacks from the carried wheelhouse (`make wheelhouse PY=3.12 WHEELS=core`, plus
# pytest), imports the working tree through PYTHONPATH, names the machine folder after the GPU,
# and defines the helpers the steps share.
python3 -m pip install -q --no-index --find-links wheelhouse numba llvmlite pytest 2>&1 | tail -2
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD LASSM_GIT_SHA=${LASSM_GIT_SHA:-unknown}
L="python3 -m lassm.cli"
MACHINE=$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
log() { echo "== $(date +%T) $*"; }
# Dataset name -> (file, k) for tools that take a file.
dsfile() { case $1 in sample-k77) echo "data/metahipmer-sample/localassm_extend_9-77.dat 77";;
                      gen-k*) k=${1#gen-k}; echo "/tmp/gen/$1.dat $k";;
                      real-*) k=${1##*-k}; echo "data/real/$1.parquet $k";; esac; }
# The generated Table II datasets at the four k, as .dat files under /tmp/gen.
gen_datasets() {
  log "generating datasets"; mkdir -p /tmp/gen
  python3 - <<'PY'
from lassm.workloads.local_assembly.generate import generate
from lassm.workloads.local_assembly.formats import write_dat
for k in (21, 33, 55, 77):
    write_dat(generate(k=k, scale=1.0, seed=0), f"/tmp/gen/gen-k{k}.dat")
PY
}
# The results, less the profiled runs' extended contigs (bulky, and the same as the sweep's).
pack() { find data/results -name '*.extended.txt' -delete; tar czf "$OUT/results.tgz" data/results; }
