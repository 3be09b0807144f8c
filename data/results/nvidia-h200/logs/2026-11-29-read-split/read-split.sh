#!/usr/bin/env bash
# Where a shard folder's read goes on the H200 node (16 cores): gen-k21x80's folder of four files,
# each read in a fresh process as a worker with every core reads it, split into Arrow's read and
# decompression (read_row_groups, Arrow's threads) and the conversion to a checked Dataset
# (parquet_io.table_dataset: NumPy copies and checks, one thread), first file alone and all four
# in turn (a one-worker run's range).
set -uo pipefail
export PYTHONPATH=$PWD
timeout 120 python3 -c "from lassm.workloads.local_assembly import stream; stream.write_shards('gen-k21x80', '/tmp/x80.shards', 4)"
cat > /tmp/read_split.py <<'PY'
import sys, time
import pyarrow, pyarrow.parquet as pq
from lassm.workloads.local_assembly import stream
from lassm.workloads.local_assembly.parquet_io import table_dataset
folder, files = "/tmp/x80.shards", int(sys.argv[1])
doc = stream.manifest(folder)
pyarrow.set_cpu_count(16)
for part in doc["shards"][:files]:
    path = f"{folder}/{part['file']}"
    t0 = time.perf_counter()
    with pq.ParquetFile(path, memory_map=True) as pf:
        table = pf.read_row_groups(list(range(pf.num_row_groups)))
    t1 = time.perf_counter()
    ds = table_dataset(table, path)
    t2 = time.perf_counter()
    print(f"{part['file']}: arrow read {t1 - t0:.3f} s, to a Dataset {t2 - t1:.3f} s ({part['data_bytes'] >> 20} MiB)", flush=True)
t0 = time.perf_counter()
ds = stream.read_range(folder, 0, doc["shards"][0]["stop"])
print(f"read_range of the first file again, same process: {time.perf_counter() - t0:.3f} s")
PY
python3 /tmp/read_split.py 1
python3 /tmp/read_split.py 4
python3 -c "
import cProfile, pstats
from lassm.workloads.local_assembly import stream
pr = cProfile.Profile(); pr.enable(); stream.read_range('/tmp/x80.shards', 0, stream.manifest('/tmp/x80.shards')['shards'][0]['stop']); pr.disable()
pstats.Stats(pr).sort_stats('tottime').print_stats(20)"
