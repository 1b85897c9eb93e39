#!/usr/bin/env bash
# The scale-out measure (k4): one stream, orders, with 2 partitions on 2 ingest nodes, each node pinned to its own
# core (taskset -c 0 / -c 1), against the same stream with 1 partition on 1 node pinned to core 0; the broker and the
# load generator (wrk) unpinned, their CPU reported. Every event goes to its partition's sequencer
# (publish-partition.lua picks keys of one partition; one wrk per partition, pointed at the node the stream's
# partition map, GET /streams/orders, names), so forwarding is not measured. Both configurations run through
# PartitionedServe (orders declared with N partitions, no other stream or model), --role ingest, one broker, alternating
# in a rotating order per round on fresh topics; warm-up --warmup s, then --seconds s at 64 clients in all (2 x 32 when
# there are two partitions). Prints per configuration: publishes/s, the CPU seconds of each ingest node, of the broker
# and of wrk per second, µs of CPU per publish per role; then per round publishes(2) / publishes(1) and the
# CPU-normalised ratio (publishes per ingest-node CPU-second, 2 over 1).
#
# usage: interlace-benchmarks/scripts/kafka-scale.sh [--seconds N] [--warmup N] [--rounds N] [--work DIR] [--no-build]
#                                                   [--offline]
# defaults: --seconds 15 --warmup 20 --rounds 2 --work /var/tmp/interlace-kafka-scale
set -euo pipefail

seconds=15
warmup=20
rounds=2
work=/var/tmp/interlace-kafka-scale
build=yes
mvn_flags=(-B -q)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --no-build) build=no; shift ;;
    --offline) mvn_flags+=(-o); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
lua="$script_dir/publish-partition.lua"
ensure_wrk
mkdir -p "$work"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores (one per ingest node)" >&2; exit 2; }

# shellcheck source=kafka-lib.sh
. "$script_dir/kafka-lib.sh"
bench_classpath
start_broker

# node NAME CORE PARTITIONS PREFIX: an ingest node pinned to CORE serving orders with PARTITIONS; sets $url.
node() {
  local name=$1 core=$2 partitions=$3 prefix=$4 port
  port=$(free_port)
  rm -rf "$work/data-$name"
  taskset -c "$core" java -cp "$classpath" dev.interlace.benchmarks.PartitionedServe "$partitions" serve \
    --port "$port" --data-dir "$work/data-$name" --role ingest --max-pending 100000000 --log kafka \
    --kafka-bootstrap "$bootstrap" --kafka-topic-prefix "$prefix" --kafka-replication-factor 1 \
    --kafka-min-insync-replicas 1 >"$work/$name.out" 2>&1 &
  pids[$name]=$!
  await_url "$work/$name.out" "${pids[$name]}" 120
}

# Waits until $1 names a sequencer for every partition, all different; prints them, partition 0 first.
holders() {
  local seen
  for _ in $(seq 1 600); do
    seen=$(curl -s "$1/streams/orders" | jq -r '[(.by_partition // [{sequencer: .sequencer}])[].sequencer] | if all(. != null) and
      (unique | length) == length then .[] else empty end' 2>/dev/null || true)
    [ -n "$seen" ] && { echo "$seen"; return 0; }
    sleep 0.2
  done
  echo "the partitions of orders have no distinct sequencers after 120 s" >&2
  exit 1
}

cpu_ticks() {
  local total=0 pid
  for pid in "$@"; do
    total=$((total + $(stat_ticks "/proc/$pid/stat")))
  done
  echo "$total"
}

# load SECONDS CLIENTS URL...: one wrk per URL (URL i gets partition i's keys), in parallel; prints
# "requests non2xx wrk_cpu_seconds".
load() {
  local secs=$1 clients=$2 n
  shift 2
  n=$#
  local i=0 target
  for target in "$@"; do
    /usr/bin/time -f "TIME %U %S" -o "$work/wrk-$i.time" wrk -t1 -c"$clients" -d"${secs}s" -s "$lua" "$target" \
      -- "$i" "$n" >"$work/wrk-$i.out" 2>&1 &
    i=$((i + 1))
  done
  wait_wrk
  cat "$work"/wrk-*.out | awk '/^LATENCY/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] } }
    END { printf "%d %d ", v["requests"], v["non2xx"] + v["timeouts"] }'
  cat "$work"/wrk-*.time | awk '/^TIME/ { s += $2 + $3 } END { printf "%.2f\n", s }'
  rm -f "$work"/wrk-*.out "$work"/wrk-*.time
}
wait_wrk() {
  local job
  for job in $(jobs -p); do
    case " ${pids[*]} " in *" $job "*) ;; *) wait "$job" || true ;; esac
  done
}

results="$work/results.txt"
: >"$results"
row="%-5s %-11s %10s %9s %9s %9s %9s %9s %9s %7s\n"

# measure ROUND CONFIG NODE_PIDS -- URLS: warms up, measures, appends a row.
measure() {
  local round=$1 config=$2 node_pids=() urls=()
  shift 2
  while [ "$1" != -- ]; do node_pids+=("$1"); shift; done
  shift
  urls=("$@")
  local clients=$((64 / ${#urls[@]}))
  load "$warmup" "$clients" "${urls[@]}" >/dev/null
  local before_nodes=() before_broker after_broker out requests failed wrk_s i
  for i in "${!node_pids[@]}"; do before_nodes[i]=$(cpu_ticks "${node_pids[i]}"); done
  before_broker=$(cpu_ticks "$broker_jvm")
  out=$(load "$seconds" "$clients" "${urls[@]}")
  after_broker=$(cpu_ticks "$broker_jvm")
  local node_s=() node_total=0
  for i in "${!node_pids[@]}"; do
    node_s[i]=$(( $(cpu_ticks "${node_pids[i]}") - before_nodes[i] ))
    node_total=$((node_total + node_s[i]))
  done
  read -r requests failed wrk_s <<<"$out"
  awk -v r="$round" -v c="$config" -v n="$requests" -v s="$seconds" -v a="${node_s[0]}" -v b="${node_s[1]:-}" \
    -v t="$node_total" -v k=$((after_broker - before_broker)) -v w="$wrk_s" -v f="$failed" -v fmt="$row" 'BEGIN {
    rate = n / s
    printf fmt, r, c, sprintf("%.0f", rate), sprintf("%.2f", a / 100 / s), (b == "" ? "-" : sprintf("%.2f", b / 100 / s)),
      sprintf("%.0f", t * 1e4 / n), sprintf("%.0f", k * 1e4 / n), sprintf("%.0f", w * 1e6 / n),
      sprintf("%.0f", n / (t / 100)), f }' | tee -a "$results"
}

run() {
  local round=$1 config=$2 prefix="scale-$1-$2-$RANDOM."
  if [ "$config" = one ]; then
    node one 0 1 "$prefix"
    local u=$url
    holders "$u" >/dev/null
    measure "$round" "1p-1node" "${pids[one]}" -- "$u"
    stop one
  else
    node a 0 2 "$prefix"
    local ua=$url
    node b 1 2 "$prefix"
    local ub=$url
    local h
    mapfile -t h < <(holders "$ua")
    measure "$round" "2p-2nodes" "${pids[a]}" "${pids[b]}" -- "${h[0]}" "${h[1]}"
    stop a
    stop b
  fi
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; broker at $bootstrap"
echo "rates in publishes/s (one event each); node CPU in cores (CPU-s per s); µs of CPU per publish; pub/node-CPU-s"
# shellcheck disable=SC2059
printf "$row" round config "pub/s" "node0 cpu" "node1 cpu" "nodes µs" "brk µs" "wrk µs" "pub/cpu-s" failed
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order=(one two); else order=(two one); fi
  for config in "${order[@]}"; do
    run "$round" "$config"
  done
  echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo
awk '{ if ($2 == "1p-1node") { one[$1] = $3; onec[$1] = $9 } else if ($2 == "2p-2nodes") { two[$1] = $3; twoc[$1] = $9 } }
  END { for (r in one) if (r in two) printf "round %s: (k4) publishes 2p/1p %.2f; per ingest-node CPU-second %.2f\n",
    r, two[r] / one[r], twoc[r] / onec[r] }' "$results" | sort
