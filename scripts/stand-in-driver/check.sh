#!/usr/bin/env bash
# Runs scripts/gpu-check.sh, the real-GPU check, against a stand-in NVIDIA driver built here, so that
# uform's native glue is exercised on every CI run although no GPU is: GPU discovery through the JNA
# bindings of libcuda.so.1 and libnvidia-ml.so.1, CUDA_VISIBLE_DEVICES, the VRAM executor's context,
# stream, scratch, copies, the shipped kernel's launch (run on the host by the stand-in), the timed
# drain's events, and the sample app's gpu-kernel search path.
#
# The stand-in (libcuda.c, libnvidia-ml.c, nvidia-smi beside this script) is compiled with gcc against
# the CUDA toolkit's cuda.h, so every entry point's prototype and exported name is checked by the
# compiler; it reports misuse (no current context, stale handles, out-of-bounds copies) as
# "ABI/USAGE ERROR" and what is still allocated when the context goes. This check fails on either.
# It proves the bindings' shape, not a GPU's behaviour: scripts/gpu-check.sh on a real GPU does that.
#
# Usage: scripts/stand-in-driver/check.sh   (after ./mvnw package or verify: it uses the built cli and
# sample jars; UFORM_CLI_JAR / UFORM_SAMPLE_JAR name others). CUDA_HOME names the toolkit whose cuda.h
# it is built against.
# Exit status: 0 passed, 1 a check failed, 2 it cannot run here (no gcc, no cuda.h, no jar).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."

skip() {
	echo "stand-in driver check: SKIPPED: $*" >&2
	exit 2
}

command -v gcc >/dev/null 2>&1 || skip "no gcc to build the stand-in driver with"
# The toolkit: CUDA_HOME, else the one nvcc on the PATH belongs to, else /usr/local/cuda.
candidates=()
[[ -n "${CUDA_HOME:-}" ]] && candidates+=("$CUDA_HOME")
if command -v nvcc >/dev/null 2>&1; then
	candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")")
fi
candidates+=(/usr/local/cuda)
cuda_home=""
for candidate in "${candidates[@]}"; do
	if [[ -f "$candidate/include/cuda.h" ]]; then
		cuda_home="$candidate"
		break
	fi
done
[[ -n "$cuda_home" ]] || skip "no cuda.h in ${candidates[*]/%//include} (set CUDA_HOME to a CUDA toolkit)"

cli_jar="${UFORM_CLI_JAR:-$(ls uform-java/target/uform-java-*-cli.jar 2>/dev/null | head -n 1 || true)}"
[[ -n "$cli_jar" && -f "$cli_jar" ]] || skip "no cli jar: run ./mvnw -q -B -pl uform-java -DskipTests package first"

out="target/stand-in-driver"
rm -rf "$out"
mkdir -p "$out/bin"
echo "== building the stand-in driver against $cuda_home/include/cuda.h"
gcc -shared -fPIC -O1 -Wall -Werror -I"$cuda_home/include" -o "$out/libcuda.so.1" "$here/libcuda.c" -lpthread
gcc -shared -fPIC -O1 -Wall -Werror -o "$out/libnvidia-ml.so.1" "$here/libnvidia-ml.c"
cp "$here/nvidia-smi" "$out/bin/nvidia-smi"
chmod +x "$out/bin/nvidia-smi"

echo "== scripts/gpu-check.sh against it"
log="$out/gpu-check.log"
set +e
LD_LIBRARY_PATH="$PWD/$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PATH="$PWD/$out/bin:$PATH" \
	UFORM_CLI_JAR="$cli_jar" bash scripts/gpu-check.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

failed=0
if [[ "$status" != 0 ]]; then
	echo "stand-in driver check: FAIL: scripts/gpu-check.sh exited $status" >&2
	failed=1
fi
if grep -q 'ABI/USAGE ERROR' "$log"; then
	echo "stand-in driver check: FAIL: the stand-in driver saw a call a driver would refuse:" >&2
	grep 'ABI/USAGE ERROR' "$log" >&2
	failed=1
fi
if ! grep -q 'primary context destroyed, leaked bytes=0, live events=0' "$log"; then
	echo "stand-in driver check: FAIL: the VRAM executor's free did not give every byte and event back" >&2
	failed=1
fi
if ! grep -q 'PASS  sample gpu-kernel search' "$log"; then
	echo "stand-in driver check: FAIL: the sample app's gpu-kernel search did not run (is the sample jar built?)" >&2
	failed=1
fi
if [[ "$failed" != 0 ]]; then
	exit 1
fi
echo "stand-in driver check: passed (the bindings' shape, not a GPU's behaviour; see scripts/gpu-check.sh)"
