#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A real Slurm on this one machine, for the tests of `--cluster slurm:...` (tests/runs/test_slurm.py):
# Debian's slurmctld, slurmd and munge, one node (this host, its CPUs and memory as `slurmd -C`
# reports them), one partition, no cgroups (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none),
# SelectType=select/cons_tres. Two GPUs of GRES are declared whose device files are links to
# /dev/null and /dev/zero, so that `gpus=` jobs are scheduled and Slurm hands each job its
# CUDA_VISIBLE_DEVICES as on a GPU node; nothing is bound (no cgroups), no GPU is used.
#
# Everything it writes is under one folder, LASSM_SLURM_DIR (default /var/spool/lassm-slurm): the
# configuration, the daemons' state, logs and pid files, and the finished jobs' log (jobcomp.log).
# The daemons listen on ports 6917 and 6918, not Slurm's 6817/6818, and read that slurm.conf
# (-f), so a Slurm already installed on the host is left alone; a client reaches this one with
# SLURM_CONF=$LASSM_SLURM_DIR/slurm.conf.
#
#   tools/slurm_single_node.sh [start]   install what is missing (root or passwordless sudo), write
#                                        the configuration, start munged, slurmctld and slurmd, wait
#                                        until sinfo shows the node idle; running already: reused.
#                                        Prints SLURM_CONF=... last. Exit 0 when up; 3, naming what
#                                        is missing, where it cannot be (not root, no apt-get, the
#                                        packages missing with LASSM_NO_DEPS set); 1 when the daemons
#                                        do not come up (their logs are named).
#   tools/slurm_single_node.sh status    exit 0 when it answers with the node idle or busy, else 1
#   tools/slurm_single_node.sh stop      stops the daemons it started (by their pid files)
#   tools/slurm_single_node.sh --list    the Debian packages it needs, one per line
set -uo pipefail

DIR=${LASSM_SLURM_DIR:-/var/spool/lassm-slurm}
CONF=$DIR/slurm.conf
PARTITION=${LASSM_SLURM_PARTITION:-debug}
PACKAGES=(slurmctld slurmd munge slurm-client)
WAIT=${LASSM_SLURM_WAIT:-60}

# shellcheck source=tools/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
say() { echo "slurm_single_node: $*"; }
cannot() { say "cannot start a Slurm here: $*"; exit 3; }
failed() { say "Slurm did not come up: $*"; exit 1; }
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
# Stops the daemon of a pid file and returns once it has exited (its port and state files free
# for the next start), not after a guessed sleep: SIGTERM, then SIGKILL after STOP_WAIT seconds.
STOP_WAIT=${LASSM_SLURM_STOP_WAIT:-10}
stop_daemon() {
    local pid i
    alive "$1" || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null
    for ((i = 0; i < STOP_WAIT * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    return 1
}
# The node's state as sinfo reports it; nothing (at once, not after sinfo's retries) without our
# slurmctld. A loaded machine (a test suite on every core) may keep a live slurmctld from answering
# for a while: three tries before the daemons are taken for dead and restarted.
answers() {
    local try state
    alive "$DIR/slurmctld.pid" || return 1
    for try in 1 2 3; do
        state=$(SLURM_CONF=$CONF timeout 20 sinfo -h -N -p "$PARTITION" -o %t 2>/dev/null) && [[ -n $state ]] &&
            { echo "$state"; return 0; }
        ((try < 3)) && sleep 2
    done
    return 1
}

case ${1:-start} in
--list)
    printf '%s\n' "${PACKAGES[@]}"
    exit 0 ;;
status)
    state=$(answers)
    if [[ $state =~ ^(idle|mix|alloc) ]]; then say "up (node $state, SLURM_CONF=$CONF)"; exit 0; fi
    say "not up (${state:-no answer from slurmctld with SLURM_CONF=$CONF})"
    exit 1 ;;
stop)
    for d in slurmd slurmctld; do
        if alive "$DIR/$d.pid"; then stop_daemon "$DIR/$d.pid" && say "stopped $d" || failed "$d did not exit"; fi
    done
    if [[ -f $DIR/munged.started ]] && alive /run/munge/munged.pid; then
        stop_daemon /run/munge/munged.pid && say "stopped munged" || failed "munged did not exit"
        rm -f "$DIR/munged.started"
    fi
    exit 0 ;;
start) ;;
*)
    echo "usage: $0 [start|status|stop|--list]" >&2
    exit 2 ;;
esac

if [[ $(answers) =~ ^(idle|mix|alloc) ]]; then
    say "already up; SLURM_CONF=$CONF"
    echo "SLURM_CONF=$CONF"
    exit 0
fi

root_runner || cannot "not root and no passwordless sudo (slurmctld and slurmd run as root here)"

mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if ((${#missing[@]})); then
    if [[ -n ${LASSM_NO_DEPS:-} && ${LASSM_NO_DEPS} != 0 ]]; then
        cannot "${missing[*]} missing (LASSM_NO_DEPS is set: nothing installed)"
    fi
    command -v apt-get >/dev/null 2>&1 || cannot "${missing[*]} missing and no apt-get to install them"
    say "installing ${missing[*]}"
    log=$(mktemp "${TMPDIR:-/tmp}/lassm-slurm-apt.XXXXXX")
    if ! apt_install "$log" "${missing[@]}"; then
        tail -n 20 "$log" >&2
        cannot "apt-get could not install ${missing[*]} (its output: $log)"
    fi
    rm -f "$log"
fi

# The node as slurmd sees it: CPUs, boards, sockets, cores, threads and memory.
node=$(slurmd -C 2>/dev/null | head -n 1)
[[ $node == NodeName=* ]] || failed "slurmd -C printed no node line"
host=${node#NodeName=}
host=${host%% *}

"${ROOT[@]}" mkdir -p "$DIR/ctld" "$DIR/d"
"${ROOT[@]}" ln -sfn /dev/null "$DIR/gpu0"
"${ROOT[@]}" ln -sfn /dev/zero "$DIR/gpu1"
"${ROOT[@]}" tee "$CONF" >/dev/null <<EOF
# Written by tools/slurm_single_node.sh: one node, one partition, no cgroups, no accounting.
ClusterName=lassm
SlurmctldHost=$host
SlurmctldPort=6917
SlurmdPort=6918
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/d
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=5
GresTypes=gpu
$node Gres=gpu:2 State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
"${ROOT[@]}" tee "$DIR/gres.conf" >/dev/null <<EOF
# Two stand-in GPUs (links to /dev/null and /dev/zero): GPU jobs are scheduled, nothing is bound.
Name=gpu File=$DIR/gpu[0-1]
EOF

# munged: the system's, started here when it does not answer.
if ! { munge -n | unmunge; } >/dev/null 2>&1; then
    "${ROOT[@]}" mkdir -p /run/munge /var/log/munge /var/lib/munge
    "${ROOT[@]}" chown munge:munge /run/munge /var/log/munge /var/lib/munge
    if [[ ! -s /etc/munge/munge.key ]]; then
        "${ROOT[@]}" mungekey --create >/dev/null 2>&1 || failed "no /etc/munge/munge.key and mungekey failed"
        "${ROOT[@]}" chown munge:munge /etc/munge/munge.key
    fi
    "${ROOT[@]}" runuser -u munge -- /usr/sbin/munged || failed "munged did not start (see /var/log/munge/munged.log)"
    "${ROOT[@]}" touch "$DIR/munged.started"
    for _ in $(seq 20); do { munge -n | unmunge; } >/dev/null 2>&1 && break; sleep 0.5; done
fi
{ munge -n | unmunge; } >/dev/null 2>&1 || failed "munged does not answer (munge -n | unmunge)"

for d in slurmctld slurmd; do
    stop_daemon "$DIR/$d.pid" || failed "the old $d (pid $(cat "$DIR/$d.pid")) did not exit"
done
# The configuration file sits beside gres.conf, where both daemons look for it. slurmctld starts
# with its job state cleared (-c): daemons that are not running belong to no live run, and a job
# they recorded as running (its run killed with the machine) would hold the node's cores until its
# walltime, every new worker job pending on Resources meanwhile.
"${ROOT[@]}" env SLURM_CONF="$CONF" slurmctld -c -f "$CONF" || failed "slurmctld did not start (see $DIR/slurmctld.log)"
"${ROOT[@]}" env SLURM_CONF="$CONF" slurmd -f "$CONF" || failed "slurmd did not start (see $DIR/slurmd.log)"

# WAIT seconds by the clock (a slow sinfo counts too), not a number of tries.
started=$SECONDS
while ((SECONDS - started < WAIT)); do
    state=$(answers)
    if [[ $state == idle* ]]; then
        say "up: node $host idle in partition $PARTITION after $((SECONDS - started)) s; SLURM_CONF=$CONF"
        echo "SLURM_CONF=$CONF"
        exit 0
    fi
    if [[ $state =~ ^(down|drain|fail) ]] && ((SECONDS - started > 5)); then
        SLURM_CONF=$CONF "${ROOT[@]}" scontrol update nodename="$host" state=resume >/dev/null 2>&1
    fi
    sleep 0.5
done
tail -n 5 "$DIR/slurmctld.log" "$DIR/slurmd.log" >&2
failed "the node is not idle after $WAIT s (sinfo: ${state:-no answer}; logs in $DIR)"
