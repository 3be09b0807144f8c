# SPDX-License-Identifier: BSD-3-Clause
"""Every measured finding's numbers, derived a second time from the record files by plain pandas.

The findings (lassm.book.findings) reach the records through the chapters' functions; this file
reads the same files directly (summary.json, the CSV tables) and recomputes each number, so that a
finding whose path drifts from its data fails here. Each measured finding needs a re-derivation:
a finding added without one fails :func:`test_every_measured_finding_is_rederived`.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from lassm.book import findings as fi

from .test_book import ROOT

RESULTS = ROOT / "data" / "results"
FAITHFUL = {"casptr", "matchany", "doneflag", "barrier"}


@pytest.fixture(scope="module")
def committed() -> dict[str, fi.Finding]:
    return {f.key: f for f in fi.findings()}


@pytest.fixture(scope="module")
def summaries() -> pd.DataFrame:
    rows = []
    for p in sorted(RESULTS.glob("*/*/summary.json")):
        if not p.parent.name.startswith("."):
            rows.append({**json.loads(p.read_text()), "folder": p.parent.parent.name})
    return pd.DataFrame(rows)


def _machine(key: str, prefix: str) -> str:
    return key.removeprefix(prefix)


def check_bit_exact(f, s):
    ports = s[s["backend"] != "cpu"]
    sample = s[s["dataset"].astype(str).str.startswith("sample-")]
    ref = sample["matches_reference"].dropna()
    assert f.numbers["ports"] == len(ports) and f.numbers["same"] == int(ports["matches_cpu"].fillna(False).sum())
    assert f.numbers["sample"] == len(sample) and f.numbers["ref_checked"] == len(ref)
    assert f.numbers["ref_same"] == int(ref.astype(bool).sum())


def check_measured_here(f, s):
    nvidia = {d for d in s["device"].dropna().astype(str) if d.startswith("NVIDIA") and "(" not in d}
    assert set(f.numbers["gpus"].split(", ")) == nvidia and f.numbers["n_gpus"] == len(nvidia)
    assert "AMD or Intel" in f.numbers["absent"] or f.numbers["absent"] in ("AMD", "Intel")


def check_doneflag_race(f, s):
    race = pd.concat([pd.read_csv(p) for p in RESULTS.glob("*/published-race.csv")])
    pub = race[(race["protocol"] == "doneflag") & (race["build"] == "published")]
    assert f.numbers["published"] == len(pub) and f.numbers["wrong"] == int((pub["wrong_ends"] > 0).sum())
    assert f.numbers["share"] == pytest.approx((pub["wrong_ends"] / pub["contig_ends"]).max())
    runs = s[s["protocol"] == "doneflag"]
    assert f.numbers["runs"] == len(runs) and f.numbers["ok"] == int(runs["matches_cpu"].fillna(False).sum())
    for dataset, part in pub.groupby("dataset"):
        assert f"{int(part['wrong_ends'].max()):,d} of {int(part['contig_ends'].max()):,d} on `{dataset}`" in f.sentence


def check_fast_side_by_side(f, s):
    t = pd.read_csv(RESULTS / _machine(f.key, "fast_side_by_side_") / "against-original.csv")
    t["who"] = t["program"].str.startswith("original").map({True: "o", False: "l"})
    row = t[t["dataset"] == f.numbers["input"]].set_index("who")["kernel_seconds"]
    assert f.numbers["orig_ms"] == pytest.approx(1e3 * row["o"]) and f.numbers["fast_ms"] == pytest.approx(1e3 * row["l"])
    assert f.numbers["inputs"] == t["dataset"].nunique()


def check_published(f, s):
    from lassm.analysis import paper
    from lassm.backends.nvrtc import VARIANTS

    m = s[(s["folder"] == _machine(f.key, "published_")) & (s["backend"] != "cpu")
          & ~s.get("shared_device", pd.Series(False, index=s.index)).fillna(False).astype(bool)].copy()
    m = m[~m["protocol"].isin(list(VARIANTS)) & (m["dataset"] == "gen-k" + m["k"].astype(str))]
    # one record per point, as the chapters keep it: the most repeats, then a benchmark's, then the fastest
    m["n"] = m["kernel_seconds_runs"].map(lambda r: len(r) if isinstance(r, list) else 1)
    m["bench"] = m["benchmark"].fillna(False).astype(bool) if "benchmark" in m else False
    m = m.sort_values(["n", "bench", "kernel_seconds"], ascending=[False, False, True])
    m = m.drop_duplicates(["dataset", "k", "backend", "protocol"])
    ours = m.groupby("k")["kernel_seconds"].min()
    pub = paper.measured().groupby("k")["duration_s"].min()
    ratio = (pub / ours).dropna()
    shown = ratio if (ratio >= 1).all() else 1 / ratio
    assert f.numbers["lo"] == pytest.approx(shown.min()) and f.numbers["hi"] == pytest.approx(shown.max())


def check_roofline(f, s):
    m = pd.read_csv(RESULTS / _machine(f.key, "roofline_") / "metrics.csv")
    m = m[m["protocol"].isin(FAITHFUL)]
    mem = m[m["bound"] == "memory"]
    assert f.numbers["points"] == len(m) and f.numbers["mem"] == len(mem)
    assert f.numbers["compute"] == int((m["bound"] == "compute").sum())
    assert f.numbers["lo"] == pytest.approx(mem["arch eff"].min()) and f.numbers["hi"] == pytest.approx(mem["arch eff"].max())


def check_larger_caches(f, s):
    sheet = pd.read_csv(ROOT / "data" / "machines.csv", comment="#")

    def spec(device: str) -> pd.Series:  # the datasheet row whose model names the device's chip (H100, H200)
        chip = next(w for w in device.split() if w[:1] == "H" and w[1:].isdigit())
        return sheet[sheet["model"].str.contains(chip, regex=False)].iloc[0]

    large, small = spec(f.numbers["large"]), spec(f.numbers["small"])
    assert f.numbers["l2"] == pytest.approx(large["l2_mb"] / small["l2_mb"])
    assert f.numbers["bw"] == pytest.approx(large["hbm_bandwidth_gbs"] / small["hbm_bandwidth_gbs"])
    gpus = s[s["device"].astype(str).isin([f.numbers["large"], f.numbers["small"]]) & (s["protocol"] == "casptr")
             & (s["backend"] == "cuda") & s["dataset"].astype(str).isin(f.scope.datasets)]
    ms = gpus.groupby(["dataset", "device"])["kernel_seconds"].min().unstack()
    ratio = ms[f.numbers["large"]] / ms[f.numbers["small"]]
    assert f.numbers["ms_lo"] == pytest.approx(ratio.min()) and f.numbers["ms_hi"] == pytest.approx(ratio.max())


def check_opencl_cuda(f, s):
    m = s[(s["folder"] == _machine(f.key, "opencl_cuda_")) & s["backend"].isin(["cuda", "opencl"])]
    m = m[~m["run_id"].str.startswith(("bench__", "scaling__"))]
    wide = m.pivot_table(index=["dataset", "protocol"], columns="backend", values="kernel_seconds", aggfunc="first")
    ratio = (wide["opencl"] / wide["cuda"]).dropna()
    for p in ("casptr", "fast"):
        r = ratio.xs(p, level="protocol")
        assert f.numbers[f"{p}_lo"] == pytest.approx(r.min(), rel=1e-6)
        assert f.numbers[f"{p}_hi"] == pytest.approx(r.max(), rel=1e-6)


def check_scaling(f, s):
    m = s[(s["folder"] == f.key.split("_")[1]) & s["run_id"].str.startswith(f"scaling__{f.numbers['dataset']}__")]
    one, top = m[m["gpus"] == 1].iloc[0], m.loc[m["gpus"].idxmax()]
    assert f.numbers["gpus"] == int(top["gpus"]) and f.numbers["runs"] == len(m)
    assert f.numbers["wall"] == pytest.approx(one["wall_seconds"] / top["wall_seconds"])
    assert f.numbers["kernel"] == pytest.approx(one["kernel_seconds"] / top["kernel_seconds"])


def check_xdrop(f, s):
    t = pd.read_csv(RESULTS / _machine(f.key, "xdrop_") / "xdrop" / "times.csv")
    from lassm.analysis.xdrop import checked_records

    t = t.assign(layout=checked_records.load(_machine(f.key, "xdrop_"), "times")["layout"].to_numpy())  # the reader's rule
    key = ["dataset", "xdrop", "scoring"]
    cuda = t[t["backend"] == "cuda"].set_index(key)
    fam = cuda["layout"].str.split("-").str[0]
    for name, rows in cuda.groupby(fam):
        gcups = rows["cells"] / rows["seconds"] / 1e9
        assert f.numbers[f"{name}_lo"] == pytest.approx(gcups.min()) and f.numbers[f"{name}_hi"] == pytest.approx(gcups.max())
    base = "seqan" if (t["backend"] == "seqan").any() else "cpu"
    other = t[t["backend"] == base].set_index(key)
    both = cuda.index.intersection(other.index)
    speed = other.loc[both, "seconds"] / cuda.loc[both, "seconds"]
    assert f.numbers["points"] == len(speed)
    assert f.numbers["lo"] == pytest.approx(speed.min()) and f.numbers["hi"] == pytest.approx(speed.max())


def check_xdrop_logan(f, s):
    t = pd.read_csv(RESULTS / _machine(f.key, "xdrop_logan_") / "xdrop" / "against-logan.csv")
    wide = t.pivot_table(index=["dataset", "xdrop"], columns="program", values="kernel_seconds")
    ratio = (wide["lassm xdrop align cuda"] / wide["LOGAN demo"]).dropna()
    assert f.numbers["points"] == len(ratio)
    assert f.numbers["lo"] == pytest.approx(ratio.min()) and f.numbers["hi"] == pytest.approx(ratio.max())
    logan = t[t["program"] == "LOGAN demo"]
    assert f.numbers["equal"] == int((logan["scores_equal"].astype(str) == "True").sum())


def check_suite_originals(f, s):
    folder = RESULTS / _machine(f.key, "suite_originals_") / "suite"
    o = pd.read_csv(folder / "originals.csv")
    t = pd.read_csv(folder / "times.csv")
    c = pd.read_csv(folder / "counters.csv") if (folder / "counters.csv").is_file() else pd.DataFrame()
    ratios = []
    for r in o.itertuples():
        ok = t[(t["kernel"] == r.kernel) & (t["backend"] == "cuda") & (t["matches_reference"].astype(str) == "True")]
        if ok.empty:
            continue
        best = ok.loc[ok["seconds"].idxmin()]
        prof = c[(c["kernel"] == r.kernel) & (c["backend"] == "cuda") & (c["variant"] == best["variant"])] if len(c) else c
        if pd.notna(getattr(r, "ncu_seconds", float("nan"))) and len(prof):
            ratios.append(float(prof["duration_s"].iloc[0]) / float(r.ncu_seconds))
        elif pd.isna(getattr(r, "ncu_seconds", float("nan"))) and r.kernel not in ("cmap",):
            ratios.append(float(best["seconds"]) / float(r.seconds))
    ratios = pd.Series(ratios)
    assert f.numbers["n"] == len(ratios)
    assert f.numbers["lo"] == pytest.approx(ratios.min()) and f.numbers["hi"] == pytest.approx(ratios.max())
    assert f.numbers["faster"] == int((ratios <= 1).sum())


CHECKS = {"bit_exact": check_bit_exact, "measured_here": check_measured_here, "doneflag_race": check_doneflag_race,
          "fast_side_by_side_": check_fast_side_by_side, "published_": check_published, "roofline_": check_roofline,
          "larger_caches": check_larger_caches, "opencl_cuda_": check_opencl_cuda, "scaling_": check_scaling,
          "xdrop_logan_": check_xdrop_logan, "xdrop_": check_xdrop, "suite_originals_": check_suite_originals}


def _check_for(key: str):
    return next((c for prefix, c in CHECKS.items() if key == prefix or (prefix.endswith("_") and key.startswith(prefix))),
                None)


def test_every_measured_finding_is_rederived(committed):
    missing = [k for k, f in committed.items() if f.measured and f.source.startswith("measured") and not _check_for(k)]
    assert not missing, f"findings without a second derivation from the records: {missing}"


@pytest.mark.parametrize("prefix", list(CHECKS))
def test_numbers_equal_a_second_derivation(committed, summaries, prefix):
    items = [f for k, f in committed.items() if f.measured and _check_for(k) is CHECKS[prefix]]
    if not items:
        pytest.skip(f"no committed finding {prefix}")
    for f in items:
        CHECKS[prefix](f, summaries)
