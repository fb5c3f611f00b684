#!/usr/bin/env bash
# A real single-node Slurm for the study tests (package study), from Debian's packages, as root.
# Idempotent: installs slurmctld, slurmd, slurm-client and munge when missing, writes a minimal
# configuration to /etc/slurm/slurm.conf (state under $GOSBI_SLURM_DIR, default
# /var/lib/gosbi-slurm), starts munged, slurmctld and slurmd unless they already answer, and waits
# until sinfo shows the node idle. Stop it with `bash scripts/slurm.sh stop`.
set -euo pipefail

dir=${GOSBI_SLURM_DIR:-/var/lib/gosbi-slurm}
conf=/etc/slurm/slurm.conf
marker="# written by gosbi scripts/slurm.sh"

if [ "${1:-}" = stop ]; then
  for p in "$dir/d.pid" "$dir/ctld.pid"; do
    if [ -f "$p" ]; then kill "$(cat "$p")" 2>/dev/null || true; fi
  done
  exit 0
fi

if [ "$(id -u)" != 0 ]; then echo "scripts/slurm.sh must run as root" >&2; exit 1; fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

# munge: its run, log and lib directories must belong to the munge user.
mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chmod 400 /etc/munge/munge.key
fi
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  su -s /bin/sh munge -c munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.2; done
fi

# a free pair of ports for slurmctld and slurmd
port_free() { ! (ss -Htln 2>/dev/null || true) | awk '{print $4}' | grep -q ":$1\$"; }

host=$(hostname -s)
if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
  echo "$conf exists and was not written by scripts/slurm.sh; not touching it" >&2
  exit 1
fi
if ! SLURM_CONF=$conf timeout 10 sinfo -h >/dev/null 2>&1; then
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" /etc/slurm
  port=16817
  while ! port_free $port || ! port_free $((port + 1)); do port=$((port + 2)); done
  mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  cat >"$conf.tmp" <<EOF
$marker
ClusterName=gosbi
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/ctld.pid
SlurmdPidFile=$dir/d.pid
SlurmctldLogFile=$dir/log/ctld.log
SlurmdLogFile=$dir/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MinJobAge=300
SlurmctldPort=$port
SlurmdPort=$((port + 1))
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$conf.tmp" "$conf"
  for p in "$dir/d.pid" "$dir/ctld.pid"; do
    if [ -f "$p" ]; then kill "$(cat "$p")" 2>/dev/null || true; fi
  done
  sleep 1
  slurmctld -f "$conf"
  slurmd -f "$conf"
fi

for _ in $(seq 60); do
  state=$(SLURM_CONF=$conf sinfo -h -o %t 2>/dev/null | head -1 || true)
  case "$state" in
    idle|mix|alloc) echo "slurm: node $host $state ($conf)"; exit 0 ;;
  esac
  sleep 1
done
echo "slurm did not come up; logs in $dir/log" >&2
SLURM_CONF=$conf sinfo >&2 || true
exit 1
