#!/usr/bin/env bash
# Per-fork latency of two builds side by side: builds uform-java at each git ref (a commit, a branch,
# or "." for the working tree as it is), then runs ForkTailLatencyBenchmark against each jar in
# interleaved rounds (A B A B ...), so both see the same machine state. Prints every round's rows
# and, per case, the median over rounds of each percentile for A and B and the ratio B / A.
#
#   benchmarks/fork-tail.sh REF_A [REF_B]     (REF_B defaults to ".")
#
# Settings (environment variables):
#   ROUNDS=3        rounds per build
#   FORKS=200000    forks timed per case and round (as many again are run first, untimed)
#   CASES=          comma list of case-name prefixes (forThreads-empty,forN-busy,...); empty: all
#   ITERATIONS=3100 burn steps per busy share (about 5 us here); the same for both builds
#   GAP_MICROS=0    busy pause between forks
#   WARMUP_MILLIS=2000  untimed forks before each case, at least this long
#   JAVA_HOME       the JDK to build and run with (else java on PATH)
#   OUT=            folder for the raw rows (default: a fresh one under benchmarks/results/, gitignored)
#
# Run it when the machine is otherwise idle: a tail is what other processes do to the two threads.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

REF_A=${1:?usage: benchmarks/fork-tail.sh REF_A [REF_B]}
REF_B=${2:-.}
ROUNDS=${ROUNDS:-3}
FORKS=${FORKS:-200000}
CASES=${CASES:-}
ITERATIONS=${ITERATIONS:-3100}
GAP_MICROS=${GAP_MICROS:-0}
WARMUP_MILLIS=${WARMUP_MILLIS:-2000}
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
JAVAC=${JAVA_HOME:+$JAVA_HOME/bin/}javac
OUT=${OUT:-$ROOT/benchmarks/results/fork-tail-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trees=()
cleanup() {
	for tree in "${trees[@]}"; do git -C "$ROOT" worktree remove --force "$tree" >/dev/null 2>&1 || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# Prints the class path (uform-java's jar and its runtime dependencies) of REF's build.
build() {
	local ref=$1 name=$2 tree
	if [[ "$ref" == "." ]]; then
		tree=$ROOT
	else
		tree=$WORK/tree-$name
		git -C "$ROOT" worktree add --detach "$tree" "$ref" >/dev/null 2>&1
		trees+=("$tree")
	fi
	(cd "$tree" && ./mvnw -q -B -pl uform-java package -DskipTests -Dmaven.javadoc.skip=true \
		dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$WORK/deps-$name.txt") >&2
	local jar
	jar=$(ls "$tree"/uform-java/target/uform-java-*.jar | grep -v -- '-cli\|-sources\|-javadoc' | head -1)
	cp "$jar" "$WORK/uform-java-$name.jar"
	echo "$WORK/uform-java-$name.jar:$(cat "$WORK/deps-$name.txt")"
}

echo "== building A ($REF_A) and B ($REF_B)" >&2
CP_A=$(build "$REF_A" a)
CP_B=$(build "$REF_B" b)
# The benchmark itself comes from this tree and uses only uform's public API, so one compiled copy
# runs against both jars.
mkdir -p "$WORK/classes"
"$JAVAC" -nowarn --release 17 -d "$WORK/classes" -cp "$CP_B" \
	benchmarks/src/main/java/io/uform/bench/ForkTailLatencyBenchmark.java benchmarks/src/main/java/io/uform/bench/Work.java

ARGS=("forks=$FORKS" "iterations=$ITERATIONS" "gapMicros=$GAP_MICROS" "warmupMillis=$WARMUP_MILLIS")
[[ -n "$CASES" ]] && ARGS+=("cases=$CASES")
{
	echo "# A=$REF_A ($(git -C "$ROOT" rev-parse --short "${REF_A/#./HEAD}")) B=$REF_B; $(uptime)"
	for round in $(seq 1 "$ROUNDS"); do
		for side in a b; do
			cp_var="CP_${side^^}"
			"$JAVA" --enable-native-access=ALL-UNNAMED -cp "$WORK/classes:${!cp_var}" \
				io.uform.bench.ForkTailLatencyBenchmark "${ARGS[@]}" "label=${side^^}$round"
		done
	done
	echo "# after: $(uptime)"
} | tee "$OUT/rows.tsv"

python3 - "$OUT/rows.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    label, case, *values = line.rstrip("\n").split("\t")
    rows.setdefault((case, label[0]), []).append([float(v) for v in values[:5]])
names = ["p50", "p90", "p99", "p99.9", "max"]
print("\nmedian over rounds, microseconds: A / B (B / A); p99/p50 is each round's own ratio, then the median")
print("%-26s %s  %s" % ("case", "  ".join("%-22s" % n for n in names), "p99/p50 A / B"))
for case in dict.fromkeys(c for c, _ in rows):
    a, b = rows.get((case, "A")), rows.get((case, "B"))
    if not a or not b:
        continue
    cells = []
    for i in range(len(names)):
        ma = statistics.median(r[i] for r in a)
        mb = statistics.median(r[i] for r in b)
        cells.append("%-22s" % ("%.2f / %.2f (%.2fx)" % (ma, mb, mb / ma if ma else float("nan"))))
    # A round's p99 over its own p50: the tail in the machine state that round ran in.
    ra = statistics.median(r[2] / r[0] for r in a)
    rb = statistics.median(r[2] / r[0] for r in b)
    print("%-26s %s  %.2f / %.2f" % (case, "  ".join(cells), ra, rb))
PY
echo "raw rows: $OUT/rows.tsv" >&2
