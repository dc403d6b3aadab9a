#!/usr/bin/env bash
# What the uform starter adds to a Spring Boot application's startup: the same minimal WebMVC
# application (benchmarks/startup, one @SpringBootApplication and one @RestController, no uform type
# in its code) started many times on two class paths, with and without the starter, side by side.
# See docs/benchmarks.md ("Startup cost of the starter").
#
# Variants (every run of every variant gets the same JVM and the same flags):
#   without  Spring Boot WebMVC alone: the starter, uform-java, the auto-configuration and JNA are
#            not on the class path (Maven's compile scope of the module; the starter is runtime scope)
#   with     the starter with its defaults: uformRamExecutor is made, and uform.vram.enabled=auto
#            runs GPU discovery (and makes uformVramExecutor where a GPU is seen)
#   novram   the starter with --uform.vram.enabled=false: no GPU discovery; with - novram is what
#            discovery costs
#   simgpu   (not run by default) the starter with -Duform.devices.simulated=1: one simulated GPU in
#            host memory, so that uformVramExecutor is made; a stand-in for the VRAM bean's own
#            cost, not for a real driver's
#   foreground (not run by default) the starter with -Dio.uform.backgroundpreinitializer.ignore=true:
#            uform's background preinitializer off (Boot's own still on), so JNA is bound on the main
#            thread when the RAM executor is made; with - foreground is what it saves
#   baseline (not run by default) with, but with the jars of another build of uform in BASELINE (a
#            directory of jars named as the class path's, e.g. uform-java-0.1.0-SNAPSHOT.jar): a
#            change measured side by side with the code before it, in the same rounds
#   without-cds, with-cds (not run by default) without and with, each from an application class-data
#            sharing archive of its own (Spring Boot's documented way to start faster): one training
#            run per variant writes it (-XX:ArchiveClassesAtExit), every measured run maps it
#            (-XX:SharedArchiveFile, -Xshare:on, so a run that cannot use it fails instead of quietly
#            starting without it); the application's classes come from a jar, as an archive needs
#
# Each round runs every variant once, the order rotating from round to round (each variant takes
# each position equally often), so drift in the machine's load hits all variants alike. The first
# WARMUP rounds are discarded. Every run must print its STARTUP line and exit 0, and its uform beans
# must be what its variant promises (uformRamExecutor with the starter, no uform bean without it),
# else the script stops.
#
# Settings (environment variables):
#   RUNS=30            measured rounds (each variant runs once per round)
#   WARMUP=2           rounds run first and discarded (page cache, CDS archive mapping, JIT-less start)
#   VARIANTS="without with novram"   which variants, in the first round's order
#   JAVA_OPTS=         extra JVM flags for every run (added after --enable-native-access=ALL-UNNAMED)
#   STEPS=1            also record Spring's startup steps in every run (BufferingApplicationStartup,
#                      -Dio.uform.bench.steps=true) and compare the ones the starter can lengthen:
#                      env_ms, parse_ms, refresh_ms, uform_beans_ms (StartupSteps.java says what each is)
#   OUT=<dir>          where runs.csv, summary.txt, machine.txt and logs/ go (default: a new
#                      benchmarks/results/<UTC timestamp>-startup/, gitignored)
#   SKIP_BUILD=1       reuse benchmarks/startup/target (classes and the two class path files)
#   JAVA_HOME          the JDK to build and run with (else `java` on PATH); the classes are built for
#                      Java 17, so one build runs on 17 and 25 alike
#   MAVEN_ARGS=-o      (Maven 3.9's own variable) build offline
#   BASELINE=dir       the jars the baseline variant takes in place of the same-named ones of `with`
#   STARTUP_LIB=dir:dir  where to find, by file name, the class path's jars that are not at the paths
#                      the build wrote (on another machine, without ~/.m2: scripts/device-run.sh)
#
# Needs python3 for the summary (runs.csv is written without it).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

RUNS=${RUNS:-30}
WARMUP=${WARMUP:-2}
read -r -a VARIANT_LIST <<< "${VARIANTS:-without with novram}"
read -r -a EXTRA_OPTS <<< "${JAVA_OPTS:-}"
if [[ "${STEPS:-0}" == 1 ]]; then
	EXTRA_OPTS+=(-Dio.uform.bench.steps=true)
fi

if [[ -n "${JAVA_HOME:-}" ]]; then
	JAVA="$JAVA_HOME/bin/java"
else
	JAVA=java
fi
# JNA (GPU discovery) loads native code; JDK 22+ warns unless it is allowed. The flag exists since
# JDK 17, so every JDK this project supports gets the same flags.
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED "${EXTRA_OPTS[@]}")
MAIN=io.uform.bench.startup.StartupApplication

if [[ "${SKIP_BUILD:-}" != "1" ]]; then
	./mvnw -q -B -pl benchmarks/startup -am package -DskipTests
fi
TARGET="$ROOT/benchmarks/startup/target"
for f in classes classpath-with-uform.txt classpath-without-uform.txt; do
	if [[ ! -e "$TARGET/$f" ]]; then
		echo "missing $TARGET/$f: build without SKIP_BUILD=1" >&2
		exit 1
	fi
done

# The runs use a private copy of the classes and jars: other builds in this checkout (a `clean`, a
# rebuilt uform jar) cannot change what is measured halfway through.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/uform-startup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lib"
cp -r "$TARGET/classes" "$WORK/classes"
# A class path entry by file name in STARTUP_LIB's directories, or a message and failure.
find_elsewhere() {
	local dir dirs=()
	IFS=: read -r -a dirs <<< "${STARTUP_LIB:-}"
	for dir in "${dirs[@]}"; do
		if [[ -n "$dir" && -e "$dir/$1" ]]; then
			echo "$dir/$1"
			return 0
		fi
	done
	echo "class path entry $1 is neither where the build put it nor in STARTUP_LIB (${STARTUP_LIB:-unset})" >&2
	return 1
}
stage() {
	local entry staged result="" entries=()
	IFS=: read -r -a entries < "$1" || true  # the file ends without a newline
	for entry in "${entries[@]}"; do
		staged="$WORK/lib/$(basename "$entry")"
		if [[ ! -e "$entry" ]]; then
			entry=$(find_elsewhere "$(basename "$entry")") || exit 1
		fi
		if [[ ! -e "$staged" ]]; then
			cp -r "$entry" "$staged"
		fi
		result="$result:$staged"
	done
	echo "$WORK/classes$result"
}
CP_WITH=$(stage "$TARGET/classpath-with-uform.txt")
CP_WITHOUT=$(stage "$TARGET/classpath-without-uform.txt")
# The baseline: the with class path, each jar that BASELINE has by name taken from there (copied too).
if [[ " ${VARIANT_LIST[*]} " == *" baseline "* ]]; then
	if [[ -z "${BASELINE:-}" || ! -d "$BASELINE" ]]; then
		echo "the baseline variant needs BASELINE, a directory of the other build's jars (${BASELINE:-unset})" >&2
		exit 1
	fi
	mkdir -p "$WORK/baseline"
	CP_BASELINE="" replaced=0
	IFS=: read -r -a with_entries <<< "$CP_WITH"
	for entry in "${with_entries[@]}"; do
		if [[ -f "$BASELINE/$(basename "$entry")" ]]; then
			cp "$BASELINE/$(basename "$entry")" "$WORK/baseline/"
			entry="$WORK/baseline/$(basename "$entry")"
			replaced=$((replaced + 1))
		fi
		CP_BASELINE="${CP_BASELINE:+$CP_BASELINE:}$entry"
	done
	if (( replaced == 0 )); then
		echo "BASELINE ($BASELINE) has none of the with class path's jars by name" >&2
		exit 1
	fi
fi
if [[ "$CP_WITHOUT" == *uform-java* || "$CP_WITHOUT" == *uform-spring-boot* || "$CP_WITH" != *uform-spring-boot-autoconfigure* ]]; then
	echo "class paths are not what they should be (without: no uform jar; with: the auto-configuration)" >&2
	exit 1
fi
# For the -cds variants: the same class paths with the application's classes in a jar.
CDS_BASES=()
for variant in "${VARIANT_LIST[@]}"; do
	case "$variant" in
		without-cds | with-cds) CDS_BASES+=("${variant%-cds}") ;;
		*-cds) echo "no CDS variant of ${variant%-cds}: only without-cds and with-cds" >&2; exit 1 ;;
	esac
done
if (( ${#CDS_BASES[@]} > 0 )); then
	JAR_TOOL=jar
	if [[ -n "${JAVA_HOME:-}" ]]; then
		JAR_TOOL="$JAVA_HOME/bin/jar"
	fi
	"$JAR_TOOL" cf "$WORK/startup.jar" -C "$WORK/classes" .
	CP_WITH_CDS="$WORK/startup.jar${CP_WITH#"$WORK/classes"}"
	CP_WITHOUT_CDS="$WORK/startup.jar${CP_WITHOUT#"$WORK/classes"}"
	mkdir -p "$WORK/cds"
fi

OUT=${OUT:-"$ROOT/benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-startup"}
mkdir -p "$OUT/logs"
{
	echo "date: $(date -u)"
	echo "host: $(uname -a)"
	echo "nproc: $(nproc)"
	lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|MHz|Hypervisor' || true
	"$JAVA" -version 2>&1
	if git -C "$ROOT" rev-parse HEAD > /dev/null 2>&1; then
		echo "commit: $(git -C "$ROOT" rev-parse HEAD) ($(git -C "$ROOT" status --porcelain | wc -l) changed or untracked paths)"
	fi
	echo "settings: RUNS=$RUNS WARMUP=$WARMUP VARIANTS=${VARIANT_LIST[*]} JVM flags: ${JVM_FLAGS[*]}"
	if [[ -n "${CP_BASELINE:-}" ]]; then
		echo "baseline: with, these jars from $BASELINE: $(ls "$WORK/baseline" | tr '\n' ' ')"
	fi
	echo "only with the starter: $(tr ':' '\n' < "$TARGET/classpath-with-uform.txt" | grep -vxF -f <(tr ':' '\n' < "$TARGET/classpath-without-uform.txt") | xargs -n1 basename | tr '\n' ' ')"
	echo "load before: $(cat /proc/loadavg 2>/dev/null || uptime)"
} > "$OUT/machine.txt"

# Runs one variant once; appends a line to runs.csv.
run_one() {
	local round=$1 position=$2 variant=$3 warm=$4
	local cp=$CP_WITH
	local -a jvm=("${JVM_FLAGS[@]}") args=()
	case "$variant" in
		without) cp=$CP_WITHOUT ;;
		with) ;;
		baseline) cp=$CP_BASELINE ;;
		novram) args=(--uform.vram.enabled=false) ;;
		simgpu) jvm+=(-Duform.devices.simulated=1) ;;
		foreground) jvm+=(-Dio.uform.backgroundpreinitializer.ignore=true) ;;
		without-cds) cp=$CP_WITHOUT_CDS; jvm+=("-XX:SharedArchiveFile=$WORK/cds/without.jsa" -Xshare:on) ;;
		with-cds) cp=$CP_WITH_CDS; jvm+=("-XX:SharedArchiveFile=$WORK/cds/with.jsa" -Xshare:on) ;;
		*) echo "unknown variant $variant" >&2; exit 1 ;;
	esac
	local log="$OUT/logs/$(printf '%03d' "$round")-$variant.log"
	local start end status=0 load
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)
	start=$(date +%s%N)
	"$JAVA" "${jvm[@]}" -cp "$cp" "$MAIN" "${args[@]}" > "$log" 2>&1 || status=$?
	end=$(date +%s%N)
	local line
	line=$(grep -m1 '^STARTUP ' "$log" || true)
	if [[ $status -ne 0 || -z "$line" ]]; then
		echo "run $round $variant failed (exit $status); see $log" >&2
		tail -20 "$log" >&2
		exit 1
	fi
	# STARTUP ready_ms=.. spring_ms=.. cpu_ms=.. main_cpu_ms=.. classes=.. uform_beans=..
	local -A field=()
	local pair
	for pair in ${line#STARTUP }; do
		field[${pair%%=*}]=${pair#*=}
	done
	local beans=${field[uform_beans]}
	case "$variant" in
		without | without-cds) [[ "$beans" == "-" ]] ;;
		with | with-cds | baseline) [[ ",$beans," == *,uformRamExecutor,* ]] ;;
		novram) [[ ",$beans," == *,uformRamExecutor,* && ",$beans," != *,uformVramExecutor,* ]] ;;
		simgpu) [[ ",$beans," == *,uformRamExecutor,* && ",$beans," == *,uformVramExecutor,* ]] ;;
		foreground) [[ ",$beans," == *,uformRamExecutor,* ]] ;;
	esac || { echo "run $round $variant made the wrong uform beans: $beans" >&2; exit 1; }
	local wall=$(( (end - start) / 1000000 ))
	echo "$round,$position,$variant,$warm,${field[ready_ms]},${field[spring_ms]},$wall,${field[cpu_ms]},${field[main_cpu_ms]},${field[classes]},$load,${beans//,/ },${field[env_ms]:--},${field[parse_ms]:--},${field[refresh_ms]:--},${field[uform_beans_ms]:--}" >> "$OUT/runs.csv"
	printf '  %-8s ready %5s  spring %5s  wall %5s  cpu %5s  main cpu %5s ms  classes %5s  load %s\n' "$variant" \
		"${field[ready_ms]}" "${field[spring_ms]}" "$wall" "${field[cpu_ms]}" "${field[main_cpu_ms]}" "${field[classes]}" "$load"
}

echo "round,position,variant,warmup,ready_ms,spring_ms,wall_ms,cpu_ms,main_cpu_ms,classes,load1,uform_beans,env_ms,parse_ms,refresh_ms,uform_beans_ms" > "$OUT/runs.csv"
# One training run per CDS variant writes its archive, on the exact class path and flags its runs use.
for base in "${CDS_BASES[@]}"; do
	if [[ "$base" == with ]]; then cds_cp=$CP_WITH_CDS; else cds_cp=$CP_WITHOUT_CDS; fi
	# The dump's warnings (classes CDS cannot store) go to the log, not the terminal.
	if ! "$JAVA" "${JVM_FLAGS[@]}" "-XX:ArchiveClassesAtExit=$WORK/cds/$base.jsa" -cp "$cds_cp" "$MAIN" \
			> "$OUT/logs/cds-training-$base.log" 2>&1 || [[ ! -s "$WORK/cds/$base.jsa" ]]; then
		echo "CDS training run for $base-cds failed; see $OUT/logs/cds-training-$base.log" >&2
		exit 1
	fi
	echo "CDS archive for $base-cds: $(du -h "$WORK/cds/$base.jsa" | cut -f1)" | tee -a "$OUT/machine.txt"
done

COUNT=${#VARIANT_LIST[@]}
TOTAL=$(( WARMUP + RUNS ))
echo "uform starter startup: ${VARIANT_LIST[*]}, $RUNS rounds (+$WARMUP warm-up), $("$JAVA" -version 2>&1 | head -1)"
for (( round = 1; round <= TOTAL; round++ )); do
	warm=0
	if (( round <= WARMUP )); then
		warm=1
	fi
	echo "round $round/$TOTAL$( (( warm )) && echo ' (warm-up, discarded)')"
	for (( i = 0; i < COUNT; i++ )); do
		run_one "$round" "$i" "${VARIANT_LIST[(round - 1 + i) % COUNT]}" "$warm"
	done
done
echo "load after: $(cat /proc/loadavg 2>/dev/null || uptime)" >> "$OUT/machine.txt"

python3 - "$OUT/runs.csv" <<'EOF' | tee "$OUT/summary.txt"
import csv, math, random, sys
from collections import defaultdict

sys.path.insert(0, "benchmarks")
from stats import median_ci, pct

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["warmup"] == "0"]
variants = list(dict.fromkeys(r["variant"] for r in rows))
STEPS = (("env_ms", "step spring.boot.application.environment-prepared, main thread's wall time"),
         ("parse_ms", "step spring.context.config-classes.parse, main thread's wall time"),
         ("refresh_ms", "step spring.context.refresh, main thread's wall time"),
         ("uform_beans_ms", "steps spring.beans.instantiate of uform's beans, main thread's wall time"))
by = defaultdict(dict)  # metric -> variant -> {round: value}
for r in rows:
    for metric in ("ready_ms", "spring_ms", "wall_ms", "cpu_ms", "main_cpu_ms", "classes") + tuple(m for m, _ in STEPS):
        # Steps are "-" unless STEPS=1 recorded them.
        if r.get(metric, "-") not in ("-", ""):
            by[metric].setdefault(r["variant"], {})[int(r["round"])] = float(r[metric])

def boot_p10_diff(a, b, resamples=2000):
    # Percentile bootstrap of p10(a) - p10(b), the two samples resampled independently; seeded, so
    # that the same runs.csv always gives the same interval.
    rnd = random.Random(1)
    d = sorted(pct(rnd.choices(a, k=len(a)), 10) - pct(rnd.choices(b, k=len(b)), 10) for _ in range(resamples))
    return d[int(0.025 * resamples)], d[int(0.975 * resamples) - 1]

print(f"{len(set(int(r['round']) for r in rows))} measured rounds; milliseconds (classes: a count)")
for metric, what in (("ready_ms", "JVM uptime at ApplicationReadyEvent (primary)"),
                     ("spring_ms", "Spring's own time, SpringApplication.run to ready"),
                     ("wall_ms", "process wall time, launch to exit (context closed)"),
                     ("cpu_ms", "process CPU time at ready, all threads"),
                     ("main_cpu_ms", "main thread's CPU time at ready (the critical path's own work)"),
                     ("classes", "classes loaded at ready")) + STEPS:
    if not by[metric]:
        continue
    print(f"\n== {metric}: {what}")
    print(f"{'variant':<8} {'median':>8} {'p10':>8} {'p90':>8} {'min':>8} {'max':>8}")
    for v in variants:
        vals = list(by[metric][v].values())
        print(f"{v:<8} {pct(vals, 50):8.1f} {pct(vals, 10):8.1f} {pct(vals, 90):8.1f} {min(vals):8.1f} {max(vals):8.1f}")
    pairs = [("with", "without", "starter, discovery included"), ("novram", "without", "starter, no discovery"),
             ("with", "novram", "GPU discovery alone"), ("simgpu", "without", "starter, simulated GPU"),
             ("foreground", "without", "starter, no background preinitialization"),
             ("with", "foreground", "uform's background preinitialization"),
             ("with-cds", "without-cds", "starter, both from an application CDS archive"),
             ("baseline", "without", "the baseline's starter"), ("with", "baseline", "this build against the baseline")]
    for a, b, label in pairs:
        if a not in by[metric] or b not in by[metric]:
            continue
        A, B = by[metric][a], by[metric][b]
        rounds = sorted(set(A) & set(B))
        diffs = [A[r] - B[r] for r in rounds]
        ma, mb = pct(list(A.values()), 50), pct(list(B.values()), 50)
        ci = median_ci(diffs)
        ci_text = f", 95% CI [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else ""
        print(f"{a} - {b} ({label}): difference of medians {ma - mb:+.1f}, ratio {(ma / mb) if mb else float('nan'):.3f}; "
              f"median of per-round differences {pct(diffs, 50):+.1f}{ci_text}, "
              f"p10/p90 {pct(diffs, 10):+.1f}/{pct(diffs, 90):+.1f}")
        # On a shared machine the fastest runs are the least disturbed ones: compare the p10s too.
        lo, hi = boot_p10_diff(list(A.values()), list(B.values()))
        pa, pb = pct(list(A.values()), 10), pct(list(B.values()), 10)
        print(f"    fastest runs: difference of p10s {pa - pb:+.1f}, ratio {(pa / pb) if pb else float('nan'):.3f}, "
              f"bootstrap 95% CI [{lo:.1f}, {hi:.1f}]")

def paired(metric, a, b):
    A, B = by[metric].get(a), by[metric].get(b)
    if not A or not B:
        return None
    diffs = [A[r] - B[r] for r in sorted(set(A) & set(B))]
    return pct(diffs, 50), median_ci(diffs)

print()
added = paired("ready_ms", "with", "without")
if added:
    med, ci = added
    if ci is None:
        verdict = "not decided (too few rounds for a 95% interval)"
    elif ci[1] < 50:
        verdict = "met: the whole 95% interval is under 50 ms"
    elif ci[0] >= 50:
        verdict = "NOT met: the whole 95% interval is at or above 50 ms"
    else:
        verdict = f"not decided by this run: its 95% interval [{ci[0]:.0f}, {ci[1]:.0f}] contains 50 ms"
    print(f"Target, the starter adds under 50 ms to startup (ready_ms, median of per-round differences, "
          f"GPU discovery included): {med:+.1f} ms, {verdict}")
for metric in ("ready_ms", "main_cpu_ms", "cpu_ms"):
    total, disc = paired(metric, "with", "without"), paired(metric, "with", "novram")
    if total and disc:
        # A share only where both costs are resolved (their intervals above zero).
        share = (f", {100 * disc[0] / total[0]:.0f}% of the starter's {total[0]:+.0f}"
                 if total[1] and total[1][0] > 0 and disc[1] and disc[1][0] > 0 else "")
        ci = f", 95% CI [{disc[1][0]:.0f}, {disc[1][1]:.0f}]" if disc[1] else ""
        print(f"GPU discovery (with - novram), {metric}: {disc[0]:+.1f} ms{ci}{share}")
EOF
echo "results: $OUT"
