#!/usr/bin/env bash
# A lone publisher's tail, by the procedure of the tail-latency targets in docs/performance.md:
#   the disk alone (FsyncProbe: 8 KiB writes each followed by fsync, in the data directory's file system);
#   the example server on a fresh data directory, with a GC log;
#   wrk -t2 -c64 POST /streams/orders for --warmup seconds (not measured), then wait until the backlog is flushed;
#   wrk -t1 -c1  GET /health/live for --health seconds: the HTTP layer's own tail on this server, this run;
#   wrk -t1 -c1  POST /streams/orders for --seconds seconds, one event a request;
#   wrk -t2 -c64 POST /streams/orders for --burst seconds.
# Prints rate, p50, p99, p99.9 and max of each, the failures (every answer must be a 200), and the collector's pauses
# during the one-client phase (count over 1 and 5 ms, the longest). Options after -- go to `interlace serve`; --jvm
# passes options to the server's JVM (e.g. --jvm "-XX:+UseParallelGC").
#
# usage: interlace-benchmarks/scripts/tail-latency.sh [--jar JAR] [--java PATH] [--jvm "OPTIONS"] [--seconds 60]
#            [--warmup 30] [--health 20] [--burst 20] [--work DIR] [-- serve options...]
set -euo pipefail

jvm=""
seconds=60
warmup=30
health=20
burst=20
work=/var/tmp/interlace-tail
# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
parse_options 15 "jar jvm seconds warmup health burst work" "$@"
set -- ${serve_args[@]+"${serve_args[@]}"}
# What is measured: the jar given (by its path and time), or the tree this script builds.
if [ -n "$jar" ]; then
  measured="$jar of $(date -u -r "$jar" +%FT%TZ)"
else
  measured="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$repo" diff --quiet 2>/dev/null \
    || echo ' with uncommitted changes')"
fi
prepare_server_run

data="$work/data"
rm -rf "$data" "$work/serve.out" "$work/gc.log"
mkdir -p "$data"
echo "$(date -u +%FT%TZ) $measured, $(nproc) cores"
probe_disk "$data"

read -ra server_jvm <<<"$jvm"
server_jvm+=("-Xlog:gc:file=$work/gc.log:uptimemillis")
serve_once "$data" "$@"
echo "$("$java_bin" -version 2>&1 | head -1); jvm options: ${jvm:-(defaults)}; serve options: ${*:-(defaults)}"

# One wrk run: prints "label: rate/s, p50, p99, p99.9, max (ms), failed".
run() {
  local label=$1 threads=$2 connections=$3 duration=$4 path=$5 script=$6
  local out line
  out=$(wrk -t"$threads" -c"$connections" -d"${duration}s" -s "$script" "$url$path")
  line=$(grep '^LATENCY' <<<"$out")
  awk -v label="$label" -v duration="$duration" '{
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "%s: %.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms, %d failed\n", label,
        v["requests"] / duration, v["p50_us"] / 1000, v["p99_us"] / 1000, v["p999_us"] / 1000, v["max_us"] / 1000,
        v["non2xx"] + v["timeouts"]
    }' <<<"$line"
}

# Milliseconds since the server's JVM started, as the GC log counts them (to the second).
uptime_ms() {
  echo $(($(ps -o etimes= -p "$server_pid") * 1000))
}

# The pauses the GC log records between uptime milliseconds $1 and $2.
pauses() {
  awk -v from="$1" -v to="$2" '
    /Pause/ && match($0, /\[[0-9]+ms\]/) {
      t = substr($0, RSTART + 1, RLENGTH - 4) + 0
      if (t < from || t > to) next
      if (match($0, /[0-9.]+ms$/)) {
        d = substr($0, RSTART, RLENGTH - 2) + 0
        n++; if (d > 1) over1++; if (d > 5) over5++; if (d > max) max = d
      }
    }
    END { printf "%d pauses, %d over 1 ms, %d over 5 ms, longest %.2f ms\n", n, over1, over5, max }' "$work/gc.log"
}

run "warm-up, 64 clients (not a target)" 2 64 "$warmup" "" "$script_dir/publish.lua" >/dev/null
for _ in $(seq 1 600); do
  pending=$(curl -s "$url/streams/orders" | grep -o '"pending" *: *[0-9]*' | head -1 | grep -o '[0-9]*$' || true)
  [ "${pending:-1}" = 0 ] && break
  sleep 0.5
done
echo "backlog after the warm-up flushed (pending ${pending:-?})"
run "GET /health/live, 1 client" 1 1 "$health" /health/live "$script_dir/get.lua"
from=$(uptime_ms)
run "publishes, 1 client" 1 1 "$seconds" "" "$script_dir/publish.lua"
to=$(uptime_ms)
echo "collector during the one-client run: $(pauses "$from" "$to")"
run "publishes, 64 clients" 2 64 "$burst" "" "$script_dir/publish.lua"
