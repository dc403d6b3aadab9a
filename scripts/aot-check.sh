#!/usr/bin/env bash
# Spring AOT, on the JVM: builds the sample with Boot's process-aot (./mvnw -Paot), then
#   1. reads the reachability metadata AOT wrote into the jar: uform's hints (starter, aot.factories),
#      the endpoint's (@RegisterReflectionForBinding) and the sample's (@ImportRuntimeHints) must be in it;
#   2. starts the jar with -Dspring.aot.enabled=true (from the generated bean definitions, not from
#      @Configuration classes), waits for readiness (the passage index built), and checks that a text
#      search (GET and POST) answers with hits, that /actuator/uform shows the RAM executor running and
#      that /actuator/uform/devices answers;
#   3. stops it with SIGTERM and checks that it exits;
#   4. starts it again asking for a VRAM executor the AOT build left out (uform.vram.enabled=true, a
#      simulated GPU), which must fail naming the property rather than run without one.
# A native image is not built here: docs/aot.md says what is and is not verified.
#
# Usage: scripts/aot-check.sh   (needs a JDK 17+, python3 and curl; Maven comes through ./mvnw)
# Exit status: 0 passed, 1 a check failed.
set -euo pipefail

cd "$(dirname "$0")/.."
repo="$(pwd)"

fail() {
	echo "aot check: FAILED: $*" >&2
	exit 1
}
for tool in python3 curl; do
	command -v "$tool" >/dev/null 2>&1 || fail "no $tool: install it (apt-get install -y $tool)"
done

echo "== ./mvnw -Paot -pl sample-app -am package (Spring Boot's process-aot)"
# Not left from an earlier build: what is read below is this build's.
rm -rf sample-app/target/spring-aot
./mvnw -B -ntp -q -Paot -pl sample-app -am package -DskipTests

version=$(sed -n 's/^version=//p' sample-app/target/maven-archiver/pom.properties)
jar="sample-app/target/uform-sample-app-$version.jar"
metadata="sample-app/target/spring-aot/main/resources/META-INF/native-image/io.uform/uform-sample-app/reachability-metadata.json"
[[ -f "$jar" ]] || fail "$jar was not built"
[[ -f "$metadata" ]] || fail "process-aot wrote no $metadata: did the aot profile's process-aot execution run?"
"${JAVA_HOME:+$JAVA_HOME/bin/}jar" tf "$jar" | grep -q 'SampleApplication__ApplicationContextInitializer.class' \
	|| fail "$jar holds no AOT-generated initializer: the generated classes were not packaged"

echo "== the runtime hints in $metadata"
python3 - "$metadata" <<'EOF' || fail "the AOT metadata lacks hints uform or the sample registers (see above)"
import fnmatch, json, sys
metadata = json.load(open(sys.argv[1]))
globs = {entry.get("glob") for entry in metadata.get("resources", [])}
reflection = {entry["type"]: entry for entry in metadata.get("reflection", []) if isinstance(entry["type"], str)}
jni = {entry["type"]: entry for entry in metadata.get("jni", []) if isinstance(entry["type"], str)}
missing = []
for glob in ("io/uform/kernels/*", "META-INF/maven/io.uform/uform-java/pom.properties",  # the starter's
             "ai/onnxruntime/native/**", "native/lib/**",  # the starter's, for its models
             "sample-docs/**"):  # the sample's
    if glob not in globs:
        missing.append("resource " + glob)
# The files sample-models.yml names, each matched by some pattern the sample registers (one pattern,
# all-minilm-l6-v2*, covers the four; no pattern has a / here, so fnmatch's * reads as the image's).
for name in ("all-minilm-l6-v2-q.onnx", "all-minilm-l6-v2-q-tokenizer.json",
             "all-minilm-l6-v2.onnx", "all-minilm-l6-v2-tokenizer.json"):
    if not any(glob and "/" not in glob and fnmatch.fnmatchcase(name, glob) for glob in globs):
        missing.append("resource " + name + " (no registered pattern matches it)")
for by_reference in ("IntByReference", "LongByReference", "PointerByReference"):
    if not reflection.get("com.sun.jna.ptr." + by_reference, {}).get("allPublicConstructors"):
        missing.append("public constructors of com.sun.jna.ptr." + by_reference)
libc = "io.uform.host.LinuxThreadPinner$Libc"
if not reflection.get(libc, {}).get("allDeclaredMethods"):
    missing.append("reflection on the declared methods of " + libc)
if not jni.get(libc, {}).get("allDeclaredMethods"):
    missing.append("JNI access to the declared methods of " + libc)
devices = "io.uform.spring.autoconfigure.actuate.UformEndpoint$DevicesDescriptor"
if not any(method["name"] == "devices" for method in reflection.get(devices, {}).get("methods", [])):
    missing.append("binding reflection on " + devices)
for entry in missing:
    print("  missing: " + entry, file=sys.stderr)
if missing:
    sys.exit(1)
print(f"aot check: {len(globs)} resource patterns, {len(reflection)} reflected types, {len(jni)} JNI types; uform's and the sample's among them")
EOF

work="$(mktemp -d /tmp/uform-aot.XXXXXX)"
pid=""
cleanup() {
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
log="$work/sample.log"
echo "== java -Dspring.aot.enabled=true -jar $jar"
# The exec'd java is this PID itself (no subshell), so SIGTERM reaches the JVM.
"$java_cmd" -Dspring.aot.enabled=true -Xmx512m -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED \
	-jar "$repo/$jar" --server.port=0 >"$log" 2>&1 &
pid=$!

port=""
for _ in $(seq 600); do
	port="$(sed -n 's/.*Tomcat started on port \([0-9]*\).*/\1/p' "$log" | head -n 1)"
	[[ -n "$port" ]] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.2
done
[[ -n "$port" ]] || fail "the sample did not start its web server in AOT mode: $(tail -n 40 "$log")"
grep -q 'Starting AOT-processed SampleApplication' "$log" \
	|| fail "the sample did not start from its AOT-generated initializer: $(head -n 20 "$log")"
base="http://127.0.0.1:$port"
echo "aot check: AOT-processed sample on port $port"

ready=""
for _ in $(seq 300); do
	ready="$(curl -s --max-time 5 "$base/actuator/health/readiness" || true)"
	[[ "$ready" == *'"UP"'* ]] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
[[ "$ready" == *'"UP"'* ]] || fail "the sample was not ready within 150 s (readiness: '$ready'): $(tail -n 40 "$log")"

get="$(curl -sf --max-time 30 "$base/search?q=how+do+I+set+the+number+of+threads&k=3")" \
	|| fail "GET /search failed: $(tail -n 20 "$log")"
post="$(curl -sf --max-time 30 "$base/search" -H 'Content-Type: application/json' \
	-d '{"query": "what does the scratch hold", "k": 2}')" || fail "POST /search failed: $(tail -n 20 "$log")"
uform="$(curl -sf --max-time 30 "$base/actuator/uform")" || fail "GET /actuator/uform failed"
devices="$(curl -sf --max-time 30 "$base/actuator/uform/devices")" || fail "GET /actuator/uform/devices failed"
python3 - "$get" "$post" "$uform" "$devices" <<'EOF' || fail "the AOT-started sample answered wrongly (see above)"
import json, sys
get, post, uform, devices = (json.loads(argument) for argument in sys.argv[1:])
for search, k in ((get, 3), (post, 2)):
    assert search["k"] == k and len(search["hits"]) == k, search
    assert search["passages"] > 0 and all(hit["file"] and hit["text"] for hit in search["hits"]), search
ram = uform["executors"]["uformRamExecutor"]
assert ram["kind"] == "RAM" and ram["state"] == "RUNNING", ram
assert uform["version"] and uform["capabilities"]["available"], uform
assert isinstance(devices, list), devices
print(f"aot check: search answered {get['hits'][0]['file']!r} first for the threads question; "
      f"/actuator/uform shows {ram['name']} {ram['state']} with {ram['config']['threads']} threads")
EOF

kill -TERM "$pid"
for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$pid" 2>/dev/null; then
	fail "the sample did not stop within 30 s of SIGTERM: $(tail -n 20 "$log")"
fi
wait "$pid" 2>/dev/null || true
pid=""

# What AOT decided is fixed: the build saw no GPU and uform.vram.enabled=auto, so it has no VRAM executor.
# A start that asks for one (a simulated GPU, uform.vram.enabled=true) must fail naming the property,
# not run without it.
echo "== the same jar started with uform.vram.enabled=true and a GPU: it must refuse, naming the property"
mismatch="$work/mismatch.log"
set +e
timeout 120 "$java_cmd" -Dspring.aot.enabled=true -Xmx512m -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED \
	-jar "$repo/$jar" --server.port=0 --uform.vram.enabled=true --uform.devices.simulated=1 >"$mismatch" 2>&1
status=$?
set -e
[[ "$status" != 0 && "$status" != 124 ]] || fail "a start whose uform.vram.enabled differs from the AOT build's did not fail (exit $status): $(tail -n 20 "$mismatch")"
grep -q "Invalid value 'true' for configuration property 'uform.vram.enabled'" "$mismatch" \
	&& grep -q 'built (process-aot) without a VRAM executor, but here uform.vram.enabled is true' "$mismatch" \
	|| fail "the refused start did not say why: $(grep -v '^\s*at ' "$mismatch" | tail -n 20)"
echo "aot check: refused: this application was built (process-aot) without a VRAM executor, but here uform.vram.enabled is true"
echo "aot check: PASSED"
