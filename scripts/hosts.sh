#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two real hosts on one machine for DART-MPI jobs (root): each host is a network, UTS, IPC
# and mount namespace of its own, with its own hostname (dart-h1, dart-h2), its own
# /dev/shm (a private tmpfs), an /etc/hosts that names both, and one end of a veth pair
# (10.236.36.1/24 and .2/24, a range used only here). MPI and DART see two nodes by
# hostname, and MPI's traffic between them is real TCP through the veth pair.
#
#   bash scripts/hosts.sh up                  create the hosts (idempotent)
#   bash scripts/hosts.sh down                remove them and end every process in them
#   bash scripts/hosts.sh status              print the hosts (exit 1 when not up)
#   bash scripts/hosts.sh run [--mpi mpich|openmpi] [--timeout S] -n N [--env NAME=VALUE]...
#                             -- PROGRAM [ARGS...]
#       a job of N processes, ceil(N/2) per host in rank order (ranks 0..k-1 on dart-h1),
#       started through python/dartpy/launch.py with this script's mpiexec wrapper;
#       brings the hosts up first when they are not, and then removes them at its end,
#       also after a failure or a signal (a run that found them up leaves them up).
#   bash scripts/hosts.sh mpiexec mpich|openmpi MPIEXEC-ARGS...
#       the wrapper itself (launch.py --mpiexec <state>/mpiexec.<mpi> runs it): enters
#       dart-h1 and runs the MPI's mpiexec there with the two hosts and the agent below.
#   bash scripts/hosts.sh agent [-x] HOST COMMAND...
#       what MPI starts its remote daemons with, in place of ssh (hydra's -launcher-exec,
#       Open MPI's plm_rsh_agent): runs COMMAND with sh -c inside HOST's namespaces.
#
# Environment: DART_HOSTS_STATE (state folder, default /run/dart-hosts),
# DART_HOSTS_SHM_MB (size of each host's /dev/shm, default 1024).
# What it took and how it differs from DART_UNITS_PER_NODE: docs/two-hosts.md.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF="$REPO/scripts/hosts.sh"
STATE=${DART_HOSTS_STATE:-/run/dart-hosts}
SHM_MB=${DART_HOSTS_SHM_MB:-1024}
HOSTS=(dart-h1 dart-h2)
ADDRS=(10.236.36.1 10.236.36.2)
NETNS_PREFIX=dart-hosts-

log() { echo "[hosts] $*" >&2; }
die() {
  echo "[hosts] error: $*" >&2
  exit 1
}

need_root() {
  [[ $(id -u) == 0 ]] || die "must run as root (it creates network namespaces)"
  local t
  for t in ip nsenter unshare mount; do
    command -v "$t" >/dev/null || die "$t not found on PATH"
  done
}

# The process that holds host i's namespaces (its pid file, checked against /proc: a
# pid that is gone or was reused by something else does not count).
holder_pid() {
  local f="$STATE/${HOSTS[$1]}.pid" pid
  [[ -r $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "dart-hosts-holder" || return 1
  echo "$pid"
}

is_up() {
  local i
  for i in "${!HOSTS[@]}"; do
    holder_pid "$i" >/dev/null || return 1
    ip netns list | grep -qw "$NETNS_PREFIX${HOSTS[$i]}" || return 1
  done
}

# nsenter into every namespace of host i but the pid namespace (there is none of its
# own: the processes stay visible, and killable, from the machine).
enter() {
  local i=$1 pid
  shift
  pid=$(holder_pid "$i") || die "host ${HOSTS[$i]} is not up (bash scripts/hosts.sh up)"
  exec nsenter -t "$pid" --net --uts --ipc --mount --wd="$PWD" -- "$@"
}

host_index() {
  local i
  for i in "${!HOSTS[@]}"; do
    if [[ ${HOSTS[$i]} == "$1" || ${ADDRS[$i]} == "$1" ]]; then
      echo "$i"
      return 0
    fi
  done
  return 1
}

cmd_down() {
  need_root
  local i pid ns pids
  for i in "${!HOSTS[@]}"; do
    ns="$NETNS_PREFIX${HOSTS[$i]}"
    # Every process in the host's network namespace was started here: MPI's daemons
    # and ranks that a killed job left behind, and the holder.
    if ip netns list | grep -qw "$ns"; then
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      if [[ -n $pids ]]; then
        # shellcheck disable=SC2086
        kill -TERM $pids 2>/dev/null || true
        sleep 0.2
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        # shellcheck disable=SC2086
        [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
      fi
    fi
    if pid=$(holder_pid "$i"); then kill -KILL "$pid" 2>/dev/null || true; fi
    # Deleting the namespace deletes its end of the veth pair, and with it the other.
    if ip netns list | grep -qw "$ns"; then
      ip netns del "$ns" || die "cannot delete network namespace $ns"
    fi
  done
  rm -rf "$STATE"
  log "down"
}

cmd_up() {
  need_root
  if is_up; then
    log "already up: ${HOSTS[*]} (${ADDRS[*]})"
    return 0
  fi
  cmd_down 2>/dev/null # a half-made set from an interrupted up
  # Whatever fails from here on (a command, or die) removes what was made.
  trap 'cmd_down' EXIT
  mkdir -p "$STATE"
  {
    echo "127.0.0.1 localhost"
    for i in "${!HOSTS[@]}"; do echo "${ADDRS[$i]} ${HOSTS[$i]}"; done
  } >"$STATE/hosts"
  local i ns a b
  for i in "${!HOSTS[@]}"; do
    ip netns add "$NETNS_PREFIX${HOSTS[$i]}"
  done
  a="$NETNS_PREFIX${HOSTS[0]}"
  b="$NETNS_PREFIX${HOSTS[1]}"
  ip link add dart-h1-veth netns "$a" type veth peer name dart-h2-veth netns "$b"
  for i in "${!HOSTS[@]}"; do
    ns="$NETNS_PREFIX${HOSTS[$i]}"
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "${ADDRS[$i]}/24" dev "${HOSTS[$i]}-veth"
    ip -n "$ns" link set "${HOSTS[$i]}-veth" up
    # The holder: a sleeping shell in the host's namespaces; its UTS, IPC and mount
    # namespaces are new (hostname, /dev/shm, /etc/hosts), its network namespace the one
    # made above. Detached, so that it outlives this script and its caller's session.
    # shellcheck disable=SC2016 # expanded by the inner bash
    setsid ip netns exec "$ns" unshare --uts --ipc --mount --propagation private \
      bash -c 'hostname "$1" && mount -t tmpfs -o "size=$2m,mode=1777" dart-shm /dev/shm &&
             mount --bind "$3/hosts" /etc/hosts && echo $$ >"$3/$1.pid" &&
             exec -a dart-hosts-holder sleep infinity' \
      dart-hosts "${HOSTS[$i]}" "$SHM_MB" "$STATE" </dev/null >/dev/null 2>&1 &
  done
  local t
  for t in $(seq 100); do
    is_up && break
    sleep 0.05
  done
  is_up || die "the hosts did not come up (namespaces or mounts refused?)"
  # The mpiexec wrappers that launch.py gets as --mpiexec, and the agent that the MPIs
  # start remote processes with (single paths: hydra's -launcher-exec wants one).
  for m in mpich openmpi; do
    printf '#!/bin/sh\nexec bash %q mpiexec %s "$@"\n' "$SELF" "$m" >"$STATE/mpiexec.$m"
  done
  printf '#!/bin/sh\nexec bash %q agent "$@"\n' "$SELF" >"$STATE/agent"
  chmod +x "$STATE"/mpiexec.* "$STATE/agent"
  # The link works both ways before anything relies on it.
  enter_check() { nsenter -t "$(holder_pid "$1")" --net -- ping -c 1 -W 2 "${ADDRS[$2]}" >/dev/null; }
  if command -v ping >/dev/null; then
    enter_check 0 1 || die "dart-h1 cannot reach ${ADDRS[1]}"
    enter_check 1 0 || die "dart-h2 cannot reach ${ADDRS[0]}"
  fi
  trap - EXIT
  log "up: ${HOSTS[*]} (${ADDRS[*]}), state in $STATE"
}

cmd_status() {
  if ! is_up; then
    echo "[hosts] down"
    return 1
  fi
  local i
  for i in "${!HOSTS[@]}"; do
    echo "${HOSTS[$i]} ${ADDRS[$i]} holder $(holder_pid "$i")" \
      "hostname $(nsenter -t "$(holder_pid "$i")" --uts hostname)"
  done
}

# `agent [ssh options] HOST COMMAND...`: as ssh does, the words of COMMAND are joined
# with spaces and run by a shell (hydra and Open MPI quote for that).
cmd_agent() {
  while [[ $# -gt 0 && $1 == -* ]]; do shift; done
  [[ $# -ge 2 ]] || die "agent: want HOST COMMAND..."
  local i
  i=$(host_index "$1") || die "agent: unknown host '$1' (known: ${HOSTS[*]})"
  shift
  enter "$i" sh -c "$*"
}

# `mpiexec MPI ARGS...`: the MPI's mpiexec inside dart-h1 with the two hosts, ceil(N/2)
# processes per host where N is the value of the last -n/-np in ARGS.
cmd_mpiexec() {
  local mpi=${1:-} n="" prev="" a per
  shift || true
  for a in "$@"; do
    if [[ $prev == -n || $prev == -np ]]; then n=$a; fi
    prev=$a
  done
  [[ $n =~ ^[0-9]+$ && $n -ge 1 ]] || die "mpiexec: no -n N in the arguments"
  per=$(((n + ${#HOSTS[@]} - 1) / ${#HOSTS[@]}))
  case $mpi in
    mpich)
      enter 0 mpiexec.mpich -launcher ssh -launcher-exec "$STATE/agent" \
        -hosts "${HOSTS[0]}:$per,${HOSTS[1]}:$per" "$@"
      ;;
    openmpi)
      # Debian's osc list (^ucx,pt2pt) leaves osc rdma, which cannot make a window
      # spanning hosts over btl tcp (MPI_ERR_WIN); osc ucx can (over UCX's tcp), and
      # pt2pt refuses windows under MPI_THREAD_MULTIPLE. Never a btl list (mpi-notes).
      enter 0 mpiexec.openmpi --mca plm_rsh_agent "$STATE/agent" --mca osc "${OMPI_MCA_osc:-sm,rdma,ucx}" \
        -H "${HOSTS[0]}:$per,${HOSTS[1]}:$per" "$@"
      ;;
    *) die "mpiexec: MPI must be mpich or openmpi, not '$mpi'" ;;
  esac
}

cmd_run() {
  local mpi=mpich timeout=300 n="" envs=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
      --timeout) timeout=${2:?--timeout needs a value}; shift 2 ;;
      -n) n=${2:?-n needs a value}; shift 2 ;;
      --env) envs+=(--env "${2:?--env needs NAME=VALUE}"); shift 2 ;;
      --) shift; break ;;
      *) die "run: unknown option '$1'" ;;
    esac
  done
  [[ $mpi == mpich || $mpi == openmpi ]] || die "run: --mpi must be mpich or openmpi"
  [[ $n =~ ^[0-9]+$ && $n -ge 1 ]] || die "run: -n N (N >= 1) is required"
  [[ $# -ge 1 ]] || die "run: no program (… -- PROGRAM [ARGS...])"
  need_root
  local owned=0 rc=0 job
  if ! is_up; then
    owned=1
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cmd_up
    trap 'cmd_down' EXIT
  fi
  # In the background, so that a signal to this script is handled at once (bash runs a
  # trap only after its foreground command ends): launch.py ends the job on SIGTERM.
  python3 "$REPO/python/dartpy/launch.py" --mpi "$mpi" --mpiexec "$STATE/mpiexec.$mpi" \
    --timeout "$timeout" -n "$n" "${envs[@]}" -- "$@" &
  job=$!
  trap 'kill -TERM "$job" 2>/dev/null; wait "$job"; exit 130' INT
  trap 'kill -TERM "$job" 2>/dev/null; wait "$job"; exit 143' TERM
  wait "$job" || rc=$?
  trap - INT TERM
  ((owned)) || return "$rc"
  exit "$rc"
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  run) shift; cmd_run "$@" ;;
  agent) shift; cmd_agent "$@" ;;
  mpiexec) shift; cmd_mpiexec "$@" ;;
  *)
    sed -n '3,26p' "$0" >&2
    exit 2
    ;;
esac
