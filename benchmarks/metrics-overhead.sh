#!/usr/bin/env bash
# What the starter's Micrometer binders cost a fork (issue 10's target: under 2% slower), in two
# parts, both MetricsOverheadBenchmark:
#
# 1. The target: `alternating`. One executor forks in blocks of 500, alternately with its meters
#    bound to a registry and without them, each block timed on its own, inside one JVM. Two JMH
#    trials minutes apart differ by more than 2% on a shared machine (an empty 2-thread fork took
#    0.22 us in one trial and 0.7-0.9 us ten minutes later, same jar), and so do two executors in one
#    JVM (the scheduler places their threads differently); blocks of one executor a few hundred
#    microseconds apart do not. Every measured iteration gives one ratio, bound time / bare time; the
#    verdict is the median of all of them over FORKS JVMs, with a distribution-free 95% interval.
#    `-p boundPenalty=10` (about 17 ns more per bound fork, 2% of an empty one) checks that the
#    method sees a slowdown of the size looked for.
# 2. The scrape's cost: `forN` in interleaved rounds, each variant once per round in a fresh JVM,
#    the order rotating, reported as per-round ratios to `off`:
#      off       a bare executor
#      bound     bound to a registry that is never read (part 1's question again, between JVMs)
#      on:<ms>   bound, and a thread reading every meter every <ms> milliseconds (Prometheus' usual
#                interval is 15000), competing with the fork for the cores
#
# Settings (environment variables):
#   FORKS=5                   JVMs for part 1 (10 measured iterations each)
#   PENALTY=0                 part 1's boundPenalty; 10 checks that the method sees 2%
#   VARIANTS="off bound on:1000 on:100"   ROUNDS=6 (0 skips part 2)   BODIES="empty busy5us"
#   THREADS=2                 threads of the forking executor, the caller included
#   WI=3 W=1s I=5 R=1s        JMH warm-up and measured iterations per part-2 run
#   SKIP_BUILD=1              reuse benchmarks/target/benchmarks.jar
#   JAVA_HOME                 the JDK to build and run with (else `java` on PATH)
#   OUT=<dir>                 where alternating.log, runs.csv, summary.txt and machine.txt go
#                             (default: a new benchmarks/results/<UTC timestamp>-metrics-overhead/)
# Run it on an otherwise idle machine; about 2.5 + 0.75 * ROUNDS minutes with the defaults.
# Needs python3 for the summary (the logs and runs.csv are written without it).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
FORKS=${FORKS:-5}
PENALTY=${PENALTY:-0}
VARIANTS=${VARIANTS:-off bound on:1000 on:100}
BODIES=${BODIES:-empty busy5us}
ROUNDS=${ROUNDS:-6}
THREADS=${THREADS:-2}
WI=${WI:-3}
W=${W:-1s}
I=${I:-5}
R=${R:-1s}
if [[ -n "${JAVA_HOME:-}" ]]; then
	JAVA="$JAVA_HOME/bin/java"
else
	JAVA=java
fi
OUT=${OUT:-$ROOT/benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-metrics-overhead}
mkdir -p "$OUT"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
	./mvnw -B -q -Pbench -pl benchmarks -am package -DskipTests
fi
JAR=$ROOT/benchmarks/target/benchmarks.jar
[[ -f "$JAR" ]] || { echo "no $JAR: build it (drop SKIP_BUILD)" >&2; exit 1; }

{
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "java: $("$JAVA" -version 2>&1 | head -1)"
	echo "cpus: $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "settings: FORKS=$FORKS PENALTY=$PENALTY VARIANTS='$VARIANTS' BODIES='$BODIES' ROUNDS=$ROUNDS THREADS=$THREADS WI=$WI W=$W I=$I R=$R"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# Part 1: the alternating blocks.
"$JAVA" -jar "$JAR" 'MetricsOverheadBenchmark.alternating' -f "$FORKS" -wi 5 -w 1s -i 10 -r 1s \
	-p threads="$THREADS" -p body="$(echo $BODIES | tr ' ' ,)" -p sliceIterations=2900 -p boundPenalty="$PENALTY" > "$OUT/alternating.log" 2>&1 \
	|| { tail -40 "$OUT/alternating.log" >&2; echo "the alternating benchmark failed" >&2; exit 1; }
grep -E '^# Parameters|^bound/bare over' "$OUT/alternating.log"

# Part 2: the interleaved rounds.
read -r -a variants <<< "$VARIANTS"
echo "round,body,variant,score_us,error_us,load" > "$OUT/runs.csv"
for round in $(seq 1 "$ROUNDS"); do
	for body in $BODIES; do
		n=${#variants[@]}
		for k in $(seq 0 $((n - 1))); do
			variant=${variants[$(((k + round) % n))]}
			metrics=${variant%%:*}
			scrape=100
			[[ "$variant" == *:* ]] && scrape=${variant#*:}
			load=$(cut -d' ' -f1 /proc/loadavg)
			rm -f "$OUT/last.csv"
			"$JAVA" -jar "$JAR" 'MetricsOverheadBenchmark.forN' -f 1 -wi "$WI" -w "$W" -i "$I" -r "$R" \
				-p threads="$THREADS" -p body="$body" -p metrics="$metrics" -p scrapeMillis="$scrape" \
				-p sliceIterations=2900 -rf csv -rff "$OUT/last.csv" > "$OUT/last.log" 2>&1 \
				|| { cat "$OUT/last.log" >&2; echo "round $round $body $variant: JMH failed" >&2; exit 1; }
			# JMH's CSV: "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit",...
			line=$(awk -F, 'NR == 2 {gsub(/"/, ""); print $5 "," ($6 == "NaN" ? "" : $6)}' "$OUT/last.csv")
			[[ -n "$line" ]] || { cat "$OUT/last.log" >&2; echo "round $round $body $variant: no result" >&2; exit 1; }
			echo "$round,$body,$variant,$line,$load" | tee -a "$OUT/runs.csv"
		done
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
rm -f "$OUT/last.csv" "$OUT/last.log"

python3 - "$OUT/alternating.log" "$OUT/runs.csv" <<'EOF' | tee "$OUT/summary.txt"
import csv, re, sys
from collections import defaultdict

sys.path.insert(0, "benchmarks")
from stats import median_ci, pct

# Part 1: every measured iteration's ratio, per body, from "bound/bare ratios: [...]" lines.
alternating = defaultdict(list)
body = None
for line in open(sys.argv[1]):
    m = re.match(r"# Parameters: \(body = (\w+)", line)
    if m:
        body = m.group(1)
    m = re.match(r"bound/bare ratios: \[(.*)\]", line)
    if m and body:
        alternating[body] += [float(x) for x in m.group(1).split(",")]

runs = defaultdict(dict)  # (body, variant) -> {round: score}
for r in csv.DictReader(open(sys.argv[2])):
    runs[(r["body"], r["variant"])][int(r["round"])] = float(r["score_us"])

def median(v):
    return pct(v, 50)

def verdict(ci):
    if ci is None:
        return "not decided (too few ratios for an interval)"
    if ci[1] < 1.02:
        return "under 2% slower: target met"
    if ci[0] >= 1.02:
        return "2% or more slower: target missed"
    return "interval straddles 1.02: not decided on this machine"

print("1. Binding's cost: forN blocks of one executor, bound / bare, alternating in one JVM")
for body, ratios in alternating.items():
    ci = median_ci(ratios)
    ci_text = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""
    print(f"   body={body:<8} median {median(ratios):.4f}{ci_text} over {len(ratios)} iterations; {verdict(ci)}")

bodies = list(dict.fromkeys(b for b, _ in runs))
variants = list(dict.fromkeys(v for _, v in runs))
if runs:
    print("\n2. Interleaved JVMs, forN us/op; ratio = variant / off in the same round (median of rounds, 95% interval)")
for body in bodies:
    off = runs.get((body, "off"), {})
    print(f"   == body={body}")
    for variant in variants:
        scores = runs[(body, variant)]
        line = f"   {variant:<10} median {median(list(scores.values())):7.3f} us over {len(scores)} rounds"
        rounds = sorted(set(scores) & set(off))
        if variant != "off" and rounds:
            ratios = [scores[r] / off[r] for r in rounds]
            ci = median_ci(ratios)
            ci_text = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else " (too few rounds for an interval)"
            line += f"; ratio to off {median(ratios):.3f}{ci_text}"
        print(line)
EOF
echo "results: $OUT"
