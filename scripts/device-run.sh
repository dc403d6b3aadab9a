#!/usr/bin/env bash
# Everything this project still has to measure on a lent GPU machine, in one command, so that a
# session with a few minutes of device time runs it once:
#   1. scripts/gpu-check.sh: GPU discovery against nvidia-smi, a VRAM executor on GPU 0, and the
#      sample's search on the GPU kernel beside the host engines (docs/vram.md "What is verified",
#      docs/benchmarks.md "Sample app: search throughput").
#   2. The mesh join for 2, 4 and 8 processes, warm and cold (docs/benchmarks.md "Mesh join"): the
#      target is about 8 processes that do not share a few cores, which a 2-core development machine
#      cannot show.
#   3. The starter's startup cost with a real driver, so GPU discovery initialises CUDA
#      (docs/benchmarks.md "Startup cost of the starter"), STARTUP_RUNS rounds (default 10).
# STEPS picks them (default "gpu-check mesh startup"): only gpu-check needs the GPU, so a short
# device budget runs STEPS=gpu-check first, with time left to rerun it. A step that fails does not
# stop the next. Each step's exit status is listed at the end and in machine.txt (gpu-check.sh: 1 a
# check failed, 2 no GPU; the mesh benchmark: 1 a round failed, 2 the target was missed); the
# script's own is the first failing step's, else 0.
#
# The GPU machine has no Java and cannot fetch anything: scripts/device-prepare.sh, run right before
# on the development machine, puts a Java runtime and the jars in .device/ (with commit.txt, printed
# into machine.txt: results from a stale .device say so) and prints the calls to make. The carried
# runtime is used unless JAVA_HOME is set. Without .device/ it uses a JDK from JAVA_HOME or PATH and
# the jars of a local build.
#
# Output: the terminal, and in $OUT (the device tool's folder that comes back; else a new directory
# under /tmp) at most 8 files: machine.txt, one .txt per step, startup-summary.txt, startup-runs.csv.
set -uo pipefail

cd "$(dirname "$0")/.."
STEPS=${STEPS:-gpu-check mesh startup}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/uform-device-run.XXXXXX")}
mkdir -p "$OUT"
# The runtime is unpacked, and JNA extracts its native library, under a temp directory: where /tmp is
# mounted noexec neither could run from there, so use the working tree instead.
scratch_base=${TMPDIR:-/tmp}
if command -v findmnt > /dev/null && findmnt -no OPTIONS -T "$scratch_base" 2>/dev/null | grep -qw noexec; then
	scratch_base=$(pwd)
	noexec_tmp=1
fi
scratch=$(mktemp -d "$scratch_base/uform-device-scratch.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
if [[ -n "${noexec_tmp:-}" ]]; then
	mkdir -p "$scratch/tmp"
	export JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:+$JAVA_TOOL_OPTIONS }-Djava.io.tmpdir=$scratch/tmp"
fi
status=0
summary=()

# Java: the carried runtime (the one device-prepare.sh built and tested with) unless JAVA_HOME is set;
# a java on PATH may be older than 17.
if [[ -z "${JAVA_HOME:-}" ]] && [[ -f .device/jre.tar.xz ]]; then
	if command -v xz > /dev/null; then
		tar -C "$scratch" -xJf .device/jre.tar.xz
	else
		# No xz command there: Python's tarfile reads xz itself (its lzma module), keeping file modes.
		python3 -c 'import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))' \
			.device/jre.tar.xz "$scratch"
	fi
	export JAVA_HOME="$scratch/jre"
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

first_of() { # the first existing path among the arguments
	local path
	for path in "$@"; do
		if [[ -e "$path" ]]; then
			echo "$path"
			return 0
		fi
	done
	return 1
}
cli_jar=$(first_of .device/uform-java-cli.jar uform-java/target/uform-java-*-cli.jar || true)
sample_jar=$(first_of .device/sample.jar $(ls sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original) || true)

step() { # name, command...
	local name=$1 rc
	shift
	echo "== $name ($(date -u +%H:%M:%S))"
	"$@" 2>&1 | tee "$OUT/$name.txt"
	rc=${PIPESTATUS[0]}
	echo "== $name: exit $rc"
	summary+=("$name: exit $rc")
	if (( rc != 0 && status == 0 )); then
		status=$rc
	fi
}

wanted() { # whether STEPS names this step
	[[ " $STEPS " == *" $1 "* ]]
}

{
	echo "date: $(date -u)"
	echo "nproc: $(nproc)"
	"$JAVA" -version 2>&1
	if command -v nvidia-smi > /dev/null; then
		# MIG: a partitioned GPU shows CUDA an instance's memory, not the whole board's.
		nvidia-smi --query-gpu=name,driver_version,mig.mode.current --format=csv,noheader 2>&1 || true
	else
		echo "nvidia-smi: not found"
	fi
	echo "cli jar: ${cli_jar:-none}; sample jar: ${sample_jar:-none}"
	if [[ -f .device/commit.txt ]]; then
		sed 's/^/.device /' .device/commit.txt
	else
		echo ".device: no commit.txt (jars of a local build, or a .device older than commit.txt)"
	fi
	echo "steps: $STEPS${noexec_tmp:+; /tmp is noexec, temp files under the working tree}"
} 2>&1 | tee "$OUT/machine.txt"

if wanted gpu-check; then
	step gpu-check env ${cli_jar:+UFORM_CLI_JAR="$cli_jar"} ${sample_jar:+UFORM_SAMPLE_JAR="$sample_jar"} \
		bash scripts/gpu-check.sh
fi

# The mesh benchmark from its jar, else from its classes beside the cli jar (which holds uform and JNA).
if [[ -f benchmarks/target/benchmarks.jar ]]; then
	mesh_cp=benchmarks/target/benchmarks.jar
elif [[ -d .device/mesh-classes && -n "$cli_jar" ]]; then
	mesh_cp="$cli_jar:.device/mesh-classes"
else
	mesh_cp=
fi
if ! wanted mesh; then
	:
elif [[ -n "$mesh_cp" ]]; then
	step mesh-join-warm "$JAVA" -Duform.bench.warm=true -cp "$mesh_cp" io.uform.bench.MeshJoinBenchmark 2,4,8 10 "$scratch"
	step mesh-join-cold "$JAVA" -cp "$mesh_cp" io.uform.bench.MeshJoinBenchmark 2,4,8 10 "$scratch"
else
	echo "== mesh join: skipped, neither benchmarks/target/benchmarks.jar nor .device/mesh-classes" | tee "$OUT/mesh-join-warm.txt"
	summary+=("mesh: skipped, not built")
	(( status == 0 )) && status=2
fi

# The startup benchmark: its jars by file name from the sample's BOOT-INF/lib and .device/startup-lib
# where ~/.m2 is not there.
if ! wanted startup; then
	:
elif [[ -f benchmarks/startup/target/classpath-with-uform.txt ]]; then
	startup_lib=.device/startup-lib
	if [[ -n "$sample_jar" ]]; then
		python3 - "$sample_jar" "$scratch/bootlib" <<'EOF'
import os, sys, zipfile
fat, into = sys.argv[1:]
os.makedirs(into, exist_ok=True)
with zipfile.ZipFile(fat) as jar:
    for name in jar.namelist():
        if name.startswith("BOOT-INF/lib/") and name.endswith(".jar"):
            with open(os.path.join(into, os.path.basename(name)), "wb") as out:
                out.write(jar.read(name))
EOF
		startup_lib="$scratch/bootlib:$startup_lib"
	fi
	step startup env STARTUP_LIB="$startup_lib" SKIP_BUILD=1 RUNS="${STARTUP_RUNS:-10}" \
		VARIANTS="without with novram" OUT="$scratch/startup" bash benchmarks/startup.sh
	cp "$scratch/startup/summary.txt" "$OUT/startup-summary.txt" 2>/dev/null || true
	cp "$scratch/startup/runs.csv" "$OUT/startup-runs.csv" 2>/dev/null || true
else
	echo "== startup: skipped, benchmarks/startup/target is not built" | tee "$OUT/startup.txt"
	summary+=("startup: skipped, not built")
fi

if (( ${#summary[@]} > 0 )); then
	printf '%s\n' "${summary[@]}" | sed 's/^/step /' | tee -a "$OUT/machine.txt"
fi
echo "results: $OUT (exit $status)"
exit "$status"
