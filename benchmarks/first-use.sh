#!/usr/bin/env bash
# What uform's first use costs a cold JVM (FirstUseCost: preinitialization, GPU discovery, a first
# RAM executor), this build's uform-java jar beside another build's, alternating in fresh JVMs so that
# the machine's drift hits both alike. See docs/benchmarks.md ("Startup cost of the starter").
#
# Settings (environment variables):
#   BASELINE=dir    a directory holding the other build's uform-java-<version>.jar (required)
#   RUNS=12         JVMs per jar, after one discarded warm-up pair (page cache)
#   SKIP_BUILD=1    reuse uform-java/target and benchmarks/target/classes
#   JAVA_HOME       the JDK to run with (else `java` on PATH); MAVEN_ARGS=-o builds offline
#
# Needs python3 for the summary.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-12}
if [[ -z "${BASELINE:-}" || ! -d "$BASELINE" ]]; then
	echo "BASELINE must name a directory with the other build's uform-java jar (${BASELINE:-unset})" >&2
	exit 1
fi
if [[ -n "${JAVA_HOME:-}" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
if [[ "${SKIP_BUILD:-}" != "1" ]]; then
	./mvnw -q -B -Pbench -pl benchmarks -am package -DskipTests
fi
this=$(ls uform-java/target/uform-java-*.jar | grep -v -e '-cli' -e '-sources' -e '-javadoc' | head -1)
other="$BASELINE/$(basename "$this")"
if [[ ! -f "$other" ]]; then
	echo "no $(basename "$this") in $BASELINE" >&2
	exit 1
fi
jna=$(./mvnw -q -B -pl uform-java dependency:build-classpath -Dmdep.outputFile=/dev/stdout -Dmdep.includeArtifactIds=jna)
# Private copies: a build in the checkout meanwhile cannot change what is measured.
work=$(mktemp -d "${TMPDIR:-/tmp}/uform-first-use.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/this" "$work/baseline"
cp "$this" "$work/this/"
cp "$other" "$work/baseline/"
cp -r benchmarks/target/classes "$work/classes"
out="$work/runs.txt"
for (( round = 0; round <= RUNS; round++ )); do
	for build in this baseline; do
		line=$("$JAVA" --enable-native-access=ALL-UNNAMED -cp "$work/classes:$work/$build/$(basename "$this"):$jna" \
			io.uform.bench.FirstUseCost | grep '^FIRST_USE ')
		if (( round > 0 )); then
			echo "$build $line" | tee -a "$out"
		fi
	done
done
python3 - "$out" <<'PY'
import re, sys
sys.path.insert(0, "benchmarks")
from stats import pct
runs = {}
for line in open(sys.argv[1]):
    build = line.split()[0]
    for key in ("wall_ms", "cpu_ms", "executor_ms", "classes"):
        runs.setdefault(key, {}).setdefault(build, []).append(float(re.search(key + r"=([\d.]+)", line).group(1)))
for key, by in runs.items():
    print(f"{key}: " + "; ".join(f"{b} median {pct(v, 50):.1f} (p10 {pct(v, 10):.1f}, p90 {pct(v, 90):.1f})" for b, v in by.items())
          + f"; this / baseline {pct(by['this'], 50) / pct(by['baseline'], 50):.2f}")
PY
