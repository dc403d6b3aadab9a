#!/usr/bin/env bash
# Measures what happens to requests on kept-alive connections when the sample gets SIGTERM
# (sample-app/scripts/ShutdownDrops.java): starts the jar on a free loopback port, waits until it is
# ready, runs the clients, signals the app, and prints the outcomes of the requests sent after it.
#
#   sample-app/scripts/shutdown-drops.sh [--clients=32] [--path=/search?q=threads&k=3] [--after-ms=4000]
#
# Bounded: the app is killed if it has not exited 30 s after the signal. $APP_ARGS go to the app.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=${SAMPLE_JAR:-$(ls "$root"/sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original | head -1 || true)}
[ -n "$jar" ] || { echo "shutdown-drops.sh: build the jar first (./mvnw -pl sample-app -am package -DskipTests)" >&2; exit 2; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$java" -jar "$jar" --server.address=127.0.0.1 --server.port="$port" ${APP_ARGS:-} >"$log" 2>&1 &
app=$!
trap 'kill -9 $app 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 240); do
  if curl -fs "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null 2>&1; then break; fi
  kill -0 $app 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.5
done
"$java" "$here/ShutdownDrops.java" --port="$port" --pid="$app" "$@"
for _ in $(seq 1 60); do kill -0 $app 2>/dev/null || break; sleep 0.5; done
wait $app 2>/dev/null && status=0 || status=$?
echo "app exited with status $status; its shutdown log:"
sed -n '/SIGTERM handler/,$p' "$log" | cut -c1-400
