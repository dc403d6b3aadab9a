#!/usr/bin/env bash
# The official openai npm SDK (6.x: 7.x wants Node 22, the machines have Node 20) against the sample's
# POST /v1/embeddings: installs it with npm into node_modules/ here (ignored), starts the sample's jar
# on a free loopback port, runs embed.mjs, and stops the jar whatever happens. Exit 2: no node/npm here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
command -v node >/dev/null && command -v npm >/dev/null || { echo "openai-node check: node and npm are needed" >&2; exit 2; }
(cd "$here" && npm install --no-audit --no-fund --silent >/dev/null)
jar=${SAMPLE_JAR:-$(ls "$root"/sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original | head -1 || true)}
[ -n "$jar" ] || { echo "openai-node check: build the jar first (./mvnw -pl sample-app -am package -DskipTests)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$java" -jar "$jar" --server.address=127.0.0.1 --server.port="$port" --uform.ram.threads=2 >"$log" 2>&1 &
app=$!
stop() {
  local status=$?
  kill "$app" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$app" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$app" 2>/dev/null || true
  rm -f "$log"
  exit "$status"
}
trap stop EXIT
for _ in $(seq 1 240); do
  curl -fs "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1 && break
  kill -0 $app 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.5
done
SAMPLE_URL="http://127.0.0.1:$port" node "$here/embed.mjs"
