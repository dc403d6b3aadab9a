#!/usr/bin/env bash
# The mesh under a real Slurm: configures a one-node cluster on 127.0.0.1 in a temporary directory
# (its own slurm.conf, munge key and socket, state, spool and log directories; munged, slurmctld and
# slurmd started here and stopped by their PIDs, also when a check fails), then
#   1. srun --overcommit -n 4 starts uform-java's LauncherMeshMember (test sources) with no mesh
#      setting but the directory: all four must join with indices 0-3 of 4, under one job name
#      (slurm-<job id>.<step id>), leave, and leave the directory empty;
#   2. srun --overcommit -n 2 starts the sample app's jar with only uform.mesh.directory set: both
#      must report the mesh on /actuator/uform/mesh (index 0 and 1 of 2, the count from SLURM_NTASKS),
#      stop on SIGTERM, and leave the directory empty;
#   3. srun --overcommit -n 4 starts LauncherMeshMember again, staying joined with a 3 s liveness
#      timeout; once all four joined, one task is killed with SIGKILL: each of the other three must
#      report the mesh broken naming the dead task and end within the liveness timeout plus a margin.
# Every task must end with status 0, or 143 where the step was stopped with SIGTERM (scripts/slurm/task.sh
# records each): a JVM that crashes on the signal (a SIGSEGV in native code at shutdown) fails the check,
# which then prints that task's output and the JVM's hs_err_pid*.log.
# Processes of a real run are one per host (--ntasks-per-node=1); here they share one, as the mesh's
# processes of one host always could.
#
# Usage: scripts/slurm/check.sh   (after ./mvnw verify or package: it runs the built jars and test
# classes). Needs root (slurmd starts the tasks as their user) and Debian's slurm-wlm and munge.
# Exit status: 0 passed, 1 a check failed, 2 it cannot run here (no Slurm, no munge, not root).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
repo="$(pwd)"

skip() {
	echo "slurm check: SKIPPED: $*" >&2
	exit 2
}
fail() {
	local crash
	if [[ -n "${work:-}" ]]; then
		for crash in "$work"/log/hs_err_pid*.log; do
			[[ -e "$crash" ]] || continue
			echo "---- $crash" >&2
			cat "$crash" >&2
		done
	fi
	echo "slurm check: FAILED: $*" >&2
	exit 1
}
# Fails unless every task of a step ended with one of the statuses allowed, printing the output of each
# task that did not (all of them: with --kill-on-bad-exit, one task's crash ends the others with 143).
check_exits() {  # step tasks allowed...
	local step=$1 tasks=$2 task status bad=()
	shift 2
	for ((task = 0; task < tasks; task++)); do
		status="$(cat "$work/log/exit-$step-$task" 2>/dev/null || echo none)"
		[[ " $* " == *" $status "* ]] && continue
		bad+=("task $task: $status")
		echo "---- $work/log/$step-$task.out (task $task of the $step step, status $status)" >&2
		cat "$work/log/$step-$task.out" >&2 || true
	done
	local listed
	printf -v listed '%s; ' "${bad[@]}"
	((${#bad[@]} == 0)) || fail "tasks of the $step step ended with a status other than $* (none: killed before it" \
		"could say): ${listed%; }"
}

# The daemons are in /usr/sbin, which a non-login shell's PATH may lack.
PATH="$PATH:/usr/sbin"
for tool in munged mungekey slurmctld slurmd srun sinfo squeue scancel python3 curl; do
	command -v "$tool" >/dev/null 2>&1 \
		|| skip "no $tool: install Debian's slurm-wlm and munge (apt-get install -y slurm-wlm munge), python3 and curl"
done
[[ "$(id -u)" == 0 ]] || skip "not root: slurmd must run as root to start tasks"

version=$(sed -n 's/^version=//p' uform-java/target/maven-archiver/pom.properties 2>/dev/null || true)
cli_jar="uform-java/target/uform-java-$version-cli.jar"
sample_jar="sample-app/target/uform-sample-app-$version.jar"
for built in "$cli_jar" uform-java/target/test-classes/io/uform/child/LauncherMeshMember.class "$sample_jar"; do
	[[ -n "$version" && -e "$built" ]] || fail "$built is not built: run ./mvnw -B -pl uform-java,sample-app -am verify first"
done
java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
java_cmd="$(command -v "$java_cmd")"

work="$(mktemp -d /tmp/uform-slurm.XXXXXX)"
pids=()
cleanup() {
	local pid
	# Jobs first, while slurmctld still runs: their steps' tasks end with them, not orphaned under a
	# slurmstepd whose slurmd is gone. The cluster is this script's own (SLURM_CONF).
	if [[ -n "${SLURM_CONF:-}" ]] && squeue -h >/dev/null 2>&1; then
		scancel --full --user="$(id -un)" 2>/dev/null || true
		for _ in $(seq 50); do [[ -z "$(squeue -h 2>/dev/null || true)" ]] && break; sleep 0.2; done
	fi
	# Newest first: the srun steps, then slurmd, slurmctld and munged. Each is a child of this shell.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		pid=${pids[i]}
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	if [[ "${UFORM_SLURM_KEEP:-}" == 1 ]]; then
		echo "slurm check: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# munged refuses a key that others can read and a socket directory that others cannot enter.
mkdir -p "$work/munge" "$work/run" "$work/state" "$work/spool" "$work/log" "$work/mesh" "$work/mesh-spring"
chmod 700 "$work/munge"
chmod 755 "$work" "$work/run"
mungekey --create --keyfile="$work/munge/munge.key" --bits=1024
munged --foreground --key-file="$work/munge/munge.key" --socket="$work/run/munge.sock" \
	--pid-file="$work/run/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" \
	>"$work/log/munged.out" 2>&1 &
pids+=($!)

node="$(hostname -s)"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=uformcheck
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/run/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=10 State=UP
EOF

for _ in $(seq 50); do [[ -S "$work/run/munge.sock" ]] && break; sleep 0.1; done
[[ -S "$work/run/munge.sock" ]] || fail "munged did not start: $(cat "$work/log/munged.out")"
slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 100); do
	state="$(sinfo -h -n "$node" -o %T 2>/dev/null || true)"
	[[ "$state" == idle ]] && break
	sleep 0.2
done
[[ "$state" == idle ]] || fail "the node is not idle after 20 s (state '$state'): $(tail -n 5 "$work"/log/slurm*.log)"
echo "slurm check: one-node cluster '$node' up ($(srun --version))"

# The JVMs share 2 cores with the rest of the machine: small heaps, no JIT beyond C1. A crash report goes
# with the logs (by default it lands in the working directory, the repository).
jvm=(-Xmx256m -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED "-XX:ErrorFile=$work/log/hs_err_pid%p.log")
run_task=("$here/task.sh" "$work/log")

echo "== srun --overcommit -n 4: uform-java's LauncherMeshMember, only the directory set"
timeout 120 srun --overcommit -n 4 --kill-on-bad-exit=1 --output="$work/log/member-%t.out" \
	"${run_task[@]}" member "$java_cmd" "${jvm[@]}" -Duform.devices.simulated=1 \
	-cp "$cli_jar:uform-java/target/test-classes" io.uform.child.LauncherMeshMember "$work/mesh" &
pids+=($!)
srun_status=0
wait "${pids[-1]}" || srun_status=$?
check_exits member 4 0
[[ "$srun_status" == 0 ]] || fail "srun exited $srun_status: $(cat "$work"/log/member-*.out)"
cat "$work"/log/member-*.out
jobs_seen=""
for task in 0 1 2 3; do
	line="$(grep '^MESH ' "$work/log/member-$task.out" || true)"
	[[ "$line" =~ ^MESH\ index=$task\ count=4\ job=(slurm-[0-9]+\.[0-9]+)\  ]] \
		|| fail "task $task did not join as index $task of 4 under a slurm job name: '$line'"
	jobs_seen+="${BASH_REMATCH[1]}"$'\n'
	grep -qx "LEFT index=$task" "$work/log/member-$task.out" || fail "task $task did not leave"
done
[[ "$(sort -u <<<"${jobs_seen%$'\n'}" | wc -l)" == 1 ]] || fail "the tasks joined under different job names: $jobs_seen"
[[ -z "$(ls -A "$work/mesh")" ]] || fail "the mesh directory holds files after every task left: $(ls -AR "$work/mesh")"
echo "slurm check: 4 tasks joined as 0-3 of 4 under job $(head -n 1 <<<"$jobs_seen") and left cleanly"

echo "== srun --overcommit -n 2: the sample app's jar, only uform.mesh.directory set"
srun --overcommit -n 2 --output="$work/log/sample-%t.out" \
	"${run_task[@]}" sample "$java_cmd" "${jvm[@]}" -jar "$repo/$sample_jar" --server.port=0 --uform.devices.simulated=1 \
	--uform.mesh.directory="$work/mesh-spring" --uform.mesh.timeout=90s &
sample_srun=$!
pids+=($sample_srun)
ports=()
for task in 0 1; do
	port=""
	for _ in $(seq 600); do
		port="$(sed -n 's/.*Tomcat started on port \([0-9]*\).*/\1/p' "$work/log/sample-$task.out" 2>/dev/null | head -n 1 || true)"
		[[ -n "$port" ]] && break
		kill -0 "$sample_srun" 2>/dev/null || break
		sleep 0.2
	done
	[[ -n "$port" ]] || fail "sample task $task did not start its web server: $(tail -n 30 "$work/log/sample-$task.out")"
	ports+=("$port")
done
for task in 0 1; do
	mesh="$(curl -sf "http://127.0.0.1:${ports[task]}/actuator/uform/mesh")" \
		|| fail "sample task $task: GET /actuator/uform/mesh failed"
	echo "task $task /actuator/uform/mesh: $mesh"
	python3 - "$task" "$mesh" <<'EOF' || fail "sample task $task did not report its place in the mesh as srun gave it"
import json, sys
task, mesh = int(sys.argv[1]), json.loads(sys.argv[2])
assert mesh["state"] == "joined", mesh
assert mesh["hostDomainIndex"] == task and mesh["hostDomainCount"] == 2, mesh
assert mesh["job"].startswith("slurm-"), mesh
origins = mesh["origins"]
assert origins["launcher"].startswith("slurm"), origins
assert "SLURM_PROCID" in origins["hostDomainIndex"], origins
assert "SLURM_NTASKS" in origins["hostDomainCount"], origins
assert "SLURM_JOB_ID" in origins["job"], origins
assert "uform.mesh.directory" in origins["directory"], origins
EOF
	grep -q "Joined uform mesh bean 'uformMesh'" "$work/log/sample-$task.out" || fail "sample task $task logged no join"
done
# SIGTERM to the tasks themselves (scancel --signal): each Spring context closes, the mesh leaving first.
# (srun would not pass a SIGTERM of its own on: it ends the step, and the tasks are killed.)
sample_job="$(squeue -h -o %i | head -n 1)"
scancel --signal=TERM "$sample_job"
stopped=1
for _ in $(seq 300); do kill -0 "$sample_srun" 2>/dev/null || { stopped=0; break; }; sleep 0.2; done
[[ "$stopped" == 0 ]] || fail "the sample tasks did not stop within 60 s of SIGTERM"
# 143: the JVM's status after SIGTERM. Anything else (134 for a JVM that crashed at shutdown) fails.
check_exits sample 2 0 143
[[ -z "$(ls -A "$work/mesh-spring")" ]] || fail "the mesh directory holds files after both samples stopped: $(ls -AR "$work/mesh-spring")"
grep -h "Joined uform mesh" "$work"/log/sample-*.out
echo "slurm check: 2 sample apps joined as 0 and 1 of 2 under srun, reported it on /actuator/uform/mesh and left cleanly"

echo "== srun --overcommit -n 4: LauncherMeshMember staying joined; one task killed with SIGKILL"
liveness_ms=3000
mkdir -p "$work/mesh-dead"
srun --overcommit -n 4 --output="$work/log/dying-%t.out" \
	"${run_task[@]}" dying "$java_cmd" "${jvm[@]}" -Duform.devices.simulated=1 \
	-cp "$cli_jar:uform-java/target/test-classes" io.uform.child.LauncherMeshMember "$work/mesh-dead" "$liveness_ms" &
dying_srun=$!
pids+=($dying_srun)
for task in 0 1 2 3; do
	for _ in $(seq 600); do
		grep -q '^MESH ' "$work/log/dying-$task.out" 2>/dev/null && break
		kill -0 "$dying_srun" 2>/dev/null || break
		sleep 0.2
	done
	grep -q '^MESH ' "$work/log/dying-$task.out" 2>/dev/null || fail "task $task did not join: $(cat "$work"/log/dying-*.out)"
done
victim=2
victim_pid="$(sed -n 's/^MESH .* pid=\([0-9]*\)$/\1/p' "$work/log/dying-$victim.out")"
[[ -n "$victim_pid" ]] || fail "task $victim printed no pid"
killed_at=$(date +%s%N)
kill -KILL "$victim_pid"
for _ in $(seq 300); do kill -0 "$dying_srun" 2>/dev/null || break; sleep 0.1; done
ended_ms=$((($(date +%s%N) - killed_at) / 1000000))
kill -0 "$dying_srun" 2>/dev/null && fail "the other tasks did not end within 30 s of task $victim's SIGKILL"
# Liveness timeout + 2 refreshes to notice, then a JVM's exit: 10 s of margin on a busy 2-core machine.
((ended_ms < liveness_ms + 10000)) || fail "the other tasks ended ${ended_ms} ms after the SIGKILL, over ${liveness_ms} ms + 10 s"
for task in 0 1 3; do
	grep -q "^BROKEN index=$task dead=$victim reason=index $victim (host [^,]*, pid $victim_pid) died" \
		"$work/log/dying-$task.out" || fail "task $task did not name task $victim dead: $(cat "$work/log/dying-$task.out")"
	grep -qx "LEFT index=$task" "$work/log/dying-$task.out" || fail "task $task did not leave"
done
check_exits dying 4 0 137
[[ -z "$(ls -A "$work/mesh-dead")" ]] || fail "the mesh directory holds files after the survivors left: $(ls -AR "$work/mesh-dead")"
grep -h '^BROKEN' "$work"/log/dying-*.out
echo "slurm check: task $victim SIGKILLed; tasks 0, 1 and 3 named it dead and ended ${ended_ms} ms later (liveness timeout ${liveness_ms} ms)"
echo "slurm check: PASSED"
