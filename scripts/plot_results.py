#!/usr/bin/env python3
"""Draws rate vs n, kspd beside its peer, from perf_tests results.

Needs matplotlib (Debian: apt-get install python3-matplotlib; not in setup-debian.sh, which
only installs what building and testing need).

Input: the benchmarks' text rows as committed in perf_tests/results/*.md|*.txt, e.g.
  d trsm LLN n=  4096 nrhs=  4096  vendor 3.214 ms 21.38 TF | kspd 2.752 ms 24.97 TF | speedup 1.17x
  s pftrf  n= 4096 | kspd 4.420 ms 5.18 TF 0.064 GiB | cuSOLVER potrf 1.636 ms 14.00 TF ...
  d potrf  n= 2 nrhs= 0 batch= 1000 kspd 0.0113 ms 0.2 GF/s ... | cusolverBatched 0.0214 ms ratio 1.88x
(a peer with a time but no rate gets kspd's rate scaled by the time ratio: same flop count),
or CSV files (--csv) with the columns prec,op,variant,n,nrhs,batch,impl,ms,gflops, which is
also what --csv-out writes for the selected rows.

  perf_rfp_sweep --csv rfp.csv   (perf_rfp_sweep writes this CSV directly)
  python3 scripts/plot_results.py perf_tests/results/h100-rfp-2026-11-22.md --op pftrf \\
      --title "RFP pftrf, H100" --out perf_tests/results/h100-rfp-pftrf.png
"""
import argparse, csv, re, sys, textwrap

HEAD = re.compile(r"^([sdcz]) (\w+)(?: ([LRUN]{3}))?\s+n=\s*(\d+)")
KEY = re.compile(r"(nrhs|batch)=\s*(\d+)")
ENTRY = re.compile(r"(?:^|\||\s)\s*([A-Za-z][\w\-]*(?: [a-z]\w*)?)\s+([\d.]+) ms(?:\s+([\d.]+) (TF|GF/s))?")
FIELDS = ["prec", "op", "variant", "n", "nrhs", "batch", "impl", "ms", "gflops"]


def parse_text(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        m = HEAD.match(line.strip())
        if not m:
            continue
        prec, op, variant, n = m.group(1), m.group(2), m.group(3) or "", int(m.group(4))
        keys = dict((k, int(v)) for k, v in KEY.findall(line))
        body = line[m.end():]
        entries = []
        for name, ms, rate, unit in ENTRY.findall(body):
            if name in ("ratio", "speedup"):
                continue
            g = float(rate) * (1000.0 if unit == "TF" else 1.0) if rate else None
            entries.append([name, float(ms), g])
        if not entries:
            continue
        ref = next((e for e in entries if e[2] is not None), None)
        for e in entries:
            if e[2] is None and ref is not None and e[1] > 0:
                e[2] = ref[2] * ref[1] / e[1]  # same flops: rate scales with 1/time
            rows.append(dict(prec=prec, op=op, variant=variant, n=n, nrhs=keys.get("nrhs", -1),
                             batch=keys.get("batch", -1), impl=e[0], ms=e[1], gflops=e[2]))
    return rows


def parse_csv(path):
    rows = []
    for r in csv.DictReader(open(path, encoding="utf-8")):
        for k in ("n", "nrhs", "batch"):
            r[k] = int(r[k])
        r["ms"], r["gflops"] = float(r["ms"]), float(r["gflops"])
        rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="results tables (.md/.txt)")
    ap.add_argument("--csv", action="append", default=[], help="CSV input (columns: %s)" % ",".join(FIELDS))
    ap.add_argument("--op", required=True, help="operation, e.g. pftrf, trsm, potrf")
    ap.add_argument("--prec", default="s,d", help="precisions to draw (s,d,c,z)")
    ap.add_argument("--variant", help="e.g. LLN (core)")
    ap.add_argument("--nrhs", help="'n' (square: nrhs = n) or a number")
    ap.add_argument("--batch", type=int, help="batch size (batched)")
    ap.add_argument("--impl", help="comma list of implementations to keep (default: all)")
    ap.add_argument("--title", default="")
    ap.add_argument("--out", required=True, help="PNG to write")
    ap.add_argument("--csv-out", help="also write the selected rows as CSV")
    a = ap.parse_args()
    rows = [r for f in a.files for r in parse_text(f)] + [r for f in a.csv for r in parse_csv(f)]
    keep = lambda r: (r["op"] == a.op and r["prec"] in a.prec.split(",")
                      and (a.variant is None or r["variant"] == a.variant)
                      and (a.nrhs is None or r["nrhs"] == (r["n"] if a.nrhs == "n" else int(a.nrhs)))
                      and (a.batch is None or r["batch"] == a.batch)
                      and (a.impl is None or r["impl"] in a.impl.split(",")))
    sel = [r for r in rows if keep(r)]
    if not sel:
        sys.exit("plot_results.py: no rows match (parsed %d rows)" % len(rows))
    if a.csv_out:
        with open(a.csv_out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
            w.writeheader()
            w.writerows({k: r[k] for k in FIELDS} for r in sel)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = {}
    for r in sel:  # the last row of a (series, n) wins: a later run replaces an earlier one
        series.setdefault((r["prec"], r["impl"]), {})[r["n"]] = r["gflops"]
    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=90)
    colors = {"s": "tab:blue", "d": "tab:red", "c": "tab:green", "z": "tab:purple"}
    for (prec, impl), pts in sorted(series.items()):
        ns = sorted(pts)
        style = "-o" if impl.startswith("kspd") else "--s"  # kspd solid, the peer dashed
        ax.plot(ns, [pts[n] for n in ns], style, ms=4, color=colors.get(prec),
                label="%s %s" % ({"s": "fp32", "d": "fp64", "c": "c64", "z": "c128"}.get(prec, prec), impl))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("\n".join(textwrap.wrap(a.title, 60)), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out)
    print("plot_results.py: %d rows, %d series -> %s" % (len(sel), len(series), a.out))


if __name__ == "__main__":
    main()
