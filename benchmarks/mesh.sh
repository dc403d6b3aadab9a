#!/usr/bin/env bash
# Mesh join time: N local processes (child JVMs, one simulated device each) meet in a fresh job
# directory on local disk; per round, the time from the last process's arrival until every process
# has returned from Mesh.bootstrap. See docs/benchmarks.md ("Mesh join").
#
# Settings (environment variables):
#   MESH_COUNTS=2,4,8   processes per mesh
#   MESH_ROUNDS=10      rounds per count (a fresh job name and directory each)
#   MESH_DIR=<tmpdir>   where the job directories go (local disk; java.io.tmpdir by default)
#   OUT=<dir>           write mesh-join.txt and machine.txt there (default: a new
#                       benchmarks/results/<UTC timestamp>-mesh/)
#   SKIP_BUILD=1        reuse benchmarks/target/benchmarks.jar
#   JAVA_HOME           the JDK to build and run with (else `java` on PATH)
#
# Exits with MeshJoinBenchmark's status: 1 if a round failed, 2 if the target (median under
# 100 ms at 8 processes) was missed. run.sh calls it when MESH=1.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

MESH_COUNTS=${MESH_COUNTS:-2,4,8}
MESH_ROUNDS=${MESH_ROUNDS:-10}
MESH_DIR=${MESH_DIR:-${TMPDIR:-/tmp}}

if [[ -n "${JAVA_HOME:-}" ]]; then
	JAVA="$JAVA_HOME/bin/java"
else
	JAVA=java
fi

if [[ "${SKIP_BUILD:-}" != "1" ]]; then
	./mvnw -q -B -Pbench -pl benchmarks -am package -DskipTests
fi
JAR="$ROOT/benchmarks/target/benchmarks.jar"

OUT=${OUT:-"$ROOT/benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-mesh"}
mkdir -p "$OUT"
if [[ ! -f "$OUT/machine.txt" ]]; then
	{
		echo "date: $(date -u)"
		echo "host: $(uname -a)"
		echo "nproc: $(nproc)"
		lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|MHz|Hypervisor' || true
		"$JAVA" -version 2>&1
	} > "$OUT/machine.txt"
fi
{
	echo "mesh settings: MESH_COUNTS=$MESH_COUNTS MESH_ROUNDS=$MESH_ROUNDS MESH_DIR=$MESH_DIR ($(df -hT "$MESH_DIR" 2>/dev/null | awk 'NR==2 {print $2 " on " $1}'))"
	echo "load before mesh: $(cat /proc/loadavg 2>/dev/null || uptime)"
} >> "$OUT/machine.txt"

echo "== mesh join: $MESH_COUNTS processes, $MESH_ROUNDS rounds, under $MESH_DIR"
set +e
"$JAVA" -cp "$JAR" io.uform.bench.MeshJoinBenchmark "$MESH_COUNTS" "$MESH_ROUNDS" "$MESH_DIR" | tee "$OUT/mesh-join.txt"
STATUS=${PIPESTATUS[0]}
set -e
echo "load after mesh: $(cat /proc/loadavg 2>/dev/null || uptime)" >> "$OUT/machine.txt"
echo "results: $OUT"
exit "$STATUS"
