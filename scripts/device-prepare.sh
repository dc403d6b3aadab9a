#!/usr/bin/env bash
# Prepares, on this machine, everything scripts/device-run.sh needs on a lent GPU machine, where
# nothing can be fetched and no Java is installed (its image holds CUDA and Python only):
#
#   .device/jre.tar.xz          a Java 17 runtime made by jlink from this machine's JDK (the modules a
#                               Spring Boot web application, the uform CLI and a single-file Java
#                               program need), uncompressed inside so that xz packs it small
#   .device/uform-java-cli.jar  the uform-info / VramCheck jar (JNA included)
#   .device/sample.jar          the sample app, whose BOOT-INF/lib also feeds the startup benchmark
#   .device/mesh-classes/       the MeshJoinBenchmark classes (the rest of it is in the cli jar)
#   .device/startup-lib/        the few startup-benchmark jars the sample's fat jar lacks (starters)
#   benchmarks/startup/target/  the startup benchmark's classes and class path files (built here)
#   .device/commit.txt          the commit these were built from (device-run.sh prints it, so that a
#                               stale .device shows in the results); run this script again right
#                               before a device run
#
# .device/ is ignored by git. The device tool copies the working tree plus what `carry` names, 64 MiB
# in all, so this script stops when the two carried paths and the tracked files would pass 60 MiB.
# At the end it prints the call to make. Needs a JDK 17 (JAVA_HOME or PATH) with jlink, xz and the
# Maven wrapper's repository (MAVEN_ARGS=-o builds offline).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
JDK_BIN="${JAVA_HOME:+$JAVA_HOME/bin/}"
for tool in "${JDK_BIN}java" "${JDK_BIN}jlink" xz python3; do
	command -v "$tool" > /dev/null || { echo "device-prepare: $tool not found" >&2; exit 1; }
done
version=$("${JDK_BIN}java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
if [[ "$version" != 17 ]]; then
	echo "device-prepare: the runtime is made from the JDK that runs this (Java $version); use Java 17, the baseline" >&2
	exit 1
fi

echo "== building the jars (uform-java, the sample, the startup and mesh benchmarks)"
./mvnw -q -B -Pbench -pl uform-java,sample-app,benchmarks/startup,benchmarks -am -DskipTests package

OUT_DIR="$ROOT/.device"
rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR/mesh-classes/io/uform/bench" "$OUT_DIR/startup-lib"
cp uform-java/target/uform-java-*-cli.jar "$OUT_DIR/uform-java-cli.jar"
sample=$(ls sample-app/target/uform-sample-app-*.jar | grep -v original | head -n 1)
# The device runs the sample for its vectors and the VRAM path only (load.sh starts it with
# sample.embedding.enabled=false there), so the carried copy leaves out the embedding model's jars:
# ONNX Runtime alone is 93 MB with every platform's natives, over what the device tool carries.
python3 - "$sample" "$OUT_DIR/sample.jar" <<'EOF'
import sys, zipfile
source, target = sys.argv[1:]
model = ("BOOT-INF/lib/onnxruntime-", "BOOT-INF/lib/tokenizers-", "BOOT-INF/lib/langchain4j-", "BOOT-INF/lib/api-")
left = []
with zipfile.ZipFile(source) as fat, zipfile.ZipFile(target, "w") as out:
    for entry in fat.infolist():
        if entry.filename.startswith(model):
            left.append(entry.filename.rsplit("/", 1)[1])
            continue
        # Copied entry by entry with its own compression: Boot reads nested jars only when stored.
        out.writestr(entry, fat.read(entry.filename), compress_type=entry.compress_type)
print("  left out of the device's sample.jar:", ", ".join(left))
EOF
{
	echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!.device' 2>/dev/null || echo ' with uncommitted changes')"
	echo "built: $(date -u +%FT%TZ)"
} > "$OUT_DIR/commit.txt"
cp benchmarks/target/classes/io/uform/bench/MeshJoinBenchmark*.class "$OUT_DIR/mesh-classes/io/uform/bench/"

# The startup benchmark's jars: the sample's BOOT-INF/lib holds all but the starters (jars without
# classes, which Boot leaves out of a fat jar); carry those few, by file name.
python3 - "$OUT_DIR/sample.jar" benchmarks/startup/target/classpath-with-uform.txt "$OUT_DIR/startup-lib" <<'EOF'
import os, shutil, sys, zipfile
fat, classpath, into = sys.argv[1:]
inside = {os.path.basename(n) for n in zipfile.ZipFile(fat).namelist() if n.startswith("BOOT-INF/lib/")}
for entry in open(classpath).read().strip().split(":"):
    if os.path.basename(entry) not in inside:
        shutil.copy(entry, into)
        print("  carried beside the fat jar:", os.path.basename(entry))
EOF

echo "== making the Java runtime (jlink, then xz)"
modules=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,java.sql,java.xml,jdk.compiler,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.unsupported,jdk.zipfs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${JDK_BIN}jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=0 \
	--output "$work/jre"
tar -C "$work" -cf - jre | xz -6 -T0 > "$OUT_DIR/jre.tar.xz"

total=$(( $(du -sb "$OUT_DIR" | cut -f1) + $(du -sb benchmarks/startup/target | cut -f1)
	+ $(git ls-files -z | xargs -0 du -cb | tail -n 1 | cut -f1) ))
echo "== carried: $(du -sh "$OUT_DIR" | cut -f1) in .device, $(du -sh benchmarks/startup/target | cut -f1) in benchmarks/startup/target; with the tracked files $(( total / 1024 / 1024 )) MiB of 64"
if (( total > 60 * 1024 * 1024 )); then
	echo "device-prepare: over 60 MiB; the device tool takes 64 MiB in all" >&2
	exit 1
fi
cat <<EOF
== ready ($(cat "$OUT_DIR/commit.txt" | head -n 1)). On a session lent a GPU machine, first the GPU
   checks alone (about 1-2 minutes once the machine is up), leaving time to rerun them:
   run(command="STEPS=gpu-check bash scripts/device-run.sh", carry=[".device", "benchmarks/startup/target"], timeout_s=300)
   then, with the time left, what needs cores or a driver rather than the GPU (about 5 minutes):
   run(command="STEPS='mesh startup' bash scripts/device-run.sh", carry=[".device", "benchmarks/startup/target"], timeout_s=420)
EOF
