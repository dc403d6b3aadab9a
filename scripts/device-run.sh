#!/usr/bin/env bash
# Everything this project still has to measure on a lent GPU machine, in one command, so that a
# session with a few minutes of device time runs it once:
#   1. scripts/gpu-check.sh: GPU discovery against nvidia-smi, a VRAM executor on GPU 0, and the
#      sample's search on the GPU kernel beside the host engines (docs/vram.md "Verified on",
#      docs/benchmarks.md "Sample app: search throughput").
#   2. The mesh join for 2, 4 and 8 processes, warm and cold (docs/benchmarks.md "Mesh join"): the
#      target is about 8 processes that do not share a few cores, which a 2-core development machine
#      cannot show.
# Each step's output goes to the terminal and to $OUT/<step>.txt; a step that fails does not stop
# the next. Exit status: the first failing step's (gpu-check.sh: 1 a check failed, 2 no GPU; the
# mesh benchmark: 1 a round failed, 2 the target was missed), else 0.
#
# Needs only a JDK 17+ and the prebuilt jars (no Maven, no network), which a device run carries:
#   uform-java/target/uform-java-<version>-cli.jar    ./mvnw -q -B -pl uform-java -DskipTests package
#   sample-app/target/uform-sample-app-<version>.jar  ./mvnw -q -B -pl sample-app -am -DskipTests package
#   benchmarks/target/benchmarks.jar                   ./mvnw -q -B -f benchmarks/pom.xml -DskipTests package
#
# Usage: scripts/device-run.sh            (OUT defaults to a new directory under /tmp)
set -uo pipefail

cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/uform-device-run.XXXXXX")}
mkdir -p "$OUT"
JAVA=java
if [[ -n "${JAVA_HOME:-}" ]]; then
	JAVA="$JAVA_HOME/bin/java"
fi
status=0

step() { # name, command...
	local name=$1 rc
	shift
	echo "== $name ($(date -u +%H:%M:%S))"
	"$@" 2>&1 | tee "$OUT/$name.txt"
	rc=${PIPESTATUS[0]}
	echo "== $name: exit $rc"
	if (( rc != 0 && status == 0 )); then
		status=$rc
	fi
}

{
	echo "date: $(date -u)"
	echo "nproc: $(nproc)"
	"$JAVA" -version 2>&1
	if command -v nvidia-smi > /dev/null; then
		nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 || true
	else
		echo "nvidia-smi: not found"
	fi
} | tee "$OUT/machine.txt"

cli_jar=$(ls uform-java/target/uform-java-*-cli.jar 2>/dev/null | head -n 1)
step gpu-check env ${cli_jar:+UFORM_CLI_JAR="$cli_jar"} bash scripts/gpu-check.sh

if [[ -f benchmarks/target/benchmarks.jar ]]; then
	step mesh-join-warm "$JAVA" -Duform.bench.warm=true -cp benchmarks/target/benchmarks.jar \
		io.uform.bench.MeshJoinBenchmark 2,4,8 10 "${TMPDIR:-/tmp}"
	step mesh-join-cold "$JAVA" -cp benchmarks/target/benchmarks.jar \
		io.uform.bench.MeshJoinBenchmark 2,4,8 10 "${TMPDIR:-/tmp}"
else
	echo "== mesh join: skipped, benchmarks/target/benchmarks.jar is not built" | tee "$OUT/mesh-join-warm.txt"
	(( status == 0 )) && status=2
fi

echo "results: $OUT (exit $status)"
exit "$status"
