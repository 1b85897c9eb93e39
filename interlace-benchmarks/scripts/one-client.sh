#!/usr/bin/env bash
# One client, as in the ack-latency target of docs/performance.md: what this machine gives a lone client, and how much
# of a lone publisher's tail the server itself sees.
#
# Starts the example server on a fresh data directory and runs on this same machine:
#   the disk alone: 8 KiB writes, each followed by fsync (FsyncProbe, in the data directory's file system)
#   wrk -t1 -c1  GET /health/live on the idle server (nothing published yet): the HTTP layer's own floor
#   wrk -t2 -c16 POST /streams/orders for --warmup seconds (not measured)
#   wrk -t1 -c1  POST /streams/orders, one event a request, with /metrics read before and after
# and prints both latencies and, from the server's histograms, the share of the publishes and of the group commits
# over 1, 2.5 and 5 ms. Options after -- go to `interlace serve`; e.g. -- --flush-delay-ms 600000 --max-pending 5000000
# materialises nothing during the run (the backlog limit raised so that the warm-up's events do not fill it).
#
# usage: interlace-benchmarks/scripts/one-client.sh [--jar JAR] [--java PATH] [--seconds N] [--warmup N] [--work DIR]
#                                     [-- serve options...]
set -euo pipefail

seconds=20
warmup=45
work=/var/tmp/interlace-one-client
# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
parse_options 15 "jar seconds warmup work" "$@"
set -- ${serve_args[@]+"${serve_args[@]}"}

prepare_server_run

data="$work/data"
rm -rf "$data" "$work/serve.out"
mkdir -p "$data"
probe_disk "$data"

serve_once "$data" "$@"
echo "$("$java_bin" -version 2>&1 | head -1); serve options: ${*:-(defaults)}"

wrk -t1 -c1 -d3s "$url/health/live" >/dev/null
read -r rate p99 failed p50 <<<"$(measure 1 1 /health/live)"
echo "health/live, 1 client, idle server: $rate requests/s, p50 $p50 ms, p99 $p99 ms, $failed failed"

wrk -t2 -c16 -d"${warmup}s" -s "$script_dir/publish.lua" "$url" >/dev/null
curl -s "$url/metrics" >"$work/metrics-before.txt"
read -r rate p99 failed p50 <<<"$(measure 1 1 "" "$script_dir/publish.lua")"
curl -s "$url/metrics" >"$work/metrics-after.txt"
echo "publishes, 1 client, after ${warmup} s of warm-up: $rate publishes/s, p50 $p50 ms, p99 $p99 ms, $failed failed"

# The share of a histogram's observations during the run above le = 1, 2.5 and 5 ms (buckets in seconds).
over() {
  awk -v name="$1" '
    FNR == 1 { file++ }
    index($0, name "_bucket{") == 1 {
      le = $0; sub(/.*le="/, "", le); sub(/".*/, "", le)
      if (file == 1) before[le] += $NF; else after[le] += $NF
    }
    END {
      total = after["+Inf"] - before["+Inf"]
      if (total == 0) { print "none in the run"; exit }
      printf "%d in the run;", total
      n = split("0.001 0.0025 0.005", les, " ")
      for (i = 1; i <= n; i++) {
        printf " over %g ms %.2f %%", les[i] * 1000, 100 * (total - (after[les[i]] - before[les[i]])) / total
      }
      print ""
    }' "$work/metrics-before.txt" "$work/metrics-after.txt"
}
echo "server side, publishes (interlace_publish_duration_seconds): $(over interlace_publish_duration_seconds)"
echo "server side, group commits (interlace_log_commit_duration_seconds): $(over interlace_log_commit_duration_seconds)"
