#!/usr/bin/env python3
"""Prints the ratios and target verdicts of one benchmarks/run.sh result folder.

Usage: summarize.py benchmarks/results/<timestamp>

Reads the JMH JSON files run.sh writes (latency-1.json, latency-8.json, nbody.json), tail.tsv
and idle-cpu.txt. Every number it prints is computed from those files; missing files are reported,
not guessed.
"""
import json
import os
import re
import sys


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        print(f"(missing {name})")
        return []
    with open(path) as f:
        return json.load(f)


def rows(results):
    """(method, params dict, score, error) for every JMH result."""
    out = []
    for r in results:
        method = r["benchmark"].rsplit(".", 1)[1]
        metric = r["primaryMetric"]
        # JMH writes "NaN" (a string) as the error of a single iteration.
        out.append((method, r.get("params", {}), float(metric["score"]), float(metric["scoreError"])))
    return out


def latency(folder):
    data = rows(load(folder, "latency-1.json")) + rows(load(folder, "latency-8.json"))
    if not data:
        return None
    verdict = None
    configs = sorted({(p["body"], int(p["slicesPerThread"]), int(p["threads"])) for _, p, _, _ in data})
    for body, per_thread, threads in configs:
        group = {m: (s, e) for m, p, s, e in data
                 if p["body"] == body and int(p["slicesPerThread"]) == per_thread and int(p["threads"]) == threads}
        print(f"\nfork-join latency: body={body}, {per_thread} slice(s) per thread, threads={threads} (us/op)")
        ideal = None
        if body != "empty" and "serial" in group:
            ideal = group["serial"][0] / threads
            print(f"  ideal = serial / threads = {group['serial'][0]:.2f} / {threads} = {ideal:.2f} us")
        uform = group.get("uformForSlices", (None,))[0]
        for method, (score, error) in sorted(group.items(), key=lambda kv: kv[1][0]):
            line = f"  {method:28s} {score:10.2f} ± {error:7.2f}"
            if uform and method != "uformForSlices":
                line += f"   {score / uform:6.2f}x uformForSlices"
            if ideal and method != "serial":
                line += f"   {100 * (score / ideal - 1):+7.1f}% vs ideal"
            print(line)
        if body == "busy5us" and per_thread == 8 and ideal and uform:
            over = 100 * (uform / ideal - 1)
            verdict = (over, over <= 10)
    return verdict


def tail(folder):
    """Per-fork percentiles (tail.tsv); returns (worst busy p99 / p50 of uform, met)."""
    path = os.path.join(folder, "tail.tsv")
    if not os.path.exists(path):
        print("(missing tail.tsv)")
        return None
    print("\nfork tail latency: every fork timed (us per fork; others: CPU of other processes, % of a core)")
    print(f"  {'case':28s} {'p50':>8s} {'p90':>8s} {'p99':>8s} {'p99.9':>8s} {'max':>9s}  p99/p50  others")
    worst = None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            _, case, p50, p90, p99, p999, top, others = line.rstrip("\n").split("\t")
            ratio = float(p99) / float(p50)
            print(f"  {case:28s} {float(p50):8.2f} {float(p90):8.2f} {float(p99):8.2f} {float(p999):8.2f}"
                  f" {float(top):9.1f}  {ratio:6.2f}x  {others:>6s}")
            if "-busy-" in case and not case.startswith("forkJoin"):
                worst = ratio if worst is None else max(worst, ratio)
    return None if worst is None else (worst, worst <= 1.25)


def nbody(folder):
    data = rows(load(folder, "nbody.json"))
    if not data:
        return None
    group = {m: (s, e) for m, _, s, e in data}
    print("\nn-body, 128 bodies, one step per op (us/op)")
    serial = group.get("serial", (None,))[0]
    for method, (score, error) in sorted(group.items(), key=lambda kv: kv[1][0]):
        line = f"  {method:28s} {score:10.2f} ± {error:7.2f}"
        if serial:
            line += f"   speed-up over serial {serial / score:5.2f}x"
        print(line)
    streams = [group[m][0] for m in ("parallelStreamCommonPool", "parallelStreamOnPool") if m in group]
    if "uformForN" not in group or not streams:
        return None
    ratio = min(streams) / group["uformForN"][0]
    return ratio, ratio >= 1.7


def idle(folder):
    path = os.path.join(folder, "idle-cpu.txt")
    if not os.path.exists(path):
        print("(missing idle-cpu.txt)")
        return None
    with open(path) as f:
        text = f.read()
    print("\nidle CPU (percent of one core)")
    print(text.rstrip())
    match = re.search(r"\): (-?[0-9.]+)% -> (MET|NOT MET)", text)
    return (float(match.group(1)), match.group(2) == "MET") if match else None


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "machine.txt")) as f:
        print(f.read().rstrip())
    lat = latency(folder)
    tl = tail(folder)
    nb = nbody(folder)
    idl = idle(folder)
    print("\ntargets")

    def show(label, value):
        if value is None:
            print(f"  {label}: not measured")
        else:
            print(f"  {label}: {value[0]} -> {'MET' if value[1] else 'NOT MET'}")

    show("n-body uformForN at least 1.7x faster than the faster parallel stream (ratio)",
         None if nb is None else (f"{nb[0]:.2f}x", nb[1]))
    show("busy5us x 8 slices/thread, uformForSlices within 10% of ideal (overhead)",
         None if lat is None else (f"{lat[0]:+.1f}%", lat[1]))
    show("fork tail, every busy uform case's p99 within 1.25x of its p50 (worst p99 / p50)",
         None if tl is None else (f"{tl[0]:.2f}x", tl[1]))
    show("idle CPU of a parked uform pool under 1% of a core",
         None if idl is None else (f"{idl[0]:.2f}%", idl[1]))


if __name__ == "__main__":
    main()
