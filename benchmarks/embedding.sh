#!/usr/bin/env bash
# Text embedding side by side in one JVM (benchmarks/embedding, io.uform.bench.embedding.EmbeddingPeers):
# uform's model on a RAM executor against Spring AI's TransformersEmbeddingModel, langchain4j's in-process
# model (defaults and tuned) and ONNX Runtime's own threading, on the same model file and paragraphs of
# docs/*.md, at 32 single-text callers and at batches of 64 and 256. See docs/benchmarks.md.
#
#   benchmarks/embedding.sh [rounds]      (default 5; about 3 minutes on 2 cores)
#
# MAIN picks another main of the module: MAIN=io.uform.bench.embedding.SpringEmbeddingPeers runs the same Spring
# Boot application with the starter's model, with Spring AI's TransformersEmbeddingModel and with none: startup
# (start, model load, first call) and throughput through Spring AI's EmbeddingModel (issue #41).
#
# Builds the module's classes in the reactor (-Pbench; the first build downloads Spring AI and
# PyTorch's natives for DJL, ~200 MB), then runs the main. Every peer uses every core: run it alone
# (on the shared machine: flock -x /tmp/uform-cpu.lock benchmarks/embedding.sh).
# Extra JVM flags: JAVA_OPTS (e.g. -XX:StartFlightRecording=filename=embedding.jfr).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
# Each module of the reactor writes its own target/classpath.txt; SKIP_BUILD=1 reuses the last one.
if [ -z "${SKIP_BUILD:-}" ]; then
  ./mvnw -q -B -ntp ${MAVEN_FLAGS:-} -Pbench -pl benchmarks/embedding -am compile dependency:build-classpath \
    -DskipTests -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
fi
cp=benchmarks/embedding/target/classpath.txt
# -Dai.djl.offline=true: DJL's PyTorch engine (Spring AI's pooling) loads its natives from the class path
# (pytorch-native-cpu) instead of downloading them.
exec "$java" --enable-native-access=ALL-UNNAMED -Dai.djl.offline=true ${JAVA_OPTS:-} \
  -cp "benchmarks/embedding/target/classes:$(cat "$cp")" "${MAIN:-io.uform.bench.embedding.EmbeddingPeers}" docs "$@"
