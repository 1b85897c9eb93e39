#!/usr/bin/env bash
# Scenario (a) of docs/performance.md with wrk: durable single-event publishes against the HTTP layer alone.
#
# Builds the example server from the current tree and, for comparison, from a baseline commit (c3c015b, main when
# issue 14 was filed) in a temporary git worktree that is removed afterwards. Then, for each round and each server
# (alternating which goes first), starts the server on a fresh data directory and runs on this same machine:
#   wrk -t2 -c64  GET /health/live                 (the HTTP layer alone)
#   wrk -t2 -c64  POST /streams/orders, one event    (durable: each 200 follows the fsync of its group commit)
#   wrk -t1 -c1   POST /streams/orders, one event    (one client: the ack latency of a lone publisher)
# after --warmup seconds of publishes (60 by default: on a slow 2-core machine the JIT compiler is still busy for
# well over a minute, and a server measured while it compiles is measured on one core less), and prints each rate and
# p99, the share of a core the JIT's compiler threads took during the 64-client publishes, publishes ÷ /health/live
# per server, and current ÷ baseline publishes per round.
#
# usage: interlace-benchmarks/scripts/wrk-publish.sh [--seconds N] [--warmup N] [--rounds N] [--baseline COMMIT|none]
#                                      [--java PATH] [--work DIR] [--jar JAR] [--baseline-jar JAR]
set -euo pipefail

seconds=15
warmup=60
rounds=2
baseline=c3c015b
work=/var/tmp/interlace-wrk
baseline_jar=""
# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
parse_options 17 "seconds warmup rounds baseline work jar baseline-jar" "$@"
mkdir -p "$work"
ensure_wrk

# Builds the shaded example jar of the tree at $1 into $2 (copied: concurrent builds replace target/ jars).
build() {
  local tree=$1 out=$2
  (cd "$tree" && mvn -B -q -DskipTests package) >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  cp "$tree/examples/target/interlace-examples.jar" "$out"
}

if [ -z "$jar" ]; then
  echo "building the current tree ($(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ', with uncommitted changes'))"
  jar="$work/current.jar"
  build "$repo" "$jar"
fi
if [ "$baseline" != none ] && [ -z "$baseline_jar" ]; then
  echo "building the baseline $baseline in a temporary worktree"
  tree="$work/baseline-tree"
  git -C "$repo" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
  git -C "$repo" worktree add --detach "$tree" "$baseline" >/dev/null
  # The same Maven settings as this tree (for example a private local repository), never committed.
  [ -d "$repo/.mvn" ] && cp -r "$repo/.mvn" "$tree/"
  baseline_jar="$work/baseline.jar"
  build "$tree" "$baseline_jar"
  git -C "$repo" worktree remove --force "$tree"
fi

server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap stop_server EXIT

# Starts the server of jar $1 on a fresh data directory; sets $url.
start_server() {
  local data="$work/data-$2"
  rm -rf "$data"
  # Removed first: the redirect below truncates it only once the child runs, and the old address must not be read.
  rm -f "$work/serve-$2.out"
  "$java_bin" -jar "$1" serve --port 0 --data-dir "$data" >"$work/serve-$2.out" 2>&1 &
  server_pid=$!
  await_url "$work/serve-$2.out" "$server_pid"
}

# One server, one measurement; appends a line to $results.
run_one() {
  local name=$1 jar_file=$2 round=$3
  start_server "$jar_file" "$name"
  # Warm-up (JIT) of both paths, not measured.
  wrk -t2 -c64 -d"${warmup}s" -s "$script_dir/publish.lua" "$url" >/dev/null
  wrk -t2 -c64 -d3s "$url/health/live" >/dev/null
  local health publish64 publish1 jit_before jit
  health=$(measure 2 64 /health/live)
  jit_before=$(jit_ticks "$server_pid")
  publish64=$(measure 2 64 "" "$script_dir/publish.lua")
  jit=$(awk -v a="$jit_before" -v b="$(jit_ticks "$server_pid")" -v hz="$(getconf CLK_TCK)" -v s="$seconds" \
    'BEGIN {printf "%.0f%%", (b - a) * 100 / hz / s}')
  publish1=$(measure 1 1 "" "$script_dir/publish.lua")
  stop_server
  read -r h hp hn _ <<<"$health"
  read -r p pp pn _ <<<"$publish64"
  read -r q qp qn _ <<<"$publish1"
  local ratio
  ratio=$(awk -v p="$p" -v h="$h" 'BEGIN {printf "%.3f", p / h}')
  printf "%-5s %-9s %12s %10s %14s %10s %5s %8s %12s %10s %6s\n" "$round" "$name" "$h" "$hp" "$p" "$pp" "$jit" "$ratio" \
    "$q" "$qp" "$((pn + qn))" | tee -a "$results"
}

results="$work/results.txt"
: >"$results"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); java: $("$java_bin" -version 2>&1 | head -1)"
printf "%-5s %-9s %12s %10s %14s %10s %5s %8s %12s %10s %6s\n" round server "health/s" "p99 ms" "publish64/s" "p99 ms" \
  "jit" "pub÷hlth" "publish1/s" "p99 ms" "non2xx"
for round in $(seq 1 "$rounds"); do
  if [ "$baseline" = none ]; then
    run_one current "$jar" "$round"
  elif [ $((round % 2)) = 1 ]; then
    run_one current "$jar" "$round"
    run_one baseline "$baseline_jar" "$round"
  else
    run_one baseline "$baseline_jar" "$round"
    run_one current "$jar" "$round"
  fi
  echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done

if [ "$baseline" != none ]; then
  awk '
    $2 == "current" { c[$1] = $5 }
    $2 == "baseline" { b[$1] = $5 }
    END {
      for (r in c) if (r in b) { printf "round %s: current ÷ baseline publishes at 64 clients = %.2f\n", r, c[r] / b[r];
        s += log(c[r] / b[r]); n++ }
      if (n) printf "geometric mean: %.2f\n", exp(s / n)
    }' "$results"
fi
