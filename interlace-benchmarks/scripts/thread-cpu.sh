#!/usr/bin/env bash
# Where the CPU of a durable publish goes, by thread: starts the example server on a fresh data directory, warms it
# up with wrk (single-event publishes, random keys: publish.lua), then samples /proc/<pid>/task/*/stat before and after
# a measured wrk run and divides each thread group's CPU by the publishes the server counted
# (interlace_log_group_requests_sum in /metrics). Also prints wrk's own CPU per request and the group commits.
#
# usage: interlace-benchmarks/scripts/thread-cpu.sh [--jar JAR] [--java PATH] [--seconds N] [--warmup N] [--connections N]
#                                     [--work DIR] [-- extra serve options...]
set -euo pipefail

seconds=20
warmup=60  # the JIT compiler is busy for well over a minute on a slow 2-core machine (see wrk-publish.sh)
connections=64
work=/var/tmp/interlace-thread-cpu
# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
parse_options 9 "jar seconds warmup work connections" "$@"
set -- ${serve_args[@]+"${serve_args[@]}"}

prepare_server_run

rm -rf "$work/data" "$work/serve.out"
serve_once "$work/data" "$@"

# CPU ticks per thread group (thread names without their trailing number), summed.
threads() {
  for task in /proc/"$server_pid"/task/*; do
    printf '%s %s\n' "$(sed -E 's/-?[0-9]+$//' "$task/comm" | tr ' ' '_')" "$(stat_ticks "$task/stat")"
  done | awk '{ticks[$1] += $2} END {for (name in ticks) print name, ticks[name]}' | sort
}
metric() {
  # awk reads to the end: leaving early would let curl die of SIGPIPE, and pipefail would end the script.
  curl -s "$url/metrics" | awk -v name="$1" '$1 == name && !found {value = $2; found = 1} END {print value}'
}

wrk -t$(( connections < 2 ? 1 : 2 )) -c"$connections" -d"${warmup}s" -s "$script_dir/publish.lua" "$url" >/dev/null
threads >"$work/before"
publishes_before=$(metric interlace_log_group_requests_sum)
commits_before=$(metric interlace_log_group_requests_count)
commit_seconds_before=$(metric interlace_log_commit_duration_seconds_sum)
wrk -t$(( connections < 2 ? 1 : 2 )) -c"$connections" -d"${seconds}s" --latency -s "$script_dir/publish.lua" "$url" >"$work/wrk.out" &
wrk_pid=$!
sleep 1
wrk_ticks_before=$(stat_ticks /proc/"$wrk_pid"/stat 2>/dev/null || echo 0)
sleep $((seconds - 2))
wrk_ticks_after=$(stat_ticks /proc/"$wrk_pid"/stat 2>/dev/null || echo 0)
wait "$wrk_pid"
threads >"$work/after"
publishes=$(awk -v a="$publishes_before" -v b="$(metric interlace_log_group_requests_sum)" 'BEGIN {print b - a}')
commits=$(awk -v a="$commits_before" -v b="$(metric interlace_log_group_requests_count)" 'BEGIN {print b - a}')
commit_seconds=$(awk -v a="$commit_seconds_before" -v b="$(metric interlace_log_commit_duration_seconds_sum)" \
  'BEGIN {print b - a}')
rate=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.out")
hz=$(getconf CLK_TCK)

echo "$(basename "$jar"), $("$java_bin" -version 2>&1 | head -1); wrk -t2 -c$connections, ${seconds} s after ${warmup} s"
echo "publishes/s $rate; p50 $(wrk_percentile_ms 50% <"$work/wrk.out") ms, p99 $(wrk_percentile_ms 99% <"$work/wrk.out") ms"
awk -v n="$publishes" -v c="$commits" -v s="$commit_seconds" 'BEGIN {
  printf "group commits %d, %.1f publishes each, %.3f ms each on average\n", c, n / c, s * 1000 / c }'
awk -v a="$wrk_ticks_before" -v b="$wrk_ticks_after" -v r="$rate" -v hz="$hz" -v t="$((seconds - 2))" 'BEGIN {
  printf "wrk itself: %.1f us of CPU per request\n", (b - a) * 1e6 / hz / t / r }'
echo "CPU per publish by thread (us):"
join "$work/before" "$work/after" | awk -v n="$publishes" -v hz="$hz" '{
  us = ($3 - $2) * 1e6 / hz / n; total += us; if ($1 !~ /^(C1_|C2_|GC_|G1_)/) work += us
  if (us >= 0.1) printf "  %-30s %7.1f\n", $1, us }
  END { printf "  %-30s %7.1f\n", "total", total; printf "  %-30s %7.1f\n", "total_without_JIT_and_GC", work }' |
  sort -k2 -n -r
