#!/usr/bin/env bash
# Checks uform's GPU discovery against nvidia-smi on a machine with NVIDIA GPUs.
#
# It runs the real discovery (the JNA binding of libcuda.so.1 and libnvidia-ml.so.1) through the
# uform-info command in the cli jar, prints its report, then compares its CSV output with
#   nvidia-smi --query-gpu=index,uuid,name,memory.total,pci.bus_id,compute_cap
# field by field: device count, UUID, name, memory (within 1 %), PCI bus id (as numbers), and the
# gpu class against the compute capability. It also checks CUDA_VISIBLE_DEVICES handling: an empty
# value hides every device, a single UUID shows that device with its nvidia-smi index. Then it runs a
# VRAM executor on GPU 0 (io.uform.cli.VramCheck in the same jar): scratch grown to 1 GiB, a
# 100,000 x 256 matrix uploaded, the shipped dot-product kernel checked against a host computation,
# a deferred call, drain, free, and device memory compared before and after. Where the sample app's
# jar is built (or UFORM_SAMPLE_JAR names it), it starts the sample and runs its load script on the
# vram, ram and parallel-stream engines: the vram engine must take the gpu-kernel path and return
# the same rows as the host. The whole script takes about 3 minutes; record its output and the
# driver version in docs/vram.md, "What is verified".
#
# Usage (from anywhere):
#   scripts/gpu-check.sh                      # builds the cli jar with ./mvnw (needs Maven Central or a filled ~/.m2)
#   UFORM_CLI_JAR=path/to/uform-java-<version>-cli.jar scripts/gpu-check.sh   # uses a prebuilt jar, needs only a JDK 17+
#
# Java comes from $JAVA_HOME/bin/java, else from PATH. Exit status: 0 all checks passed,
# 1 a check failed, 2 the machine cannot be checked (no nvidia-smi, no GPU, no java, no jar).
set -euo pipefail

cd "$(dirname "$0")/.."

die() {
	echo "gpu-check: $*" >&2
	exit 2
}

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
command -v "$java_cmd" >/dev/null 2>&1 || die "no java found (set JAVA_HOME or put a JDK 17+ on PATH)"
command -v nvidia-smi >/dev/null 2>&1 || die "nvidia-smi not found: this is not a machine with an NVIDIA driver, nothing to check"

if [[ -n "${UFORM_CLI_JAR:-}" ]]; then
	jar="$UFORM_CLI_JAR"
else
	echo "== building the cli jar (set UFORM_CLI_JAR to skip)"
	./mvnw -q -B -pl uform-java -DskipTests package \
		|| die "build failed; build the jar elsewhere and pass it as UFORM_CLI_JAR"
	jar="$(ls uform-java/target/uform-java-*-cli.jar 2>/dev/null | head -n 1 || true)"
fi
[[ -n "$jar" && -f "$jar" ]] || die "cli jar not found: '${jar:-}'"

smi_query="index,uuid,name,memory.total,pci.bus_id,compute_cap"
if ! smi="$(nvidia-smi --query-gpu="$smi_query" --format=csv,noheader,nounits 2>&1)"; then
	# Drivers before compute_cap was a query field: check everything else.
	smi_query="index,uuid,name,memory.total,pci.bus_id"
	smi="$(nvidia-smi --query-gpu="$smi_query" --format=csv,noheader,nounits 2>&1)" \
		|| die "nvidia-smi failed: $smi"
fi
[[ -n "$smi" ]] || die "nvidia-smi lists no GPU"

failures=0
check() { # name, expected, actual, ok(0/1)
	if [[ "$4" == 0 ]]; then
		printf 'PASS  %-28s %s\n' "$1" "$3"
	else
		printf 'FAIL  %-28s expected %s, got %s\n' "$1" "$2" "$3"
		failures=$((failures + 1))
	fi
}
trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

# PCI addresses as numbers: "00000000:1B:00.0" and "0000:1b:00.0" are the same device.
pci_numbers() {
	local domain bus rest device function
	IFS=: read -r domain bus rest <<<"$1"
	device="${rest%%.*}"
	function="${rest#*.}"
	[[ "$function" == "$rest" ]] && function=0
	printf '%d:%d:%d.%d' "$((16#$domain))" "$((16#$bus))" "$((16#$device))" "$((16#$function))"
}

# The class uform should give a compute capability (docs/vram.md "GPU classes", native-interfaces.md 4.1),
# written out again here so the check does not trust the code it checks.
expected_class() {
	case "$1" in
		3.*) echo nvidia-kepler ;;
		5.*) echo nvidia-maxwell ;;
		6.*) echo nvidia-pascal ;;
		7.0 | 7.2) echo nvidia-volta ;;
		7.5) echo nvidia-turing ;;
		8.0 | 8.6 | 8.7) echo nvidia-ampere ;;
		8.9) echo nvidia-ada ;;
		9.0) echo nvidia-hopper ;;
		10.* | 11.* | 12.*) echo nvidia-blackwell ;;
		*) echo "" ;;
	esac
}

# uform's NVIDIA rows: "vendor_ordinal,gpu_class,compute_units,memory_bytes,name,uuid,pci_bus_id".
uform_csv() {
	local out
	out="$("$java_cmd" -jar "$jar" --csv)" || die "the cli jar failed: $out"
	if grep -q '"' <<<"$out"; then
		die "a device name holds a comma or quote; this script cannot split it: $out"
	fi
	awk -F, 'NR > 1 && $2 == "nvidia" { print $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 }' <<<"$out"
}

echo "== uform-info (real discovery, environment as given)"
report="$("$java_cmd" -jar "$jar")" || die "the cli jar failed: $report"
echo "$report"
echo
echo "== nvidia-smi --query-gpu=$smi_query"
echo "$smi"
echo

echo "== comparing (CUDA_VISIBLE_DEVICES unset, so CUDA sees what nvidia-smi sees)"
unset CUDA_VISIBLE_DEVICES
ours="$(uform_csv)"
smi_count="$(grep -c . <<<"$smi")"
our_count="$(grep -c . <<<"$ours" || true)"
check "device count" "$smi_count" "$our_count" "$([[ "$smi_count" == "$our_count" ]]; echo $?)"

while IFS=, read -r index uuid name memory_mib bus_id compute_cap; do
	index="$(trim "$index")"; uuid="$(trim "$uuid")"; name="$(trim "$name")"
	memory_mib="$(trim "$memory_mib")"; bus_id="$(trim "$bus_id")"; compute_cap="$(trim "${compute_cap:-}")"
	row="$(awk -F, -v i="$index" '$1 == i' <<<"$ours")"
	if [[ -z "$row" ]]; then
		check "gpu $index present" "a device with vendor ordinal $index" "none" 1
		continue
	fi
	IFS=, read -r _ our_class _ our_memory our_name our_uuid our_pci <<<"$row"
	check "gpu $index uuid" "$uuid" "$our_uuid" "$([[ "${uuid,,}" == "${our_uuid,,}" ]]; echo $?)"
	check "gpu $index name" "$name" "$our_name" "$([[ "$name" == "$our_name" ]]; echo $?)"
	memory_ok="$(awk -v a="$memory_mib" -v b="$our_memory" \
		'BEGIN { e = a * 1048576; d = b - e; if (d < 0) d = -d; print (e > 0 && d <= e * 0.01) ? 0 : 1 }')"
	check "gpu $index memory (1 %)" "${memory_mib} MiB" "$((our_memory / 1048576)) MiB" "$memory_ok"
	check "gpu $index pci bus id" "$bus_id" "$our_pci" \
		"$([[ "$(pci_numbers "$bus_id")" == "$(pci_numbers "$our_pci")" ]]; echo $?)"
	if [[ -n "$compute_cap" && "$compute_cap" != "[N/A]" ]]; then
		want="$(expected_class "$compute_cap")"
		check "gpu $index class (cc $compute_cap)" "${want:-<none>}" "${our_class:-<none>}" \
			"$([[ "$want" == "$our_class" ]]; echo $?)"
	else
		echo "SKIP  gpu $index class                nvidia-smi gives no compute_cap"
	fi
done <<<"$smi"

echo
echo "== CUDA_VISIBLE_DEVICES"
hidden="$(CUDA_VISIBLE_DEVICES="" uform_csv)"
check "empty hides all" "0 devices" "$(grep -c . <<<"$hidden" || true) devices" "$([[ -z "$hidden" ]]; echo $?)"
last="$(tail -n 1 <<<"$smi")"
last_index="$(trim "$(cut -d, -f1 <<<"$last")")"
last_uuid="$(trim "$(cut -d, -f2 <<<"$last")")"
only="$(CUDA_VISIBLE_DEVICES="$last_uuid" uform_csv)"
check "uuid shows that gpu" "vendor ordinal $last_index" "$(cut -d, -f1 <<<"$only" | paste -sd' ')" \
	"$([[ "$only" == "$last_index,"* && "$(grep -c . <<<"$only")" == 1 ]]; echo $?)"

echo
echo "== live readings and problems"
readings_ok=0
grep -q "now: memory [0-9]" <<<"$report" || readings_ok=1
check "readings from NVML" "memory used/total per device" "$(grep -c 'now: memory [0-9]' <<<"$report" || true) device(s)" "$readings_ok"
check "discovery problems" "Problems: none" "$(grep '^Problems:' <<<"$report")" \
	"$(grep -q '^Problems: none' <<<"$report"; echo $?)"

echo
echo "== VRAM executor on GPU 0 (driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1))"
vram_status=0
vram="$(timeout 170 "$java_cmd" --enable-native-access=ALL-UNNAMED -Xmx3g -cp "$jar" io.uform.cli.VramCheck 0 2>&1)" \
	|| vram_status=$?
echo "$vram"
vram_failed="$(grep -c '^FAIL' <<<"$vram" || true)"
check "vram executor" "exit 0, no FAIL" "exit $vram_status, $vram_failed FAIL" \
	"$([[ "$vram_status" == 0 && "$vram_failed" == 0 ]]; echo $?)"

echo
sample_jar="${UFORM_SAMPLE_JAR:-$(ls sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original | head -n 1 || true)}"
if [[ -n "$sample_jar" && -f "$sample_jar" ]]; then
	echo "== sample app: search on the GPU kernel beside the RAM executor and a parallel stream"
	# load.sh starts the jar, waits until it is ready, runs the load client (which first checks that
	# every engine returns the same rows for the same queries) and stops the app by its PID. Without
	# this script's own UFORM_* variables: the app would read them as uform.* keys it does not know.
	load_status=0
	load="$(env -u UFORM_CLI_JAR -u UFORM_SAMPLE_JAR SAMPLE_JAR="$sample_jar" timeout 170 \
		sample-app/scripts/load.sh --start --duration=12s --warmup=3s --rounds=3 --concurrency=4 \
		--engines=vram,ram,parallel-stream 2>&1)" || load_status=$?
	echo "$load"
	check "sample gpu-kernel search" "vram=gpu-kernel, engines agree, exit 0" \
		"$(grep -o 'vram=[a-z-]*' <<<"$load" | head -n 1), exit $load_status" \
		"$([[ "$load_status" == 0 ]] && grep -q 'vram=gpu-kernel' <<<"$load"; echo $?)"
else
	echo "== sample app: skipped (build it with ./mvnw -q -B -pl sample-app -am package -DskipTests, or set UFORM_SAMPLE_JAR)"
fi

echo
if [[ "$failures" -gt 0 ]]; then
	echo "gpu-check: $failures check(s) FAILED"
	exit 1
fi
echo "gpu-check: all checks passed"
