# SPDX-License-Identifier: BSD-3-Clause
"""The GPUs of the study: a spec table with sources, derived ceilings, and CuPy microbenchmarks.

``data/machines.csv`` holds one row per device (one MI250X GCD, one Max 1550 stack, as the paper
used them), every figure with its source. Derived: lane peak [INT32 ops/s] = compute_units *
int32_lanes_per_cu * boost_clock (thread-level); issue peak [SIMD inst/s] = compute_units *
simd_issue_per_cu_per_clock * boost_clock (warp-level, doi:10.1109/PMBS49563.2019.00007).

The measurements need CuPy and a GPU, imported only inside them. On Hopper the spec's lane peak
is what an IMAD-only chain reaches, not the integer ceiling: IMAD issues to the FMA pipe, and the
``mixed`` variant (IMAD plus ALU ops) can reach ncu's ``..._integer_pred_on.sum.peak_sustained``.
Which roof to draw is the caller's choice; both are measurable."""
from __future__ import annotations

import math
import time
from typing import Any

from ..errors import BackendUnavailable, LassmError

#: Columns machines.csv must have.
MACHINE_COLUMNS: tuple[str, ...] = (
    "machine", "vendor", "model", "scope", "compute_units", "cu_kind", "int32_lanes_per_cu",
    "simd_issue_per_cu_per_clock", "simd_width", "boost_clock_ghz", "hbm_bandwidth_gbs", "hbm_gb",
    "l2_mb", "transaction_bytes", "paper_platform", "source",
)
_NUMERIC = ("compute_units", "int32_lanes_per_cu", "simd_issue_per_cu_per_clock", "simd_width",
            "boost_clock_ghz", "hbm_bandwidth_gbs", "hbm_gb", "l2_mb", "transaction_bytes")


def load_machines(path: str | None = None):
    """The spec table (``data/machines.csv`` or ``path``) with derived ceilings: ``lane_peak_gops``,
    ``issue_peak_gips``, and ``balance_lane``, ``balance_issue`` (ops per HBM byte at each ridge).
    ``ValueError`` when a column is missing, a number is not positive, or a row has no source."""
    import pandas as pd

    from ..datafiles import data_csv, read_data_csv

    df = read_data_csv(path or data_csv("machines.csv"))
    missing = [c for c in MACHINE_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"machines.csv lacks the columns {missing}")
    for c in _NUMERIC:
        df[c] = pd.to_numeric(df[c], errors="raise").astype("float64")
        if not (df[c] > 0).all():
            raise ValueError(f"machines.csv: {c} must be positive in every row")
    if df["source"].isna().any() or (df["source"].astype(str).str.strip() == "").any():
        raise ValueError("machines.csv: every row needs a source")
    if df["machine"].duplicated().any():
        raise ValueError("machines.csv: machine names must be unique")
    df["paper_platform"] = df["paper_platform"].astype("object").where(df["paper_platform"].notna(), None)
    df["lane_peak_gops"] = df["compute_units"] * df["int32_lanes_per_cu"] * df["boost_clock_ghz"]
    df["issue_peak_gips"] = df["compute_units"] * df["simd_issue_per_cu_per_clock"] * df["boost_clock_ghz"]
    df["balance_lane"] = df["lane_peak_gops"] / df["hbm_bandwidth_gbs"]
    df["balance_issue"] = df["issue_peak_gips"] / df["hbm_bandwidth_gbs"]
    return df


def machine(name: str) -> dict[str, Any]:
    """One row of the spec table as a dict, derived ceilings included, by machine name
    (``A100-40GB``...) or paper platform (``NVIDIA``...); :class:`LassmError` when none matches."""
    df = load_machines()
    hit = df[(df["machine"] == name) | (df["paper_platform"] == name)]
    if hit.empty:
        raise LassmError(f"unknown machine {name!r}; machines.csv has {', '.join(df['machine'])}")
    return hit.iloc[0].to_dict()


def roofs(machines=None, level: str = "lane"):
    """A roofs table for :func:`lassm.analysis.roofline.roofline_table`, one compute and one HBM roof
    per machine (default: all): ``roof``, ``peak`` [G ops/s], ``bandwidth`` [GB/s], ``source``.
    ``level`` is ``"lane"`` (INT32 lane peak) or ``"issue"`` (SIMD-instruction issue peak)."""
    import pandas as pd

    if level not in ("lane", "issue"):
        raise ValueError(f"level must be 'lane' or 'issue', not {level!r}")
    m = load_machines() if machines is None else machines
    peak = m["lane_peak_gops"] if level == "lane" else m["issue_peak_gips"]
    return pd.DataFrame({"roof": m["machine"].astype(str), "peak": peak.astype("float64"),
                         "bandwidth": m["hbm_bandwidth_gbs"].astype("float64"),
                         "source": m["source"].astype(str)}).reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# Microbenchmarks (CuPy; run only on a GPU)

#: Integer throughput kernel: CHAINS independent chains per thread, UNROLL dependent steps per
#: loop trip. A step is x = x * a + b (one IMAD, 1 op); with MIXED=1 also y = (y ^ a) + b (a LOP3
#: and an IADD3, 2 ops), which lets the ALU pipe work beside the IMAD pipe. -D options override.
_INT32_SOURCE = r"""
#ifndef CHAINS
#define CHAINS 4
#endif
#ifndef UNROLL
#define UNROLL 16
#endif
#ifndef MIXED
#define MIXED 0
#endif
extern "C" __global__ void int32_chain(unsigned int* out, unsigned int a, unsigned int b, int trips) {
    unsigned int x[CHAINS], y[CHAINS];
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c) { x[c] = threadIdx.x + c * blockIdx.x; y[c] = x[c] ^ b; }
    for (int t = 0; t < trips; ++t) {
        #pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            #pragma unroll
            for (int c = 0; c < CHAINS; ++c) { x[c] = x[c] * a + b; if (MIXED) y[c] = (y[c] ^ a) + b; }
        }
    }
    unsigned int acc = 0;
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c) acc ^= x[c] ^ (MIXED ? y[c] : 0u);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""
#: Ops one step of one chain counts, by kernel variant.
_OPS_PER_STEP = {"imad": 1, "mixed": 3}


def _cupy():
    try:
        import cupy as cp  # noqa: F401
    except ImportError as exc:
        raise BackendUnavailable(f"CuPy is not installed ({exc}); install it with: pip install 'lassm[cuda12]'") from None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise BackendUnavailable("CuPy sees no GPU")
    except cp.cuda.runtime.CUDARuntimeError as exc:
        raise BackendUnavailable(f"CuPy sees no GPU: {exc}") from None
    return cp


def _device_info(cp) -> dict[str, Any]:
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return {"device": name, "device_id": int(dev.id), "multiprocessors": int(props["multiProcessorCount"]),
            "l2_bytes": int(props.get("l2CacheSize", 0)), "warp_size": int(props.get("warpSize", 0))}


def _time_ms(cp, fn, repeats: int) -> list[float]:
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return times


def measure_int32_throughput(*, variant: str = "imad", blocks_per_sm: int = 8, threads_per_block: int = 256,
                             trips: int = 4096, chains: int = 4, unroll: int = 16, repeats: int = 5) -> dict[str, Any]:
    """Sustained INT32 throughput: dependent integer chains across many threads.

    Each thread runs ``chains`` independent chains of ``trips * unroll`` dependent steps; a step is
    ``x = x * a + b`` (``imad``: one lane op) or that plus ``y = (y ^ a) + b`` (``mixed``: three).
    ``blocks_per_sm`` must give enough warps to hide the IMAD latency. The best of ``repeats`` timed
    launches after a warm-up gives ``int32_gops``; also ``int32_gops_median``, ``ops``, ``seconds``,
    the geometry, the variant and the device properties. :class:`BackendUnavailable` without CuPy
    or a GPU."""
    import numpy as np

    if variant not in _OPS_PER_STEP:
        raise ValueError(f"variant must be one of {sorted(_OPS_PER_STEP)}, not {variant!r}")
    cp = _cupy()
    info = _device_info(cp)
    options = (f"-DCHAINS={int(chains)}", f"-DUNROLL={int(unroll)}", f"-DMIXED={int(variant == 'mixed')}")
    module = cp.RawModule(code=_INT32_SOURCE, options=options)
    kernel = module.get_function("int32_chain")
    blocks = int(info["multiprocessors"] * blocks_per_sm)
    out = cp.empty(blocks * threads_per_block, dtype=cp.uint32)
    args = (out, np.uint32(0x5BD1E995), np.uint32(0x3FB0BB5F), np.int32(trips))

    def launch() -> None:
        kernel((blocks,), (threads_per_block,), args)

    launch()
    cp.cuda.Device().synchronize()
    times = _time_ms(cp, launch, repeats)
    ops = float(blocks) * threads_per_block * chains * trips * unroll * _OPS_PER_STEP[variant]
    best = min(times) / 1e3
    med = float(np.median(times)) / 1e3
    return {**info, "benchmark": "int32_chain", "variant": variant, "blocks": blocks,
            "threads_per_block": int(threads_per_block), "chains": int(chains), "unroll": int(unroll),
            "trips": int(trips), "ops": ops, "seconds": best, "seconds_median": med,
            "int32_gops": ops / best / 1e9, "int32_gops_median": ops / med / 1e9, "repeats": int(repeats),
            "checksum": int(out[:1024].sum().get())}


def measure_hbm_bandwidth(*, nbytes: int = 1 << 30, repeats: int = 10) -> dict[str, Any]:
    """HBM bandwidth of a device-to-device copy of ``nbytes``, counting ``2 * nbytes`` (read + write).

    Both ``cupy.copyto`` and the runtime's ``memcpy`` are timed ``repeats`` times after a warm-up;
    the buffers are far larger than any L2. Returns ``hbm_gbs`` (best of both), ``copy_kernel_gbs``,
    ``memcpy_gbs``, the bytes per copy and the device properties. :class:`BackendUnavailable`
    without CuPy or a GPU."""
    import numpy as np

    cp = _cupy()
    info = _device_info(cp)
    n = int(nbytes) // 4
    src = cp.arange(n, dtype=cp.uint32)
    dst = cp.empty_like(src)
    moved = 2.0 * n * 4

    def kernel_copy() -> None:
        cp.copyto(dst, src)

    def runtime_copy() -> None:
        dst.data.copy_from_device_async(src.data, n * 4)

    results = {}
    for name, fn in (("copy_kernel", kernel_copy), ("memcpy", runtime_copy)):
        fn()
        cp.cuda.Device().synchronize()
        times = _time_ms(cp, fn, repeats)
        results[name] = moved / (min(times) / 1e3) / 1e9
        results[name + "_median"] = moved / (float(np.median(times)) / 1e3) / 1e9
    if not bool((dst[-4:] == src[-4:]).all().get()):
        raise LassmError("device copy produced a wrong result")
    return {**info, "benchmark": "d2d_copy", "bytes_per_copy": moved, "repeats": int(repeats),
            "copy_kernel_gbs": results["copy_kernel"], "memcpy_gbs": results["memcpy"],
            "copy_kernel_gbs_median": results["copy_kernel_median"], "memcpy_gbs_median": results["memcpy_median"],
            "hbm_gbs": max(results["copy_kernel"], results["memcpy"])}


def measure(**kwargs: Any) -> dict[str, Any]:
    """Both microbenchmarks (``int32`` and ``hbm`` keyword dicts passed on), with a time stamp:
    ``{"int32", "int32_mixed", "hbm", "measured_at"}``, the dict stored per machine."""
    return {"int32": measure_int32_throughput(**kwargs.get("int32", {})),
            "int32_mixed": measure_int32_throughput(variant="mixed", **kwargs.get("int32", {})),
            "hbm": measure_hbm_bandwidth(**kwargs.get("hbm", {})), "measured_at": math.floor(time.time())}


__all__ = ["MACHINE_COLUMNS", "load_machines", "machine", "measure", "measure_hbm_bandwidth",
           "measure_int32_throughput", "roofs"]
