#!/usr/bin/env bash
# Drives search traffic at the uform sample and prints throughput and latency percentiles per engine
# (sample-app/scripts/LoadClient.java: closed loop, engines interleaved, equal results checked first).
#
#   sample-app/scripts/load.sh [--start] [client options]
#
# Without --start it loads an app already running at --url (default http://127.0.0.1:8080). With
# --start it starts the sample's jar itself (building it if missing) on a free port, passing
# $APP_ARGS (e.g. APP_ARGS="--uform.devices.simulated=2"), waits until it is ready, runs the load,
# and stops the app by its PID, whatever happens.
#
# Client options: --duration=20s --warmup=5s --rounds=4 --concurrency=4 --k=10
#                 --engines=ram,parallel-stream (any of auto, ram, vram, parallel-stream)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

start=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--start" ]; then start=1; else args+=("$arg"); fi
done

if [ "$start" = 0 ]; then
  exec "$java" "$here/LoadClient.java" "${args[@]}"
fi

jar=$(ls "$root"/sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original | head -1 || true)
if [ -z "$jar" ]; then
  echo "load.sh: building the sample app" >&2
  (cd "$root" && ./mvnw -q -B -pl sample-app -am package -DskipTests)
  jar=$(ls "$root"/sample-app/target/uform-sample-app-*.jar | grep -v original | head -1)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp /tmp/uform-sample-load.XXXXXX.log)
# shellcheck disable=SC2086 # APP_ARGS is a list of Spring arguments
"$java" -jar "$jar" --server.port="$port" --server.address=127.0.0.1 ${APP_ARGS:-} >"$log" 2>&1 &
app=$!
trap 'kill "$app" 2>/dev/null; wait "$app" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  if curl -fs "http://127.0.0.1:$port/actuator/health" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$app" 2>/dev/null; then echo "load.sh: the app exited; its log:" >&2; cat "$log" >&2; exit 1; fi
  sleep 0.5
done
curl -fs "http://127.0.0.1:$port/actuator/health" >/dev/null || { echo "load.sh: the app is not ready after 60 s; log: $log" >&2; exit 1; }
grep -E "Search: |Generated " "$log" || true
"$java" "$here/LoadClient.java" --url="http://127.0.0.1:$port" "${args[@]}"
