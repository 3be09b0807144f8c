#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes ../../sorted-rule.csv from sorted-rule-and-against-ht-loc.log: tools/fast_explore.py's
per-build lines (median kernel ms of three runs, each dataset's output checked against the CPU
oracle) of the sorted build sorting up to k = 30 and up to k = 121, on the GPU the log's first
line names, at the commit its second line names. Run from this folder."""
import csv
import re
from pathlib import Path

here = Path(__file__).resolve().parent
lines = (here / "sorted-rule-and-against-ht-loc.log").read_text().splitlines()
device, driver = (s.strip() for s in lines[0].split(","))
sha = lines[1].split()[1]
command = ("tools/fast_explore.py real-mock5-k21 real-mock5-k33 real-mock5-k55 real-mock5-k77 gen-k33 gen-k77 "
           "gen-k21x20 --caps built --protocols fast-sorted --sort-max-k 30,121 --repeat 3")
rows = []
for line in lines:
    m = re.match(r"fast-sorted .* sort_max_k=(\d+) regs=", line)
    if not m or " ms" not in line:
        continue
    for name, ms, differs in re.findall(r"(\S+)\s+([\d.]+) ms(?: \(capped\))?( DIFFERS)?", line):
        rows.append({"machine": here.parents[1].name, "device": device, "driver": driver, "dataset": name,
                     "build": "fast-sorted", "sort_max_k": int(m.group(1)), "kernel_ms": float(ms),
                     "outputs_equal": not differs, "git_sha": sha, "command": command})
assert len(rows) == 14, len(rows)
out = here.parents[1] / "sorted-rule.csv"
with out.open("w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} rows -> {out}")
