"""Charts (PNG and SVG, matplotlib): grouped bars of query times per kind on
a log scale, size bars per kind, and the codec study.  Kinds without
measurements (unavailable, failed) are left out rather than drawn as zero.
"""
from .kinds import BY_KEY, HEAP
from .report import MIB

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # charts are skipped with a note (see cli)
    plt = None

_FALLBACK = ["#c44e52", "#64b5cd", "#da8bc3", "#8c8c8c", "#ccb974"]


def available() -> bool:
    return plt is not None


def _color(kind: str, i: int) -> str:
    base = kind.split(":")[0]
    return BY_KEY[base].color if base in BY_KEY else _FALLBACK[i % len(_FALLBACK)]


def _save(fig, out, name) -> str:
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(out / f"{name}.{ext}", dpi=120)
    plt.close(fig)
    return f"{name}.png"


def query_chart(out, res, suite: str, mode: str, title: str) -> str | None:
    ts = [t for t in res.timings if t.suite == suite and t.mode == mode and t.status == "ok"]
    if not ts:
        return None
    qids = list(dict.fromkeys(t.qid for t in res.timings if t.suite == suite and t.mode == mode))
    kinds = list(dict.fromkeys(t.kind for t in ts))
    by = {(t.qid, t.kind): t for t in ts}
    width = 0.8 / len(kinds)
    fig, ax = plt.subplots(figsize=(min(24, max(8, 2 + 0.2 * len(qids) * max(2, len(kinds)))), 5))
    for i, kind in enumerate(kinds):
        xs, ys, lo, hi = [], [], [], []
        for j, q in enumerate(qids):
            t = by.get((q, kind))
            if t is None:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(t.median)
            lo.append(t.median - t.min)
            hi.append(t.max - t.median)
        ax.bar(xs, ys, width, label=kind, color=_color(kind, i), yerr=[lo, hi],
               error_kw={"elinewidth": 0.7, "capsize": 1.5})
    ax.set_yscale("log")
    ax.set_xticks(range(len(qids)))
    ax.set_xticklabels(qids, rotation=0 if len(qids) <= 24 else 90)
    ax.set_ylabel("median time, ms (log scale; bars show min–max)")
    ax.set_title(title)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize="small", ncol=len(kinds))
    return _save(fig, out, f"{suite}_{mode}")


def size_chart(out, res, suite: str, title: str) -> str | None:
    totals = {}
    for ld in res.loads:
        if ld.suite == suite:
            tot, data = totals.get(ld.kind, (0, 0))
            totals[ld.kind] = (tot + ld.total_bytes, data + ld.data_bytes)
    if not totals:
        return None
    kinds = list(totals)
    fig, ax = plt.subplots(figsize=(max(5, 1.4 * len(kinds)), 4))
    xs = range(len(kinds))
    ax.bar([x - 0.2 for x in xs], [totals[k][0] / MIB for k in kinds], 0.4,
           label="total (with indexes)", color=[_color(k, i) for i, k in enumerate(kinds)])
    ax.bar([x + 0.2 for x in xs], [totals[k][1] / MIB for k in kinds], 0.4,
           label="data only", color=[_color(k, i) for i, k in enumerate(kinds)], alpha=0.55,
           hatch="//")
    for x, k in zip(xs, kinds):
        ax.annotate(f"{totals[k][0] / MIB:,.0f}", (x - 0.2, totals[k][0] / MIB), ha="center",
                    va="bottom", fontsize="small")
        ax.annotate(f"{totals[k][1] / MIB:,.0f}", (x + 0.2, totals[k][1] / MIB), ha="center",
                    va="bottom", fontsize="small")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(kinds)
    ax.set_ylabel("MiB")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out, f"{suite}_sizes")


def codec_chart(out, res) -> str | None:
    ok = [c for c in res.codecs if c.status == "ok"]
    if len(ok) < 2:  # heap alone says nothing
        return None
    labels = [c.label for c in ok]
    colors = [BY_KEY[HEAP.key].color if c.label == "heap" else BY_KEY["colcompress"].color for c in ok]
    panels = [("data size, MiB", [c.data_bytes / MIB for c in ok]),
              ("load time, s", [c.load_s for c in ok]),
              ("total query time, s", [c.query_s or 0 for c in ok])]
    fig, axes = plt.subplots(1, 3, figsize=(min(16, max(10, 0.6 * len(ok) * 3)), 4.2))
    for ax, (name, vals) in zip(axes, panels):
        ax.bar(labels, vals, color=colors)
        for i, v in enumerate(vals):
            ax.annotate(f"{v:,.1f}", (i, v), ha="center", va="bottom", fontsize="x-small")
        ax.set_title(name)
        ax.tick_params(axis="x", rotation=45)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("TPC-H in colcompress: codec × level (heap for reference)")
    return _save(fig, out, "codecs")
