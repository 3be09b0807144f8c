"""Call B (issue 30): where one shard's time goes, on one GPU. For casptr and fast, the first of
shard_files.plan_ranges' four shards of gen-k21x20 and the whole input (one shard), each extended
in this process 4 times (the first untimed: kernels built, memory pool warm), then the output
written as a shard's worker writes it; the medians, and cProfile's heaviest calls of one more
extension of the quarter. What does not shrink with the shard is what keeps 4 GPUs from 4x."""
import cProfile, io, pstats, statistics, sys, time
from lassm.workloads.local_assembly import datasets, formats
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend
from lassm.runs import shard_files as F

ds, k = datasets.load("gen-k21x20")
plan = F.plan_ranges(ds, 4)
a, b = F.as_ranges(plan)[0]
cuts = {"quarter": ds.slice(a, b), "whole": ds.slice(0, len(ds.cids))}
print(f"gen-k21x20: {len(ds.cids)} contigs; quarter = contigs {a}..{b}", flush=True)
for proto in sys.argv[1].split(","):
    for name, part in cuts.items():
        walls, kernels, writes = [], [], []
        for i in range(4):
            t0 = time.perf_counter()
            ext = extend(part, Params(k=k), backend="cuda", protocol=proto)
            t1 = time.perf_counter()
            with open("/tmp/call-b.out", "wb") as fh:
                formats.extended_into(ext, fh)
            t2 = time.perf_counter()
            if i:
                walls.append(t1 - t0); writes.append(t2 - t1)
                kernels.append(ext.right.kernel_seconds + ext.left.kernel_seconds)
        print(f"{proto:7s} {name:8s} extend {statistics.median(walls):.3f} s (kernels {statistics.median(kernels):.3f}) "
              f"write {statistics.median(writes):.3f} s  runs {[round(w, 3) for w in walls]}", flush=True)
    prof = cProfile.Profile()
    prof.enable()
    extend(cuts["quarter"], Params(k=k), backend="cuda", protocol=proto)
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(22)
    print(f"--- cProfile, {proto}, quarter\n" + "\n".join(s.getvalue().splitlines()[:40]), flush=True)
