#!/usr/bin/env bash
# One Slurm task of scripts/slurm/check.sh: runs the task's command and writes how it ended to
# <directory>/exit-<label>-<SLURM_PROCID>, so that the check judges each task (srun's own status merges
# the tasks', and a step stopped with scancel says nothing of what each task did on the signal).
#
# Usage: task.sh DIRECTORY LABEL COMMAND [ARGUMENT...]
set -u
directory=$1
label=$2
shift 2
# A handler, not an ignored signal: the command starts with SIGTERM's default action and handles the
# signal itself (a JVM runs its shutdown hooks), while this shell, signalled with it, waits for it to end.
trap : TERM
"$@"
status=$?
echo "$status" >"$directory/exit-$label-${SLURM_PROCID:-unknown}"
exit "$status"
