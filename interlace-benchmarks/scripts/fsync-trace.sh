#!/usr/bin/env bash
# Where a lone publisher's slow answers come from: the example server on a fresh data directory, --warmup seconds of
# wrk -t2 -c64 publishes (not measured), the backlog flushed, then --seconds of one client's sequential publishes
# (fsync-trace.py) while `perf trace` records the server's fsync/fdatasync calls and the client's send/recv in one
# clock. Prints the client's percentiles and fsync-trace.py's analysis: each thread's fsyncs, the publishes over 5 ms
# by whether the log writer's own fsync took over half of them and which threads synced meanwhile, and the writer's
# fsyncs alone against beside another thread's. Needs perf (Debian's linux-perf) and python3. Options after -- go to
# `interlace serve`.
#
# usage: interlace-benchmarks/scripts/fsync-trace.sh [--jar JAR] [--java PATH] [--seconds 30] [--warmup 30]
#            [--work DIR] [-- serve options...]
set -euo pipefail

seconds=30
warmup=30
work=/var/tmp/interlace-fsync-trace
# shellcheck source=wrk-lib.sh
. "$(dirname "$0")/wrk-lib.sh"
parse_options 11 "jar seconds warmup work" "$@"
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 1; }
prepare_server_run

data="$work/data"
rm -rf "$data" "$work/trace.txt" "$work/go"
serve_once "$data" ${serve_args[@]+"${serve_args[@]}"}
wrk -t2 -c64 -d"${warmup}s" -s "$script_dir/publish.lua" "$url" >/dev/null
for _ in $(seq 1 600); do
  pending=$(curl -s "$url/streams/orders" | grep -o '"pending" *: *[0-9]*' | head -1 | grep -o '[0-9]*$' || true)
  [ "${pending:-1}" = 0 ] && break
  sleep 0.5
done
address=${url#http://}
python3 "$script_dir/fsync-trace.py" client "${address%:*}" "${address#*:}" "$seconds" "$work/go" &
client_pid=$!
perf trace -p "$server_pid,$client_pid" -e fsync,fdatasync,sendto,recvfrom -o "$work/trace.txt" &
trace_pid=$!
sleep 2
touch "$work/go"
wait "$client_pid"
kill -INT "$trace_pid"
wait "$trace_pid" || true
for task in /proc/"$server_pid"/task/*; do
  echo "$(basename "$task") $(tr ' ' _ <"$task/comm" 2>/dev/null || echo '?')"
done >"$work/tids.txt"
python3 "$script_dir/fsync-trace.py" analyse "$work/trace.txt" "$work/tids.txt"
