#!/usr/bin/env bash
# Embedding throughput, side by side in one run (sample-app/src/test/java/io/uform/sample/bench/
# EmbeddingThroughput.java): the executor-sliced path, ONNX Runtime's own threading and langchain4j's
# default embedAll, at batches of 64 and 256 passages of the bundled docs, outputs compared first.
#
#   sample-app/scripts/embedding-bench.sh [rounds]      (default 12; about 2 minutes on 2 cores)
#
# Builds the sample's classes and test classes (no tests run), then runs the benchmark's main. Run it
# on a quiet machine: every path uses every core.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
cp=$(mktemp)
trap 'rm -f "$cp"' EXIT
# In the reactor, so uform's own modules resolve to their freshly built classes; every module writes
# the file, the sample (built last) last.
./mvnw -q -B -pl sample-app -am test-compile dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$cp" -Dmdep.includeScope=test
exec "$java" --enable-native-access=ALL-UNNAMED -cp "sample-app/target/test-classes:sample-app/target/classes:$(cat "$cp")" \
  io.uform.sample.bench.EmbeddingThroughput "$@"
