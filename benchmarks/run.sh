#!/usr/bin/env bash
# Builds the benchmarks and runs the whole suite: JMH fork-join latency, the per-fork tail latency
# (a plain main), JMH n-body, the n-body bit-identity check, and IdleCpu. Results go to
# benchmarks/results/<UTC timestamp>/ (gitignored): JMH JSON and text per part, idle-cpu.txt,
# machine.txt, and summary.txt with the ratios against the targets (summary needs python3;
# everything else does not).
#
# Settings (environment variables, defaults fit a noisy 2-core machine in about 12 minutes):
#   THREADS=<nproc>  threads per pool (uform counts the caller; the others get that many workers)
#   FORKS=2          JMH forks (fresh JVMs) per benchmark; 2 catches a badly-JITted fork
#   WI=5 W=500ms     warm-up iterations and their length
#   I=10 R=500ms     measured iterations and their length (one op is 1-500 us, so 500 ms is
#                    thousands of ops; more iterations help a noisy machine more than longer ones)
#   IDLE_SECONDS=5   length of each IdleCpu window (6 windows)
#   SKIP_BUILD=1     reuse benchmarks/target/benchmarks.jar
#   MESH=1           also run the mesh join benchmark (benchmarks/mesh.sh; MESH_COUNTS, MESH_ROUNDS,
#                    MESH_DIR pass through), results in the same directory; off by default
#   JAVA_HOME        the JDK to build and run with (else `java` on PATH)
#
# Run it when the machine is otherwise idle: uform's workers spin briefly between forks, and on a
# machine whose other processes take the cores, every pool's numbers (uform's most) measure the
# scheduler rather than the pool. machine.txt records the load average before and after.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

THREADS=${THREADS:-$(nproc)}
FORKS=${FORKS:-2}
WI=${WI:-5}
W=${W:-500ms}
I=${I:-10}
R=${R:-500ms}
IDLE_SECONDS=${IDLE_SECONDS:-5}

if [[ -n "${JAVA_HOME:-}" ]]; then
	JAVA="$JAVA_HOME/bin/java"
else
	JAVA=java
fi

# JMH touches sun.misc.Unsafe, which JDK 23+ warns about; the flag that silences it exists only on
# JDK 23+, so it is added only there (the forked benchmark JVMs inherit the host JVM's flags).
SPEC=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
JVM_FLAGS=()
if [[ "${SPEC%%.*}" -ge 23 ]]; then
	JVM_FLAGS+=(--sun-misc-unsafe-memory-access=allow)
fi

# Converts 500ms / 1s / 2 (seconds) to milliseconds, for the time estimate.
to_ms() {
	case "$1" in
		*ms) echo "${1%ms}" ;;
		*s) echo $(( ${1%s} * 1000 )) ;;
		*) echo $(( $1 * 1000 )) ;;
	esac
}
# Benchmark/parameter combinations: latency 9 methods x (2 bodies x 1 slice/thread + 1 x 8),
# deferred 3, n-body 10 (the fork tail is a plain main: 15 cases, about 1.5 minutes).
RUNS=$(( 9 * 2 + 9 * 1 + 3 + 10 ))
PER_FORK_MS=$(( WI * $(to_ms "$W") + I * $(to_ms "$R") + 1500 ))
JMH_S=$(( RUNS * FORKS * PER_FORK_MS / 1000 ))
IDLE_S=$(( IDLE_SECONDS * 6 + 3 + 90 ))
echo "uform benchmarks: threads=$THREADS, -f $FORKS -wi $WI -w $W -i $I -r $R, java spec $SPEC"
echo "estimated time: JMH ~$(( JMH_S / 60 )) min $(( JMH_S % 60 )) s ($RUNS runs x $FORKS forks), fork tail and IdleCpu ~$IDLE_S s, plus the build"

if [[ "${SKIP_BUILD:-}" != "1" ]]; then
	./mvnw -q -B -Pbench -pl benchmarks -am package -DskipTests
fi
JAR="$ROOT/benchmarks/target/benchmarks.jar"

OUT="$ROOT/benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
{
	echo "date: $(date -u)"
	echo "host: $(uname -a)"
	echo "nproc: $(nproc)"
	lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|MHz|Hypervisor' || true
	"$JAVA" -version 2>&1
	echo "settings: THREADS=$THREADS FORKS=$FORKS WI=$WI W=$W I=$I R=$R IDLE_SECONDS=$IDLE_SECONDS"
	echo "load before: $(cat /proc/loadavg 2>/dev/null || uptime)"
} > "$OUT/machine.txt"

JMH=("$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" -f "$FORKS" -wi "$WI" -w "$W" -i "$I" -r "$R" -p "threads=$THREADS")

echo "== n-body check (all implementations bit-identical to serial)"
"$JAVA" "${JVM_FLAGS[@]}" -cp "$JAR" io.uform.bench.NBodyCheck "$THREADS" 128 1000 | tee "$OUT/nbody-check.txt"

echo "== fork-join latency, 1 slice per thread, empty and busy bodies"
"${JMH[@]}" 'ForkJoinLatencyBenchmark' -p body=empty,busy5us -p slicesPerThread=1 \
	-rf json -rff "$OUT/latency-1.json" | tee "$OUT/latency-1.txt"

echo "== fork-join latency, 8 busy slices per thread"
"${JMH[@]}" 'ForkJoinLatencyBenchmark' -p body=busy5us -p slicesPerThread=8 \
	-rf json -rff "$OUT/latency-8.json" | tee "$OUT/latency-8.txt"

echo "== fork tail latency: every fork timed one by one (p50, p90, p99, p99.9, max)"
# A plain main, not JMH: JMH's sample mode times batches of short calls. Rows are tab-separated.
"$JAVA" "${JVM_FLAGS[@]}" -cp "$JAR" io.uform.bench.ForkTailLatencyBenchmark "threads=$THREADS" | tee "$OUT/tail.tsv"

echo "== deferred-call round trip against a one-thread pool"
# No threads parameter: one submitter, one deferred thread, one pool thread.
"$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" -f "$FORKS" -wi "$WI" -w "$W" -i "$I" -r "$R" 'DeferredCallBenchmark' \
	-rf json -rff "$OUT/deferred.json" | tee "$OUT/deferred.txt"

echo "== n-body, 128 bodies"
"${JMH[@]}" 'NBodyBenchmark' -p bodies=128 -rf json -rff "$OUT/nbody.json" | tee "$OUT/nbody.txt"

echo "== idle CPU"
# IdleCpu exits 2 when the parked pool misses its target; the suite still finishes and reports it.
set +e
"$JAVA" "${JVM_FLAGS[@]}" -cp "$JAR" io.uform.bench.IdleCpu "$IDLE_SECONDS" "$THREADS" | tee "$OUT/idle-cpu.txt"
set -e

if [[ "${MESH:-}" == "1" ]]; then
	# Exits 1 when a round failed and 2 when the target was missed; the suite still finishes.
	set +e
	OUT="$OUT" SKIP_BUILD=1 "$ROOT/benchmarks/mesh.sh"
	set -e
fi

echo "load after: $(cat /proc/loadavg 2>/dev/null || uptime)" >> "$OUT/machine.txt"

if command -v python3 > /dev/null; then
	python3 "$ROOT/benchmarks/summarize.py" "$OUT" | tee "$OUT/summary.txt"
else
	echo "python3 not found: no summary.txt; compute the ratios from the JSON as benchmarks/summarize.py does"
fi
echo "results: $OUT"
