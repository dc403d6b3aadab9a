#!/usr/bin/env bash
# Drives search traffic at the uform sample and prints throughput and latency percentiles per engine
# (sample-app/scripts/LoadClient.java: closed loop, engines interleaved, equal results checked first).
#
#   sample-app/scripts/load.sh [--start [--launches=N]] [client options] [--next client options ...]
#
# Without --start it loads an app already running at --url (default http://127.0.0.1:8080). With
# --start it starts the sample's jar itself ($SAMPLE_JAR, else sample-app/target's, built if missing)
# on a free port, passing $APP_ARGS (e.g. APP_ARGS="--uform.devices.simulated=2"), waits until it is
# ready, runs the load, and stops the app by its PID, whatever happens. --launches=N does that N times, each in a new JVM,
# and ends with the ratios of every launch and their median: the JIT compiles a scan differently from
# one JVM to the next, so one JVM's ratio is one sample, not the answer.
#
# Client options: --duration=20s --warmup=5s --rounds=4 --concurrency=4 --k=10
#                 --engines=ram,parallel-stream (any of auto, ram, vram, parallel-stream: they scan the
#                 synthetic vectors, which --start turns on, else start the app with
#                 --sample.vectors.enabled=true; or text:
#                 GET /search?q= with questions about these docs, embedding each query and scanning)
#
# /v1/embeddings (issue #43): --engines=v1:MODEL[,v1:MODEL...] with --texts=N (texts a request: real
# paragraphs of docs/*.md of at most --max-tokens=128 tokens), --concurrency=32 by default: requests/s,
# texts/s, p50/p99 and every non-200 status per model, rounds interleaved, and the first model's ratios to
# the others with their min-max over rounds. --saturate=true: the first model only, --concurrency=200
# by default, in --rounds bursts: the statuses, and whether every non-200 was 503/429 with Retry-After
# and OpenAI's error body; --recovery=true adds the time from each burst's end to the next 200.
# Spring AI's model beside the sample's, in one app: build with
#   ./mvnw -Ptransformers-peer -pl sample-app -am package -DskipTests
# and load --engines=v1:all-minilm-l6-v2-q,v1:spring-ai-transformers (the app is started with
# -Dai.djl.offline=true, so DJL loads PyTorch's natives from the jar).
# --next runs the client again on the same app (each run: the options before the first --next, then
# that run's own, which override them), so one launch serves several workloads.
# --duration and --warmup are per engine (durations take a unit: 20s, 2m), so a run takes about
# engines x (duration + warmup) after the app is up: 50 s for the defaults and two engines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

start=0
launches=1
engines=""
failed=0
args=()
# Each client run's own options, space-separated (client options hold no spaces): the first run has
# none beyond the common ones, each --next starts another.
runs=("")
for arg in "$@"; do
  case "$arg" in
    --start) start=1 ;;
    --launches=*) launches=${arg#--launches=} ;;
    --next) runs+=("") ;;
    *)
      if [ ${#runs[@]} -gt 1 ]; then runs[${#runs[@]}-1]="${runs[${#runs[@]}-1]} $arg"; else args+=("$arg"); fi
      case "$arg" in --engines=*) engines="$engines,${arg#--engines=}" ;; esac ;;
  esac
done
engines=${engines#,}
engines=${engines:-ram,parallel-stream}
# Every engine but text scans the synthetic vectors, which the app generates only when asked to; only
# text needs the embedding model, which an app started for the vectors alone goes without (it starts
# at once, with no index to build, and runs from a jar without the model's jars, as on a GPU machine).
vectors=""
if [ -n "$(tr ',' '\n' <<<"$engines" | grep -vx text | grep -v '^v1:' || true)" ]; then
  vectors="--sample.vectors.enabled=true"
fi
if ! tr ',' '\n' <<<"$engines" | grep -qE '^(text|v1:.*)$'; then
  vectors="$vectors --sample.embedding.enabled=false"
fi

# The v1 engines' texts: this project's docs.
if grep -q 'v1:' <<<"$engines"; then
  args+=("--docs=$root/docs")
fi

# Runs the client once per run; fails if any run failed, after all of them.
clients() {
  local failed=0 run
  for run in "${runs[@]}"; do
    [ ${#runs[@]} -gt 1 ] && echo "== client:${run:- (common options)}"
    # shellcheck disable=SC2086 # a run's options, split on spaces
    "$java" "$here/LoadClient.java" "$@" "${args[@]}" $run || failed=1
  done
  return $failed
}

if [ "$start" = 0 ]; then
  clients
  exit $?
fi

jar=${SAMPLE_JAR:-$(ls "$root"/sample-app/target/uform-sample-app-*.jar 2>/dev/null | grep -v original | head -1 || true)}
if [ -z "$jar" ]; then
  echo "load.sh: building the sample app" >&2
  (cd "$root" && ./mvnw -q -B -pl sample-app -am package -DskipTests)
  jar=$(ls "$root"/sample-app/target/uform-sample-app-*.jar | grep -v original | head -1)
fi

# What a failure must not leave behind: the app's JVM, its log, the summary. launch runs in this
# shell (never in a pipeline's subshell, whose $app this trap would not see), so this sees them all.
app=""
log=""
summary=""
cleanup() {
  if [ -n "$app" ]; then
    kill "$app" 2>/dev/null || true
    wait "$app" 2>/dev/null || true
  fi
  rm -f "$log" "$summary"
}
trap cleanup EXIT

# Whether the app is ready (its readiness probe: UP once the passage index is built): with curl, else python3, else bash's own /dev/tcp
# (a GPU machine may have neither of the first two).
healthy() {
  local url="http://127.0.0.1:$1/actuator/health/readiness"
  if command -v curl >/dev/null 2>&1; then
    curl -fs --max-time 2 "$url" >/dev/null 2>&1
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$url" >/dev/null 2>&1
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf 'GET /actuator/health/readiness HTTP/1.0\r\n\r\n' >&3 && head -n 1 <&3 | grep -q ' 200 ') 2>/dev/null
  fi
}

# Starts the app, loads it, stops it; the client's output goes to stdout.
launch() {
  local port
  # A free port from the kernel; 18080 where there is no python3 (a bare GPU machine).
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
  log=$(mktemp /tmp/uform-sample-load.XXXXXX.log)
  # shellcheck disable=SC2086 # APP_ARGS is a list of Spring arguments
  # -Dai.djl.offline=true: the transformers-peer build's DJL takes PyTorch's natives from the jar
  # rather than downloading them (no other build reads it).
  "$java" -Dai.djl.offline=true -jar "$jar" --server.port="$port" --server.address=127.0.0.1 $vectors ${APP_ARGS:-} >"$log" 2>&1 &
  app=$!
  for _ in $(seq 1 240); do
    if healthy "$port"; then break; fi
    if ! kill -0 "$app" 2>/dev/null; then echo "load.sh: the app exited; its log:" >&2; cat "$log" >&2; exit 1; fi
    sleep 0.5
  done
  healthy "$port" || { echo "load.sh: the app is not ready after 120 s; its log:" >&2; cat "$log" >&2; exit 1; }
  grep -E "Search: |Generated |Passage index ready" "$log" | sed 's/^.*\] //' || true
  clients --url="http://127.0.0.1:$port" || failed=1
  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  app=""
  rm -f "$log"
  log=""
}

if [ "$launches" = 1 ]; then
  launch
  exit $failed
fi
summary=$(mktemp)
for n in $(seq 1 "$launches"); do
  echo "== launch $n of $launches"
  # Not 'launch | tee': a pipeline runs launch in a subshell, where a failure exits with the app's PID
  # unknown to this shell's trap, and the app would keep running.
  launch > >(tee -a "$summary")
  wait $! 2>/dev/null || true
done
echo
echo "== ratios over $launches launches (each launch: its own JVM, engines interleaved)"
grep -E '^[a-z-]+ vs [a-z-]+: throughput x' "$summary" | sed -E 's/^([a-z-]+ vs [a-z-]+): throughput x([0-9.]+).*/\1 \2/' |
  sort -k1,3 -k4n | awk '
    { key = $1 " " $2 " " $3; v[key, ++n[key]] = $4; if (!(key in seen)) { seen[key] = 1; order[++keys] = key } }
    END {
      for (i = 1; i <= keys; i++) {
        k = order[i]; c = n[k]; list = ""
        for (j = 1; j <= c; j++) list = list (j > 1 ? " " : "") v[k, j]
        median = (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
        printf "%s: throughput x%.2f median (sorted: %s)\n", k, median, list
      }
    }'
rm -f "$summary"
summary=""
