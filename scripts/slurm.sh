#!/usr/bin/env bash
# A real single-node Slurm with job accounting for the study tests (package study), from Debian's
# packages, as root. Idempotent: installs slurmctld, slurmd, slurm-client, munge, slurmdbd,
# mariadb-server-core and mariadb-client-core when missing (`setup.sh slurm`), writes a minimal
# configuration to /etc/slurm/slurm.conf and /etc/slurm/slurmdbd.conf (state, database and logs
# under $GOSBI_SLURM_DIR, default /var/lib/gosbi-slurm) and, when there is none, a munge key to
# /etc/munge/munge.key; starts munged (unless munge already works), a private MariaDB (loopback
# only), slurmdbd, slurmctld and slurmd unless they already answer with accounting on, and waits
# until sinfo shows the node idle and sacct answers. `bash scripts/slurm.sh stop` stops every
# daemon this script started, munged included, and none that it did not start.
set -euo pipefail

dir=${GOSBI_SLURM_DIR:-/var/lib/gosbi-slurm}
conf=/etc/slurm/slurm.conf
dbdconf=/etc/slurm/slurmdbd.conf
marker="# written by gosbi scripts/slurm.sh"
pids=("$dir/d.pid" "$dir/ctld.pid" "$dir/dbd.pid" "$dir/db.pid") # stopped in this order

# stop_all stops the daemons this script started and waits (10 s at most) until they are gone;
# with "munged" as argument, also the munged it started (munged.pid exists only then).
# A pid file whose process is not one of them is stale (the number may be another's now).
stop_all() {
  local p pid list=("${pids[@]}")
  [ "${1:-}" != munged ] || list+=("$dir/munged.pid")
  for p in "${list[@]}"; do
    [ -f "$p" ] || continue
    pid=$(cat "$p")
    case $(cat "/proc/$pid/comm" 2>/dev/null) in
      slurmd|slurmctld|slurmdbd|mariadbd|munged) ;;
      *) continue ;;
    esac
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  [ "${1:-}" != munged ] || rm -f "$dir/munged.pid"
}

if [ "${1:-}" = stop ]; then
  stop_all munged
  exit 0
fi

if [ "$(id -u)" != 0 ]; then echo "scripts/slurm.sh must run as root" >&2; exit 1; fi

# the packages, as scripts/setup.sh installs them (it stops the services their installation starts)
bash "$(dirname "$0")/setup.sh" slurm

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
  # This script started munged: `stop` stops it again (a munged that ran before is left alone).
  mkdir -p "$dir"
  cp /run/munge/munged.pid "$dir/munged.pid" 2>/dev/null || true
fi

for f in "$conf" "$dbdconf"; do
  if [ -f "$f" ] && ! grep -qF "$marker" "$f"; then
    echo "$f exists and was not written by scripts/slurm.sh; not touching it" >&2
    exit 1
  fi
done

# up: the cluster answers and records jobs (sacct reads the accounting database).
up() {
  SLURM_CONF=$conf timeout 10 sinfo -h >/dev/null 2>&1 &&
    grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$conf" &&
    SLURM_CONF=$conf timeout 10 sacct -n -X -j 1 >/dev/null 2>&1
}

# wait_for SECONDS WHAT COMMAND...: retries COMMAND every 0.2 s until it succeeds.
wait_for() {
  local n=$(($1 * 5)) what=$2; shift 2
  for _ in $(seq $n); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "$what did not come up; logs in $dir/log" >&2
  return 1
}

# ports_free P N: none of the ports P … P+N−1 is listened on.
ports_free() {
  local used
  used=$( (ss -Htln 2>/dev/null || true) | awk '{print $4}' | sed 's/.*://')
  for q in $(seq "$1" $(($1 + $2 - 1))); do
    if grep -qx "$q" <<<"$used"; then return 1; fi
  done
}

# start_db starts a private MariaDB for slurmdbd on 127.0.0.1:$1, its files under $dir/db, and
# gives slurmdbd a user of its own with a fresh password (printed).
start_db() {
  local sock=$dir/db.sock pass
  if [ ! -d "$dir/db/mysql" ]; then
    rm -rf "$dir/db"
    mariadb-install-db --no-defaults --datadir="$dir/db" --user=root --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/log/db-install.log" 2>&1
  fi
  setsid mariadbd --no-defaults --datadir="$dir/db" --user=root --socket="$sock" --pid-file="$dir/db.pid" \
    --bind-address=127.0.0.1 --port="$1" --skip-name-resolve --log-error="$dir/log/db.log" </dev/null >/dev/null 2>&1 &
  wait_for 30 MariaDB mariadb --no-defaults --socket="$sock" -e 'select 1'
  pass=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  mariadb --no-defaults --socket="$sock" -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1';
    ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  echo "$pass"
}

host=$(hostname -s)
if ! up; then
  stop_all
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" /etc/slurm
  port=16817 # slurmctld, slurmd, slurmdbd, MariaDB
  while ! ports_free $port 4; do port=$((port + 4)); done
  mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  pass=$(start_db $((port + 3)))
  (
    umask 077
    cat >"$dbdconf.tmp" <<EOF
$marker
AuthType=auth/munge
DbdHost=$host
DbdPort=$((port + 2))
SlurmUser=root
PidFile=$dir/dbd.pid
LogFile=$dir/log/dbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((port + 3))
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
EOF
  )
  mv "$dbdconf.tmp" "$dbdconf"
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
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$host
AccountingStoragePort=$((port + 2))
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
  slurmdbd
  wait_for 60 slurmdbd env SLURM_CONF="$conf" sacctmgr -n list cluster
  if ! SLURM_CONF=$conf sacctmgr -n -P list cluster format=cluster | grep -qx gosbi; then
    SLURM_CONF=$conf sacctmgr -i add cluster gosbi >/dev/null
  fi
  slurmctld -f "$conf"
  slurmd -f "$conf"
fi

for _ in $(seq 60); do
  state=$(SLURM_CONF=$conf sinfo -h -o %t 2>/dev/null | head -1 || true)
  case "$state" in
    idle|mix|alloc)
      if wait_for 30 "accounting (sacct)" env SLURM_CONF="$conf" sacct -n -X -j 1; then
        echo "slurm: node $host $state, accounting on ($conf)"
        exit 0
      fi
      break ;;
  esac
  sleep 1
done
echo "slurm did not come up; logs in $dir/log" >&2
SLURM_CONF=$conf sinfo >&2 || true
exit 1
