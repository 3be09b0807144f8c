"""Calls D1 and D2 ran one after the other on one node, each on a copy of the same committed tree,
so each wrote its tables from that tree's rows. This folds D2's into D1's: D2's rows replace D1's
where their keys meet (times, PTX mix, originals), its campaign entries are added after D1's, and
its profiled-run files replace D1's, except Nsight Compute's raw file of epistasis-cuda, which D2's
time limit cut short (header only): call C's stays, and the new epistasis-cuda row takes its
``ncu_*`` columns from that file (the same pinned program, built by the same nvcc), as
hecbench-ncu-recount.py did. Usage: python merge-two-runs.py <D1 root> <D2 root> <repo root>"""
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

d1, d2, repo = (Path(a) for a in sys.argv[1:4])


def committed(path: Path) -> str:
    """The file as the tree both calls ran on holds it."""
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout


suite = Path("data/results/nvidia-h200/suite")
keys = {"times.csv": ["kernel", "backend", "variant"], "ptx-mix.csv": None, "originals.csv": ["kernel", "program"]}
for f in (d1 / "data/results/nvidia-h200").rglob("*"):
    if f.is_file():
        dest = repo / f.relative_to(d1)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest)
for name, key in keys.items():
    a, b = pd.read_csv(d1 / suite / name, keep_default_na=False), pd.read_csv(d2 / suite / name, keep_default_na=False)
    if key is None:  # the PTX mix, which each call rewrote with its own kernels only (fixed since):
        # the committed rows of the kernels neither call compiled, D1's cmap, D2's epistasis
        old = pd.read_csv(io.StringIO(committed(suite / name)), keep_default_na=False)
        out = pd.concat([old[~old["kernel"].isin(["cmap", "epistasis"])], a[a["kernel"] == "cmap"],
                         b[b["kernel"] == "epistasis"]])
    else:
        mine = b.set_index(key).index.difference(a.set_index(key).index).union(
            b[b["git_sha"] == "cd01cd4a8d2616b1bdbb7267e078e41f4a42db61"].set_index(key).index)
        take = b.set_index(key).index.isin(mine)
        out = pd.concat([a[~a.set_index(key).index.isin(mine)], b[take]])
    out.to_csv(repo / suite / name, index=False)
head = json.loads(committed(suite / "campaign.json"))["entries"]
one, two = (json.loads((d / suite / "campaign.json").read_text())["entries"] for d in (d1, d2))
(repo / suite / "campaign.json").write_text(json.dumps({"entries": one + two[len(head):]}, indent=2) + "\n")
for f in (d2 / suite / "ptx").glob("*.ptx"):
    shutil.copy2(f, repo / suite / "ptx" / f.name)
shutil.copy2(d2 / suite / "counters/ncu__original__all_pairs.csv", repo / suite / "counters/ncu__original__all_pairs.csv")
subprocess.run(["git", "-C", str(repo), "checkout", "HEAD", "--", f"{suite}/counters/ncu__original__epistasis.csv"], check=True)
sys.path.insert(0, str(repo))
from lassm.campaign.originals import hecbench  # noqa: E402

table = repo / suite / "originals.csv"
o = pd.read_csv(table, keep_default_na=False)
cols = hecbench.ncu_columns(repo / suite / "counters/ncu__original__epistasis.csv", hecbench.PROGRAMS["epistasis"])
for k, v in cols.items():
    o[k] = o[k].astype(object)
    o.loc[o["kernel"] == "epistasis", k] = v
o.to_csv(table, index=False)
print(o[["kernel", "git_sha", "seconds", "verified", "outputs_equal", "ncu_seconds"]].to_string(index=False))
