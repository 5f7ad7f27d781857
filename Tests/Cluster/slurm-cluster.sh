#!/bin/bash
# A throw-away one-node SLURM cluster on this machine for the scheduler tests:
#   slurm-cluster.sh start DIR   munged, slurmctld and slurmd with their config, key, state and
#                                logs under DIR, on free loopback ports; prints SLURM_CONF=DIR/slurm.conf
#   slurm-cluster.sh stop DIR    stops every daemon that `start DIR` started
# Needs root (as CI runs) and Debian's slurm-wlm and munge. Exit 3: not available here.
set -euo pipefail
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2; }

stop() {
    [ -f "$dir/slurm.conf" ] && SLURM_CONF=$dir/slurm.conf scontrol shutdown >/dev/null 2>&1 || true
    for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null || true)
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2; }
for tool in munged slurmctld slurmd sbatch scontrol squeue; do
    command -v $tool >/dev/null || { echo "slurm-cluster: $tool not found (Debian packages slurm-wlm, munge)" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-cluster: needs root (SlurmdUser=root)" >&2; exit 3; }

# The daemons outlive this script: they must hold none of its descriptors but the three below
# (whoever started it may watch one, as Foundation's Process does a socket, until all copies close).
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && [ "$fd" != 255 ] && eval "exec $fd>&-" 2>/dev/null || true
done
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" -f </dev/null >/dev/null 2>&1

# Two free TCP ports on loopback for slurmctld and slurmd.
read -r ctld_port d_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat > "$dir/slurm.conf" <<CONF
ClusterName=darkroomtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobRequeue=1
KillWait=10
MinJobAge=600
SwitchType=switch/none
PlugStackConfig=/dev/null
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
# The daemons must not hold this script's output open: whoever runs it waits for end of file.
slurmctld -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1
slurmd -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmd.out" 2>&1
for _ in $(seq 100); do
    if sinfo -h -o %t 2>/dev/null | grep -q idle; then echo "SLURM_CONF=$SLURM_CONF"; exit 0; fi
    sleep 0.2
done
echo "slurm-cluster: the node did not come up (logs in $dir/log)" >&2
stop
exit 1
