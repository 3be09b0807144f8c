#!/usr/bin/env bash
# Walks packed on the device (ragged) against the rows copied whole: the GPU tests of the new host,
# then gen-k21x20's single-process command and four shards' processes on the node's one GPU
# (tools/shard_contention.py --devices 0,0,0,0), with the previous main's tree (.dev/old, 9095d01)
# and this one. Usage, repository root: bash .../ragged-walks-against-rows.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
nproc; free -g | head -2
echo "== GPU tests of this tree"
PYTHONPATH=$PWD timeout 200 python3 -m pytest -q -x tests/test_cuda.py tests/test_cudadrv.py tests/test_device_segments.py 2>&1 | tail -4
echo "== gen-k21x20 as parquet"
PYTHONPATH=$PWD python3 -m lassm.cli data write gen-k21x20 --out /tmp/x20.parquet 2>&1 | tail -1
for proto in casptr fast; do
  for tree in .dev/old .; do
    name=$( [ "$tree" = . ] && echo new || echo old )
    PYTHONPATH=$tree python3 -m lassm.cli extend /tmp/x20.parquet --backend cuda --protocol $proto --out /tmp/out-$name-$proto.txt 2>&1 | tail -1  # warm
    for i in 1 2 3; do
      /usr/bin/time -f "$name $proto whole command %e s, peak %M KB" env PYTHONPATH=$tree python3 -m lassm.cli extend /tmp/x20.parquet --backend cuda --protocol $proto --out /tmp/out-$name-$proto.txt 2>&1 | tail -2
    done
  done
  cmp /tmp/out-old-$proto.txt /tmp/out-new-$proto.txt && echo "$proto: old and new outputs equal ($(stat -c %s /tmp/out-new-$proto.txt) bytes)"
done
for proto in casptr fast; do
  for tree in .dev/old .; do
    echo "== shards on one GPU: $tree $proto"
    PYTHONPATH=$tree timeout 150 python3 tools/shard_contention.py gen-k21x20 --gpus 4 --devices 0,0,0,0 --protocol $proto --repeat 3 2>&1 | tail -8
  done
done
echo "== done"
