#!/usr/bin/env python3
"""Draws rate vs n, kspd beside its peer, from perf_tests results.

Needs matplotlib (Debian: apt-get install python3-matplotlib; not in setup-debian.sh, which
only installs what building and testing need).

Input: the benchmarks' text rows as committed in perf_tests/results/*.md|*.txt, e.g.
  d trsm LLN n=  4096 nrhs=  4096  vendor 3.214 ms 21.38 TF | kspd 2.752 ms 24.97 TF | speedup 1.17x
  s pftrf  n= 4096 | kspd 4.420 ms 5.18 TF 0.064 GiB | cuSOLVER potrf 1.636 ms 14.00 TF ...
  d potrf  n= 2 nrhs= 0 batch= 1000 kspd 0.0113 ms 0.2 GF/s ... | cusolverBatched 0.0214 ms ratio 1.88x
(a peer with a time but no rate gets kspd's rate scaled by the time ratio: same flop count),
or CSV files (--csv) with the columns prec,op,variant,n,nrhs,batch,impl,ms,gflops, which every
benchmark in perf_tests/ writes with its own --csv FILE option (perf_tests/common/kspd_perf_csv.hpp)
and which --csv-out writes for the selected rows. An empty gflops (no flop count) draws time.

  perf_rfp_sweep --csv rfp.csv
  python3 scripts/plot_results.py --csv rfp.csv --all perf_tests/results/ --prefix cpu-rfp
      (one PNG per sweep: rows of one op, variant, nrhs and batch over n, every implementation)
  python3 scripts/plot_results.py perf_tests/results/h100-rfp-2026-11-22.md --op pftrf \\
      --title "RFP pftrf, H100" --out perf_tests/results/h100-rfp-pftrf.png
  python3 scripts/plot_results.py --check rfp.csv        (parse and validate only; no matplotlib)
  python3 scripts/plot_results.py --run-check out.csv -- perf_dense --smoke
      (CTest: runs the benchmark with --csv out.csv appended, then checks the CSV)
"""
import argparse, csv, math, os, re, subprocess, sys, textwrap

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
    """Rows of a benchmark CSV; raises ValueError naming the file, line and field on a bad one."""
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        rd = csv.DictReader(f)
        if rd.fieldnames != FIELDS:
            raise ValueError("%s: header %s, expected %s" % (path, rd.fieldnames, ",".join(FIELDS)))
        for r in rd:
            where = "%s:%d" % (path, rd.line_num)
            if None in r or any(r[k] is None for k in FIELDS):
                raise ValueError("%s: expected %d fields" % (where, len(FIELDS)))
            try:
                for k in ("n", "nrhs", "batch"):
                    r[k] = int(r[k])
                r["ms"] = float(r["ms"])
                r["gflops"] = float(r["gflops"]) if r["gflops"] != "" else None
            except ValueError as e:
                raise ValueError("%s: %s" % (where, e))
            if not (math.isfinite(r["ms"]) and r["ms"] >= 0):
                raise ValueError("%s: time %r ms is not a finite non-negative number" % (where, r["ms"]))
            if r["gflops"] is not None and not (math.isfinite(r["gflops"]) and r["gflops"] > 0):
                raise ValueError("%s: rate %r GFLOP/s is not a positive number" % (where, r["gflops"]))
            if not r["prec"] or not r["op"] or not r["impl"] or r["n"] < -1:
                raise ValueError("%s: empty prec/op/impl or bad n" % where)
            rows.append(r)
    return rows


def check(paths):
    """--check: every CSV parses and holds at least one row."""
    for p in paths:
        rows = parse_csv(p)
        if not rows:
            raise ValueError("%s: no result rows" % p)
        print("plot_results.py: %s: %d rows, ops %s, implementations %s" % (
            p, len(rows), ",".join(sorted(set(r["op"] for r in rows))), ",".join(sorted(set(r["impl"] for r in rows)))))


def sweeps(rows):
    """Rows grouped into sweeps: one op, variant, nrhs and batch over n. Groups of a single n
    (sparse benchmarks: the variant is the matrix) are merged per op, n being the matrix size."""
    groups = {}
    for r in rows:
        groups.setdefault((r["op"], r["variant"], r["nrhs"] if r["nrhs"] != r["n"] else -2, r["batch"]), []).append(r)
    out, single = {}, {}
    for k, g in groups.items():
        if len(set(r["n"] for r in g)) > 1:
            out[k] = g
        else:
            single.setdefault((k[0], "", -1, -1), []).extend(g)
    out.update(single)
    return out


def draw(sel, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rate = all(r["gflops"] is not None for r in sel)
    series = {}
    for r in sel:  # the last row of a (series, n) wins: a later run replaces an earlier one
        series.setdefault((r["prec"], r["impl"]), {})[r["n"]] = r["gflops"] if rate else r["ms"]
    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=90)
    colors = {"s": "tab:blue", "d": "tab:red", "c": "tab:green", "z": "tab:purple", "m": "tab:orange"}
    peers = sorted(set(impl for _, impl in series if not impl.startswith("kspd")))
    marks = "so^vDP*X"
    # Points of different cases (sparse: one matrix per n) are not a curve: markers only, each
    # n labelled with its case.
    cases = {}
    for r in sel:
        cases.setdefault(r["n"], set()).add(r["variant"])
    scatter = len(set(r["variant"] for r in sel)) > 1 and all(len(v) == 1 for v in cases.values())
    for (prec, impl), pts in sorted(series.items()):
        ns = sorted(pts)
        # kspd solid, each peer dashed with its own marker
        style = "-o" if impl.startswith("kspd") else "--" + marks[peers.index(impl) % len(marks)]
        if scatter:
            style = style.lstrip("-")
        ax.plot(ns, [pts[n] for n in ns], style, ms=4, color=None if len(set(p for p, _ in series)) == 1 else colors.get(prec),
                label="%s %s" % ({"s": "fp32", "d": "fp64", "c": "c64", "z": "c128", "m": "mixed"}.get(prec, prec), impl))
    if scatter:
        top = {}
        for r in sel:
            v = r["gflops"] if rate else r["ms"]
            top[r["n"]] = max(top.get(r["n"], v), v)
        for n, v in top.items():
            ax.annotate(next(iter(cases[n])), (n, v), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=6)
    ns_all = sorted(set(r["n"] for r in sel))
    if ns_all and ns_all[0] > 0 and ns_all[-1] / ns_all[0] >= 8:
        ax.set_xscale("log", base=2)
    if not rate:
        ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("GFLOP/s" if rate else "time (ms, lower is better)")
    ax.set_title("\n".join(textwrap.wrap(title, 60)), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print("plot_results.py: %d rows, %d series -> %s" % (len(sel), len(series), path))


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()


def main():
    if "--run-check" in sys.argv[1:2]:  # --run-check CSV -- command...
        argv = sys.argv[1:]
        if len(argv) < 4 or argv[2] != "--":
            sys.exit("usage: plot_results.py --run-check OUT.csv -- COMMAND [ARGS...]")
        out = argv[1]
        if os.path.exists(out):
            os.remove(out)
        rc = subprocess.call(argv[3:] + ["--csv", out])
        if rc != 0:
            sys.exit("plot_results.py: %s exited with %d" % (argv[3], rc))
        try:
            check([out])
        except (OSError, ValueError) as e:
            sys.exit("plot_results.py: %s" % e)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="results tables (.md/.txt)")
    ap.add_argument("--csv", action="append", default=[], help="CSV input (columns: %s)" % ",".join(FIELDS))
    ap.add_argument("--check", action="store_true", help="only parse and validate the --csv files")
    ap.add_argument("--all", metavar="DIR", help="one PNG per sweep into DIR (instead of --op/--out)")
    ap.add_argument("--prefix", default="", help="file name prefix of the --all PNGs")
    ap.add_argument("--op", help="operation, e.g. pftrf, trsm, potrf")
    ap.add_argument("--prec", default="s,d,c,z,m", help="precisions to draw (s,d,c,z,m)")
    ap.add_argument("--variant", help="e.g. LLN (core)")
    ap.add_argument("--nrhs", help="'n' (square: nrhs = n) or a number")
    ap.add_argument("--batch", type=int, help="batch size (batched)")
    ap.add_argument("--impl", help="comma list of implementations to keep (default: all)")
    ap.add_argument("--title", default="")
    ap.add_argument("--out", help="PNG to write")
    ap.add_argument("--csv-out", help="also write the selected rows as CSV")
    a = ap.parse_args()
    try:
        if a.check:
            check(a.csv)
            return
        rows = [r for f in a.files for r in parse_text(f)] + [r for f in a.csv for r in parse_csv(f)]
    except (OSError, ValueError) as e:
        sys.exit("plot_results.py: %s" % e)
    keep = lambda r: ((a.op is None or r["op"] == a.op) and r["prec"] in a.prec.split(",")
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
            w.writerows({k: ("" if r[k] is None else r[k]) for k in FIELDS} for r in sel)
    if a.all:
        os.makedirs(a.all, exist_ok=True)
        for (op, variant, nrhs, batch), g in sorted(sweeps(sel).items(), key=lambda kv: str(kv[0])):
            parts = [op] + ([variant] if variant else []) + (["nrhs %d" % nrhs] if nrhs >= 0 else ["nrhs n"] if nrhs == -2 else []) \
                + (["batch %d" % batch] if batch >= 0 else [])
            title = ((a.title + ": ") if a.title else "") + ", ".join(parts)
            draw(g, title, os.path.join(a.all, "-".join(x for x in [a.prefix, slug(" ".join(parts))] if x) + ".png"))
        return
    if a.op is None or a.out is None:
        sys.exit("plot_results.py: give --op and --out (one plot), --all DIR (one per sweep) or --check")
    draw(sel, a.title, a.out)


if __name__ == "__main__":
    main()
