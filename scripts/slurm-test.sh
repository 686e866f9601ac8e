#!/usr/bin/env bash
# A real SLURM test: installs Debian's slurm and munge packages (as root),
# starts a one-node cluster on localhost, submits a sharded runner experiment
# as an array job with a dependent merge job (the scripts `runner slurm`
# writes), waits, compares the merged tables with a single-machine run, and
# stops the daemons it started, by their PIDs only.
#
# Usage: scripts/slurm-test.sh [path/to/runner]   (default: target/release/runner)
set -euo pipefail
cd "$(dirname "$0")/.."
runner=$(realpath "${1:-target/release/runner}")
[ -x "$runner" ] || { echo "slurm-test: no runner binary at $runner (cargo build --release)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "slurm-test: must run as root (installs packages, starts daemons)"; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  echo "== installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q slurmctld slurmd slurm-client munge >/dev/null
fi

work=$(mktemp -d /tmp/runner-slurm.XXXXXX)
pids=()
stop_daemons() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    # kill -0 succeeds on a zombie, so read the state instead.
    for _ in $(seq 50); do
      state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -z "$state" ] || [ "$state" = Z ] && break
      sleep 0.1
    done
  done
}
trap stop_daemons EXIT

echo "== munge"
mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
if [ -S /run/munge/munge.socket.2 ] && munge -n >/dev/null 2>&1; then
  echo "munged already running"
else
  rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
  pids+=("$(cat /run/munge/munged.pid)")
fi
munge -n | unmunge >/dev/null

echo "== slurm.conf"
node=runnernode
mkdir -p "$work/state" "$work/spool"
hw=$(slurmd -C | head -1 | sed -e "s/^NodeName=[^ ]*//" -e 's/UpTime=.*//')
port=$((20000 + RANDOM % 20000))
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=runnertest
SlurmctldHost=$(hostname -s)(127.0.0.1)
MailProg=/bin/true
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/jobcomp.txt
SchedulerParameters=batch_sched_delay=0
MinJobAge=4
ReturnToService=2
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

echo "== slurmctld and slurmd"
slurmctld -D -f "$SLURM_CONF" </dev/null >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" </dev/null >"$work/slurmd.out" 2>&1 &
pids+=($!)
up=
for _ in $(seq 60); do
  if timeout 3 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)'; then up=1; break; fi
  sleep 0.5
done
if [ -z "$up" ]; then
  echo "slurm-test: the node did not come up"
  tail -5 "$work/slurmctld.out" "$work/slurmctld.log" "$work/slurmd.log" 2>/dev/null
  exit 1
fi
timeout 5 sinfo -h -o '%P %T %c'

echo "== experiment"
cat > "$work/exp.toml" <<TOML
[experiment]
name = "slurmtest"
mode = "exhaustive"
[hands]
sizes = [[5, 5], [6, 5]]
field = 3
[output]
dir = "$work/out"
TOML
"$runner" slurm --config "$work/exp.toml" --shards 3 --dir "$work/scripts" \
  --cpus 1 --mem 500M --time 00:10:00 --runner "$runner" --merge-recheck 4
submitted=$(bash "$work/scripts/submit.sh")
echo "$submitted"
merge_job=$(echo "$submitted" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
for _ in $(seq 600); do
  [ -z "$(timeout 5 squeue -h -j "$merge_job" 2>/dev/null)" ] && break
  sleep 0.5
done
if [ -n "$(timeout 5 squeue -h 2>/dev/null)" ]; then
  echo "slurm-test: jobs still queued after 5 minutes"; squeue; exit 1
fi
echo "-- job records"
cat "$work/jobcomp.txt" | sed -e 's/ UserId.*JobState=/ JobState=/' -e 's/ Partition.*ExitCode=/ ExitCode=/' | cut -c1-160
if grep -v 'ExitCode=0:0' "$work/jobcomp.txt" | grep -q .; then
  echo "slurm-test: a job failed"; tail -n 20 "$work/out/logs/"* ; exit 1
fi

echo "== compare with a single-machine run"
"$runner" --config "$work/exp.toml" --out "$work/single" --quiet
for f in stats.csv mu.csv disagreements.csv; do
  cmp "$work/out/$f" "$work/single/$f"
done
echo "slurm-test: array job of 3 shards merged byte-identical to the single-machine run"
cat "$work/out/stats.csv"
# The merge job (--merge-recheck 4) solved 4 of the shards' chunks again
# from the records the tasks kept, one from each shard first.
grep -h -- "--recheck: each of the 4 came out as recorded" "$work/out/logs/"*merge* \
  || { echo "slurm-test: the merge job did not recheck the shards"; cat "$work/out/logs/"*merge*; exit 1; }
grep -q '"rechecks"' "$work/out/manifest.json"
echo "slurm-test: the merge job rechecked the shards' records (runner slurm --merge-recheck)"

# The README's batch job: a 26x26 11-back row of the committed failure table
# (about 30 s) and two quick ones. The first submission is sent SIGTERM (as
# --signal=B:TERM@300 sends it before a time limit) with the long row under
# way: it keeps the tables and exits 4. The same script submitted again
# carries the row on, and exits 0 only if every row's verdict is the one the
# committed table records.
echo "== batch job: stopped with its tables kept, submitted again"
mkdir -p "$work/batch"
{ sed -n 1p results/variant-back-26/formula_failures.csv
  sed -n 10p results/variant-back-26/formula_failures.csv
  sed -n 2,3p results/variant-back-26/formula_failures.csv
} > "$work/batch/rows.csv"
cat > "$work/batch/job.sbatch" <<JOB
#!/bin/bash
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:10:00
#SBATCH --requeue
#SBATCH --signal=B:TERM@300
#SBATCH --output=$work/batch/%j.out
exec "$runner" solve --batch rows.csv --back 9 --verdicts-only -j 1 --out t.csv --keep-memo --resume
JOB
wait_for_job() {
  for _ in $(seq 600); do
    [ -z "$(timeout 5 squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "slurm-test: batch job $1 still queued after 5 minutes"; squeue; exit 1
}
first=$(cd "$work/batch" && sbatch --parsable job.sbatch)
first=${first%%;*}
for _ in $(seq 240); do
  grep -q "under way: line 2" "$work/batch/$first.out" 2>/dev/null && break
  sleep 0.5
done
grep -q "under way: line 2" "$work/batch/$first.out" \
  || { echo "slurm-test: the batch job never had its long row under way"; cat "$work/batch/$first.out"; exit 1; }
timeout 5 scancel --signal=TERM --batch "$first"
wait_for_job "$first"
cat "$work/batch/$first.out"
grep -q "kept the memo in" "$work/batch/$first.out" \
  || { echo "slurm-test: the stopped batch job kept no tables"; exit 1; }
[ -s "$work/batch/t.csv.memo.bin" ] && [ ! -e "$work/batch/t.csv" ]
second=$(cd "$work/batch" && sbatch --parsable job.sbatch)
second=${second%%;*}
wait_for_job "$second"
cat "$work/batch/$second.out"
grep -q "read the kept memo back" "$work/batch/$second.out" \
  || { echo "slurm-test: the resubmitted batch job read no tables back"; exit 1; }
grep -q "JobId=$second .*ExitCode=0:0" "$work/jobcomp.txt" \
  || { echo "slurm-test: the resubmitted batch job failed"; grep "JobId=$second " "$work/jobcomp.txt"; exit 1; }
[ -s "$work/batch/t.csv" ] && [ ! -e "$work/batch/t.csv.memo.bin" ]
echo "slurm-test: batch job stopped, its tables kept, and carried on to the committed verdicts"
stop_daemons
trap - EXIT
rm -rf "$work"
