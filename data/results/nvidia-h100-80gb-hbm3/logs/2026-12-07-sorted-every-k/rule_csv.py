#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes ../../sorted-rule.csv from the explore runs' logs: tools/fast_explore.py's per-build lines
(median kernel ms of three runs, each dataset's output checked against the CPU oracle) of the
sorted build sorting up to k = 30 and up to k = 121, on the GPU each log's first line names, at the
commit its second line names: this folder's sorted-rule-and-against-ht-loc.log (the real mock
community, gen-k33, gen-k77, gen-k21x20) and ../2026-12-07-both-kernels/scale-rule-and-xdrop-plans.log
(the scale points and sample-k77)."""
import csv
import re
from pathlib import Path

here = Path(__file__).resolve().parent
LOGS = {here / "sorted-rule-and-against-ht-loc.log":
        "tools/fast_explore.py real-mock5-k21 real-mock5-k33 real-mock5-k55 real-mock5-k77 gen-k33 gen-k77 "
        "gen-k21x20 --caps built --protocols fast-sorted --sort-max-k 30,121 --repeat 3",
        here.parent / "2026-12-07-both-kernels" / "scale-rule-and-xdrop-plans.log":
        "tools/fast_explore.py sample-k77x20 gen-k21x20 sample-k77 --caps built --protocols fast-sorted "
        "--sort-max-k 30,121 --repeat 3"}
rows = []
for log, command in LOGS.items():
    lines = log.read_text().splitlines()
    device, driver = (s.strip() for s in lines[0].split(","))
    sha = lines[1].split()[1].rstrip(";")
    for line in lines:
        m = re.match(r"fast-sorted .* sort_max_k=(\d+) regs=", line)
        if not m or " ms" not in line:
            continue
        for name, ms, differs in re.findall(r"(\S+)\s+([\d.]+) ms(?: \(capped\))?( DIFFERS)?", line):
            rows.append({"machine": here.parents[1].name, "device": device, "driver": driver, "dataset": name,
                         "build": "fast-sorted", "sort_max_k": int(m.group(1)), "kernel_ms": float(ms),
                         "outputs_equal": not differs, "git_sha": sha, "command": command})
assert len(rows) == 20, len(rows)
out = here.parents[1] / "sorted-rule.csv"
with out.open("w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} rows -> {out}")
