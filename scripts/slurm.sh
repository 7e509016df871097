#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real Slurm cluster on this one machine, for the notebook session's tests and for
# trying `%dart start --slurm` on a laptop: Debian's slurmctld, two slurmd nodes (n1, n2)
# with their own hostnames (one UTS namespace each) and munge. Root only.
#
#   bash scripts/slurm.sh up       # install the packages if missing, start the daemons
#   eval "$(bash scripts/slurm.sh env)"   # SLURM_CONF for srun, sbatch, squeue, scancel
#   bash scripts/slurm.sh status
#   bash scripts/slurm.sh down     # cancel every job, end every daemon by its pid, clean up
#
# Idempotent: `up` on a running cluster only checks it; `down` on a stopped one does
# nothing. All state (config, munge key and socket, state save, spools, logs, pid files)
# lives in one scratch folder, $DART_SLURM_DIR (default /tmp/dart-slurm), which `up`
# wipes before a fresh start (job ids restart at 1, and a stale spool breaks pmix) and
# `down` removes.
#
# Environment:
#   DART_SLURM_DIR    the scratch folder (default /tmp/dart-slurm)
#   DART_SLURM_CPUS   CPUs per node that Slurm believes in (default 4; the machine may have
#                     fewer cores: SlurmdParameters=config_overrides)
#   DART_SLURM_PORT   slurmctld's port (default 16817); the nodes use the next two
#
# Settings that matter (each one was needed on Debian 12's Slurm 22.05 on one machine):
# AuthInfo names our munge socket; proctrack/linuxproc and task/none need no cgroups;
# TmpFS per node (%n), or `srun --mpi=pmix` fails ("pmixp_mkdir ... File exists"); a
# hostname per node, or Open MPI's ranks on the two nodes share one shared-memory segment
# name and crash; MpiDefault=none, so a job must ask for --mpi=pmi2 (MPICH) or
# --mpi=pmix (Open MPI) itself. The node names do not resolve: MPICH's mpiexec inside a
# job needs `-iface lo`.
set -euo pipefail

DIR=${DART_SLURM_DIR:-/tmp/dart-slurm}
CPUS=${DART_SLURM_CPUS:-4}
PORT=${DART_SLURM_PORT:-16817}
NODES=(n1 n2)
CONF=$DIR/slurm.conf

log() { echo "[slurm] $*" >&2; }
die() { echo "[slurm] error: $*" >&2; exit 1; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2; }

# The pid in a pid file if that process is alive, else nothing.
live_pid() { # <pidfile>
  local pid
  [[ -f $1 ]] || return 0
  pid=$(cat "$1" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
  return 0
}

pidfiles() {
  echo "$DIR/run/slurmctld.pid"
  local n
  for n in "${NODES[@]}"; do echo "$DIR/run/slurmd-$n.pid"; done
  echo "$DIR/run/munged.pid"
}

running() { # all daemons alive?
  local f
  for f in $(pidfiles); do [[ -n $(live_pid "$f") ]] || return 1; done
}

install_packages() {
  local missing=() p status
  for p in slurmctld slurmd slurm-client munge; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "installing ${missing[*]} (apt-get)"
  # Debian's packages do not start their services here; we start the daemons ourselves.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null ||
    { apt-get update -qq -o DPkg::Lock::Timeout=300 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null; } ||
    die "apt-get install ${missing[*]} failed"
}

write_conf() {
  local first=$((PORT + 1)) last=$((PORT + ${#NODES[@]}))
  cat >"$CONF" <<EOF
# Written by scripts/slurm.sh: a Slurm cluster of ${#NODES[@]} nodes on one machine.
ClusterName=dart
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
TmpFS=$DIR/tmp/%n
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
InactiveLimit=0
MinJobAge=60
KillWait=5
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=n[1-${#NODES[@]}] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$first-$last] CPUs=$CPUS State=UNKNOWN
PartitionName=debug Nodes=n[1-${#NODES[@]}] Default=YES MaxTime=INFINITE State=UP
EOF
}

# Ends the process of a pid file: SIGTERM, up to 10 s, then SIGKILL.
stop_pidfile() { # <pidfile> <name>
  local pid i
  pid=$(live_pid "$1")
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "$2 (pid $pid) did not end after SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# The job steps' slurmstepd processes of this cluster (their spool folder is ours).
stepd_pids() {
  local p
  for p in /proc/[0-9]*; do
    [[ $(cat "$p/comm" 2>/dev/null) == slurmstepd ]] || continue
    if tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$CONF" ||
       [[ $(readlink "$p/cwd" 2>/dev/null) == "$DIR"/* ]]; then
      echo "${p#/proc/}"
    fi
  done
}

down() {
  [[ -d $DIR ]] || { log "not running ($DIR does not exist)"; return 0; }
  if [[ -n $(live_pid "$DIR/run/slurmctld.pid") ]]; then
    # Cancel every job first and give Slurm KillWait to end their processes.
    if SLURM_CONF=$CONF timeout 10 scancel --full --user=root 2>/dev/null; then
      local i
      for ((i = 0; i < 80; i++)); do
        [[ -z $(SLURM_CONF=$CONF timeout 5 squeue -h -o %i 2>/dev/null || true) ]] && break
        sleep 0.25
      done
    fi
  fi
  local f n
  stop_pidfile "$DIR/run/slurmctld.pid" slurmctld
  for n in "${NODES[@]}"; do stop_pidfile "$DIR/run/slurmd-$n.pid" "slurmd $n"; done
  # A step daemon whose job could not be ended in time: by its pid too.
  local pid
  for pid in $(stepd_pids); do
    log "slurmstepd $pid still running: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  stop_pidfile "$DIR/run/munged.pid" munged
  for f in $(pidfiles); do
    [[ -z $(live_pid "$f") ]] || die "a daemon of $f is still running; $DIR kept"
  done
  rm -rf "$DIR"
  log "down ($DIR removed)"
}

up() {
  [[ $(id -u) == 0 ]] || die "root only (Slurm's daemons and munge run as root here)"
  command -v unshare >/dev/null || die "unshare (util-linux) is missing"
  install_packages
  if running && SLURM_CONF=$CONF timeout 10 sinfo -h >/dev/null 2>&1; then
    log "already up ($DIR)"
    return 0
  fi
  # Half up, or stale state: start from nothing.
  down
  local n
  mkdir -p "$DIR"/{munge,state,run,log}
  for n in "${NODES[@]}"; do mkdir -p "$DIR/spool/$n" "$DIR/tmp/$n"; done
  # The socket's folder must be reachable (o+x) for the clients.
  chmod 755 "$DIR" "$DIR/munge"
  head -c 1024 /dev/urandom >"$DIR/munge/munge.key"
  chmod 400 "$DIR/munge/munge.key"
  write_conf
  munged --force --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munge.seed" || die "munged did not start (log: $DIR/log/munged.log)"
  slurmctld -f "$CONF" || die "slurmctld did not start (log: $DIR/log/slurmctld.log)"
  for n in "${NODES[@]}"; do
    # Its own UTS namespace: the node's processes see the hostname $n.
    unshare --uts sh -c "hostname $n && exec slurmd -f '$CONF' -N $n" ||
      die "slurmd $n did not start (log: $DIR/log/slurmd-$n.log)"
  done
  # Wait until both nodes are idle (a few tenths of a second, usually).
  local i state
  for ((i = 0; i < 150; i++)); do
    state=$(SLURM_CONF=$CONF timeout 5 sinfo -h -N -o '%N %t' 2>/dev/null || true)
    if [[ $(grep -c ' idle$' <<<"$state") == "${#NODES[@]}" ]]; then
      log "up: ${#NODES[@]} nodes (${NODES[*]}, $CPUS CPUs each) in $DIR"
      log "use: export SLURM_CONF=$CONF"
      return 0
    fi
    sleep 0.2
  done
  log "nodes not idle after 30 s: $state"
  down
  die "the cluster did not come up (logs were in $DIR/log)"
}

status() {
  if running; then
    echo "up: $DIR"
    SLURM_CONF=$CONF sinfo -N
    SLURM_CONF=$CONF squeue
  else
    echo "down"
    return 1
  fi
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
