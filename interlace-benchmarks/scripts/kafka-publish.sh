#!/usr/bin/env bash
# The Kafka benchmark: durable single-event publishes and the flush of a backlog, on the SQLite log and on the Kafka
# log, side by side in one run on this machine.
#
# Builds the benchmarks and their class path (the kafka_2.13 jars and the KafkaCluster harness), starts one KRaft
# broker (KafkaBroker, a child JVM with Kafka's production JVM options) and every server as a child process of its
# own (`interlace serve`, the example streams), and measures with wrk, as wrk-publish.sh does:
#   sqlite          serve on the SQLite log (200 = fsynced)
#   kafka           serve --log kafka on the one broker (200 = the transaction committed with acks=all)
#   kafka-fsync     the same with flush.messages=1 on the stream topic (the broker fsyncs every write)
#   kafka-2-direct  two nodes on the broker, the client talks to the stream's sequencer
#   kafka-2-fwd     the same two nodes, the client talks to the other node, which forwards every publish
#                   (needs forwarding, serve --cluster-secret-file; reported missing when serve does not have it)
# For each round and configuration (in a rotating order) on fresh data (a fresh data directory, a fresh topic
# prefix): a warm-up (--warmup s of publishes), then wrk -t2 -c64 on GET /health/live, wrk -t2 -c64 on
# POST /streams/orders with one event and a random UUIDv4 key per request (publish.lua), and wrk -t1 -c1 on the
# same publishes; the CPU time of the servers and of the broker per publish at 64 clients (from /proc), and the part of
# the servers' that their JIT compilers spent (warm-up not over: `jit µs`, included in `srv µs`). Then, once per log, the flush of a backlog: a server
# publishes --backlog events (batches of 1 000) and stops, and a server with an empty warehouse on the same log
# materialises them; rows/s from its start until the watermark reaches the head, and from its first batch committed
# to the head; its CPU, its JIT compilers' and the broker's meanwhile. And the latency of bare Kafka transactions,
# without Interlace.
# Prints every figure, and per round the ratios to sqlite (and fwd to direct, fsync to kafka).
#
# usage: interlace-benchmarks/scripts/kafka-publish.sh [--seconds N] [--warmup N] [--rounds N] [--backlog N] [--configs LIST]
#                                        [--work DIR] [--no-build] [--offline] [--drain-jvm "OPTIONS"]
#                                        [--broker-setting KEY=VALUE]... [--threads] [--serve-jvm "OPTIONS"]
# defaults: --seconds 15 --warmup 20 --rounds 2 --backlog 200000 --configs sqlite,kafka,kafka-fsync,kafka-2
#           --work /var/tmp/interlace-kafka-bench; --backlog 0 skips the flush, --configs "" measures only it; --drain-jvm: JVM options of the
#           servers that flush the backlog (a profile: -XX:StartFlightRecording=filename=drain.jfr,settings=profile);
#           --broker-setting: a setting of the broker's server.properties, e.g. add.partitions.to.txn.retry.backoff.ms=1
#           (how long a broker waits before retrying a transaction's first write that found the previous transaction
#           still completing; 20 ms by default); --threads: each server's CPU per thread (jcmd), µs per publish at 64 clients;
#           --serve-jvm: JVM options of the servers that take the publishes (a profile of the measured 15 s after a 60 s
#           warm-up: -XX:StartFlightRecording=delay=82s,duration=12s,settings=profile,filename=serve.jfr, with one config)
set -euo pipefail

seconds=15
warmup=20
rounds=2
backlog=200000
configs="sqlite,kafka,kafka-fsync,kafka-2"
work=/var/tmp/interlace-kafka-bench
build=yes
mvn_flags=(-B -q)
drain_jvm=()
serve_jvm=()
publish_jvm=()
broker_settings=()
threads=no
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --backlog) backlog=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --no-build) build=no; shift ;;
    --offline) mvn_flags+=(-o); shift ;;
    --drain-jvm) read -r -a drain_jvm <<<"$2"; shift 2 ;;
    --broker-setting) broker_settings+=("$2"); shift 2 ;;
    --threads) threads=yes; shift ;;
    --serve-jvm) read -r -a publish_jvm <<<"$2"; serve_jvm=("${publish_jvm[@]}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
lua="$script_dir/publish.lua"
ensure_wrk
mkdir -p "$work"

# shellcheck source=kafka-lib.sh
. "$script_dir/kafka-lib.sh"
bench_classpath
# The servers run on the same class path: it declares the example application's streams and no others.
server_classpath=$classpath

# ---------------------------------------------------------------------------------------------- processes

# serve NAME DATA_DIR [FLAGS...]: an Interlace server in a JVM of its own (default JVM options), on a port chosen
# here so that it can advertise it; sets $url.
serve() {
  local name=$1 data=$2
  shift 2
  local port
  port=$(free_port)
  local output="$work/$name${round:+-$round}.out"
  rm -f "$output"
  java "${serve_jvm[@]}" -cp "$server_classpath" dev.interlace.runtime.cli.Main serve --port "$port" --data-dir "$data" "$@" \
    >"$output" 2>&1 &
  pids[$name]=$!
  await_url "$output" "${pids[$name]}" 120
}

# kafka_flags PREFIX: the flags of a node on the benchmark's broker (one broker: one replica).
kafka_flags() {
  echo --log kafka --kafka-bootstrap "$bootstrap" --kafka-topic-prefix "$1" --kafka-replication-factor 1 \
    --kafka-min-insync-replicas 1
}

stream_field() {
  curl -s "$1/streams/orders" | jq -r ".$2"
}

# Waits until the node at $1 names a sequencer for orders (up to 60 s); prints it.
await_sequencer() {
  local holder
  for _ in $(seq 1 300); do
    holder=$(stream_field "$1" sequencer)
    if [ -n "$holder" ] && [ "$holder" != null ]; then
      echo "$holder"
      return 0
    fi
    sleep 0.2
  done
  echo "no sequencer for orders at $1 after 60 s" >&2
  exit 1
}

# User + system CPU ticks of the processes $@ (1/100 s each on Linux).
cpu_ticks() {
  local total=0 pid
  for pid in "$@"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

# User + system CPU ticks of the JIT compiler threads of the processes $@: the part of their CPU that is warm-up, which
# on a loaded box is still under way after --warmup (close to half of a Kafka node's CPU at load 15-30).
jit_ticks() {
  local total=0 pid task
  for pid in "$@"; do
    for task in /proc/"$pid"/task/*; do
      case "$(cat "$task/comm" 2>/dev/null)" in
        C1\ CompilerThre*|C2\ CompilerThre*) total=$((total + $(awk '{print $14 + $15}' "$task/stat" 2>/dev/null || echo 0))) ;;
      esac
    done
  done
  echo "$total"
}

# CPU milliseconds per thread of the JVM $1 (pool threads summed by name: `interlace-worker-3` counts as
# `interlace-worker`), one "ms<TAB>name" line each.
threads_cpu() {
  jcmd "$1" Thread.print 2>/dev/null | grep -E '^"' | sed -E 's/^"([^"]*)".*cpu=([0-9.]+)ms.*/\2 \1/' \
    | sed -E 's/-[0-9]+$//; s/#[0-9]+$//; s/ \| .*//' | awk '{ n = $1; $1 = ""; sub(/^ /, ""); c[$0] += n }
      END { for (k in c) printf "%.0f\t%s\n", c[k], k }'
}

supports_forwarding() {
  local usage
  usage=$(java -cp "$server_classpath" dev.interlace.runtime.cli.Main serve --help 2>&1 || true)
  grep -q -- --cluster-secret-file <<<"$usage"
}

# ---------------------------------------------------------------------------------------------- publishes

results="$work/results.txt"
: >"$results"
row_format="%-5s %-15s %9s %10s %7s %7s %9s %7s %7s %9s %9s %6s %7s\n"

# measure_publishes ROUND CONFIG SERVER_PIDS...: warms $url up, measures, appends a row to $results.
measure_publishes() {
  local round=$1 config=$2
  shift 2
  # The JIT needs its time: after 5 s of publishes a Kafka node's C2 compiler still took a quarter of the CPU.
  wrk -t2 -c64 -d"${warmup}s" -s "$lua" "$url" >/dev/null
  wrk -t2 -c64 -d3s "$url/health/live" >/dev/null
  local health publish64 publish1 before_server before_broker after_server after_broker before_jit after_jit jit_us
  health=$(measure 2 64 /health/live)
  before_server=$(cpu_ticks "$@")
  before_broker=$(cpu_ticks ${broker_jvm:-})
  before_jit=$(jit_ticks "$@")
  local pid
  if [ "$threads" = yes ]; then for pid in "$@"; do threads_cpu "$pid" >"$work/threads-$pid.before"; done; fi
  publish64=$(measure 2 64 "" "$lua")
  if [ "$threads" = yes ]; then for pid in "$@"; do threads_cpu "$pid" >"$work/threads-$pid.after"; done; fi
  after_server=$(cpu_ticks "$@")
  after_broker=$(cpu_ticks ${broker_jvm:-})
  after_jit=$(jit_ticks "$@")
  publish1=$(measure 1 1 "" "$lua")
  local h p p99 pn p50 q q99 qn q50 server_us broker_us
  read -r h _ _ _ <<<"$health"
  read -r p p99 pn p50 <<<"$publish64"
  read -r q q99 qn q50 <<<"$publish1"
  server_us=$(awk -v t=$((after_server - before_server)) -v r="$p" -v s="$seconds" 'BEGIN {printf "%.0f", t * 1e4 / (r * s)}')
  broker_us=$(awk -v t=$((after_broker - before_broker)) -v r="$p" -v s="$seconds" 'BEGIN {printf "%.0f", t * 1e4 / (r * s)}')
  jit_us=$(awk -v t=$((after_jit - before_jit)) -v r="$p" -v s="$seconds" 'BEGIN {printf "%.0f", t * 1e4 / (r * s)}')
  # shellcheck disable=SC2059
  printf "$row_format" "$round" "$config" "$h" "$p" "$p50" "$p99" "$q" "$q50" "$q99" "$server_us" "$broker_us" \
    "$((pn + qn))" "$jit_us" | tee -a "$results"
  if [ "$threads" = yes ]; then
    for pid in "$@"; do
      awk -F'\t' -v pubs="$p" -v s="$seconds" -v pid="$pid" 'NR == FNR { before[$2] = $1; next }
        { d = $1 - before[$2]; if (d > 0) printf "        %6.1f µs  %s (%s)\n", d * 1000 / (pubs * s), $2, pid }' \
        "$work/threads-$pid.before" "$work/threads-$pid.after" | sort -rn | head -12
    done
  fi
}

run_sqlite() {
  local round=$1
  rm -rf "$work/data-sqlite"
  serve sqlite "$work/data-sqlite"
  measure_publishes "$round" sqlite "${pids[sqlite]}"
  stop sqlite
}

run_kafka() {
  local round=$1 config=$2 prefix="bench-$1-$2-$RANDOM."
  rm -rf "$work/data-$config"
  # shellcheck disable=SC2046
  serve "$config" "$work/data-$config" $(kafka_flags "$prefix")
  await_sequencer "$url" >/dev/null
  if [ "$config" = kafka-fsync ]; then
    java -cp "$classpath" dev.interlace.benchmarks.KafkaBroker topic-config "$bootstrap" "${prefix}orders" \
      flush.messages=1 >"$work/topic-config.out" 2>&1 || { cat "$work/topic-config.out"; exit 1; }
  fi
  measure_publishes "$round" "$config" "${pids[$config]}"
  stop "$config"
}

run_two_nodes() {
  local round=$1 prefix="bench-$1-two-$RANDOM."
  if ! supports_forwarding; then
    echo "$round     kafka-2         missing: serve has no --cluster-secret-file (forwarding is not built)"
    return 0
  fi
  rm -rf "$work/data-node-a" "$work/data-node-b"
  head -c 48 /dev/urandom | base64 >"$work/cluster-secret"
  chmod 600 "$work/cluster-secret"
  # shellcheck disable=SC2046
  serve node-a "$work/data-node-a" $(kafka_flags "$prefix") --cluster-secret-file "$work/cluster-secret"
  local url_a=$url
  # shellcheck disable=SC2046
  serve node-b "$work/data-node-b" $(kafka_flags "$prefix") --cluster-secret-file "$work/cluster-secret"
  local url_b=$url
  local holder
  holder=$(await_sequencer "$url_a")
  # Both nodes must agree on the holder before the client is pointed at the other one.
  for _ in $(seq 1 150); do
    [ "$(stream_field "$url_b" sequencer)" = "$holder" ] && break
    sleep 0.2
  done
  local direct forwarded
  if [ "$holder" = "$url_a" ]; then direct=$url_a; forwarded=$url_b; else direct=$url_b; forwarded=$url_a; fi
  url=$direct
  measure_publishes "$round" kafka-2-direct "${pids[node-a]}" "${pids[node-b]}"
  url=$forwarded
  measure_publishes "$round" kafka-2-fwd "${pids[node-a]}" "${pids[node-b]}"
  [ "$(stream_field "$direct" sequencer)" = "$holder" ] || echo "  (the sequencer moved during the run)"
  stop node-a
  stop node-b
}

# ---------------------------------------------------------------------------------------------- flush of a backlog

flush_results="$work/flush.txt"
: >"$flush_results"

# Publishes batches of 1 000 events to $url until the head of orders is at least $backlog; prints the head once it
# stands still (the requests wrk had in flight when it stopped are still answered).
build_backlog() {
  local head=0 previous=-1 started
  started=$(now_ms)
  while [ "$head" -lt "$backlog" ]; do
    wrk -t2 -c8 -d3s -s "$lua" "$url" -- 1000 >/dev/null
    head=$(stream_field "$url" head)
  done
  local ended
  ended=$(now_ms)
  while [ "$head" != "$previous" ]; do
    sleep 1
    previous=$head
    head=$(stream_field "$url" head)
  done
  # What batching buys, as a side figure: events/s while building, one request of 1 000 events per client at a time.
  awk -v n="$head" -v ms=$((ended - started)) 'BEGIN { printf "  (built: %d events in %.1f s, %.0f events/s)\n",
    n, ms / 1000, n * 1000 / ms }' >&2
  echo "$head"
}

now_ms() {
  date +%s%3N
}

# measure_flush LOG NAME DATA_DIR HEAD [FLAGS...]: starts a server with an empty warehouse on a log holding the backlog,
# polls its watermark until it reaches the head, appends a row to $flush_results. The flush's own rate runs from the
# first poll that saw a watermark above 0 (the first batch committed) to the head, over the rows in between: the flush
# records that `POST /sql` shows are the query process's (it materialises on its own), not the flusher's. CPU: the
# server's, the part of it its JIT compilers spent, and the broker's, from the server's start to the head.
measure_flush() {
  local log=$1 name=$2 data=$3 head=$4
  shift 4
  local started ready done first_ms=0 first_watermark=0 broker_before node_cpu node_jit broker_cpu
  broker_before=$(cpu_ticks ${broker_jvm:-})
  started=$(now_ms)
  serve_jvm=("${drain_jvm[@]}")
  serve "$name" "$data" "$@"
  serve_jvm=("${publish_jvm[@]}")
  ready=$(now_ms)
  local watermark=0
  while true; do
    watermark=$(stream_field "$url" watermark)
    [ "$watermark" != null ] && [ "$watermark" -ge "$head" ] && break
    if [ "$first_ms" = 0 ] && [ "$watermark" != null ] && [ "$watermark" -gt 0 ]; then
      first_ms=$(now_ms)
      first_watermark=$watermark
    fi
    kill -0 "${pids[$name]}" 2>/dev/null || { cat "$work/$name.out"; exit 1; }
    sleep 0.02
  done
  done=$(now_ms)
  node_cpu=$(cpu_ticks "${pids[$name]}")
  node_jit=$(jit_ticks "${pids[$name]}")
  broker_cpu=$(( $(cpu_ticks ${broker_jvm:-}) - broker_before ))
  [ "$first_ms" = 0 ] && { first_ms=$done; first_watermark=$head; }  # the first poll saw it all flushed
  local check
  check=$(sql "$url" 'SELECT count(*), count(DISTINCT _offset), max(_offset) FROM streams.orders' | jq -c '.rows[0]')
  stop "$name"
  awk -v log_="$log" -v n="$head" -v s="$started" -v r="$ready" -v d="$done" -v c="$check" -v f="$first_ms" \
    -v fw="$first_watermark" -v cpu="$node_cpu" -v jit="$node_jit" -v brk="$broker_cpu" 'BEGIN {
    flushing = "-"
    if (d > f) flushing = sprintf("%.0f", (n - fw) * 1000 / (d - f))
    printf "%-7s %9d %8.2f %8.2f %12.0f %10.2f %14s %7.1f %6.1f %7.1f  %s\n", log_, n, (r - s) / 1000, (d - s) / 1000,
      n * 1000 / (d - s), (f - s) / 1000, flushing, cpu / 100, jit / 100, brk / 100, c }' | tee -a "$flush_results"
}

# sql URL QUERY: the JSON answer of POST /sql, asked again (up to 60 times) while it has no rows: the query process
# answers only once it has materialised what the warehouse holds (503 not_materialised meanwhile).
sql() {
  local answer
  for _ in $(seq 1 60); do
    answer=$(curl -s -H 'Content-Type: text/plain' --data "$2" "$1/sql")
    jq -e '.rows[0]' <<<"$answer" >/dev/null 2>&1 && break
    sleep 1
  done
  echo "$answer"
}

run_flush() {
  local log=$1 round=""  # one of each: the servers' output files need no round
  if [ "$log" = sqlite ]; then
    rm -rf "$work/data-backlog"
    serve backlog "$work/data-backlog" --max-pending 100000000
    local head
    head=$(build_backlog)
    stop backlog
    # The log keeps the backlog; the warehouse goes: the next server materialises all of it.
    rm -f "$work/data-backlog"/warehouse.duckdb*
    measure_flush sqlite drain "$work/data-backlog" "$head" --max-pending 100000000
  else
    local prefix="bench-backlog-$RANDOM."
    rm -rf "$work/data-backlog" "$work/data-drain"
    # shellcheck disable=SC2046
    serve backlog "$work/data-backlog" $(kafka_flags "$prefix") --max-pending 100000000
    await_sequencer "$url" >/dev/null
    local head
    head=$(build_backlog)
    stop backlog
    # The topic keeps the backlog; a node with a data directory of its own (an empty warehouse) materialises it.
    # shellcheck disable=SC2046
    measure_flush kafka drain "$work/data-drain" "$head" $(kafka_flags "$prefix") --max-pending 100000000
  fi
}

# ---------------------------------------------------------------------------------------------- the run

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; java: $(java -version 2>&1 | head -1)"
echo "starting the broker${broker_settings[*]+ with ${broker_settings[*]}}"
start_broker
echo "broker at $bootstrap"

IFS=, read -r -a order <<<"$configs"
echo
echo "publishes: wrk ${seconds} s each; rates in requests/s (one event each), latencies in ms, CPU in µs per publish;"
echo "failed: non-2xx answers and socket errors (timeouts: unanswered after 2 s) of both publish runs"
# shellcheck disable=SC2059
printf "$row_format" round config "health/s" "pub64/s" p50 p99 "pub1/s" p50 p99 "srv µs" "brk µs" failed "jit µs"
for round in $(seq 1 "$rounds"); do
  n=${#order[@]}
  for i in $(seq 0 $((n - 1))); do
    config=${order[$(((i + round - 1) % n))]}
    case "$config" in
      sqlite) run_sqlite "$round" ;;
      kafka|kafka-fsync) run_kafka "$round" "$config" ;;
      kafka-2) run_two_nodes "$round" ;;
      *) echo "unknown configuration $config" >&2; exit 2 ;;
    esac
  done
  echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done

echo
echo "a bare Kafka transaction of one event and one publish record, one after the other (no Interlace):"
for setting in "" flush.messages=1; do
  # shellcheck disable=SC2086
  java -cp "$classpath" dev.interlace.benchmarks.KafkaBroker transaction-latency "$bootstrap" 500 $setting 2>&1 \
    | grep transactions || true
done

if [ "$backlog" -gt 0 ]; then
  echo
  echo "flush of a backlog of at least $backlog events (published in batches of 1 000) by a server with an empty warehouse"
  echo "(seconds from the server's start: to its ready line, to the watermark at the head, to the first poll that saw a batch committed;"
  echo " rows/s from the start, and from that poll to the head; CPU seconds from the start to the head:"
  echo " the server's, of which its JIT compilers', and the broker's)"
  printf "%-7s %9s %8s %8s %12s %10s %14s %7s %6s %7s  %s\n" log events "ready s" "done s" "rows/s start" \
    "1st batch" "rows/s flushing" "cpu s" "jit s" "brk s" "count, distinct offsets, max offset"
  run_flush sqlite
  run_flush kafka
  echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

echo
echo "ratios per round (publishes/s at 64 clients, at 1 client; p99 at 64 clients)"
awk '
  $4 ~ /^[0-9.]+$/ { rate64[$1, $2] = $4; rate1[$1, $2] = $7; p99[$1, $2] = $6; rounds[$1] = 1 }
  function ratio(r, a, b, label) {
    if ((r, a) in rate64 && (r, b) in rate64)
      printf "round %s: %-26s %6.2f %6.2f   p99 %6.2f\n", r, label, rate64[r, a] / rate64[r, b],
        rate1[r, a] / rate1[r, b], p99[r, a] / p99[r, b]
  }
  END {
    for (r in rounds) {
      ratio(r, "kafka", "sqlite", "kafka / sqlite")
      ratio(r, "kafka-fsync", "sqlite", "kafka-fsync / sqlite")
      ratio(r, "kafka-fsync", "kafka", "kafka-fsync / kafka")
      ratio(r, "kafka-2-direct", "kafka", "kafka-2-direct / kafka")
      ratio(r, "kafka-2-fwd", "kafka-2-direct", "kafka-2-fwd / kafka-2-direct")
      ratio(r, "kafka-2-fwd", "sqlite", "kafka-2-fwd / sqlite")
    }
  }' "$results" | sort
if [ -s "$flush_results" ]; then
  awk '{ rate[$1] = $5; flushing[$1] = $7 } END { if ("sqlite" in rate && "kafka" in rate && flushing["sqlite"] > 0)
    printf "flush: kafka / sqlite rows/s %.2f from the start, %.2f while flushing\n", rate["kafka"] / rate["sqlite"],
      flushing["kafka"] / flushing["sqlite"] }' "$flush_results"
fi
