# Shared by the Kafka benchmarks (kafka-publish.sh, kafka-scale.sh): their child processes, stopped on exit, a free
# port, and the broker. Needs $work and $classpath.

declare -A pids=()
stop() {
  local name=$1
  if [ -n "${pids[$name]:-}" ]; then
    kill "${pids[$name]}" 2>/dev/null || true
    wait "${pids[$name]}" 2>/dev/null || true
    unset "pids[$name]"
  fi
}
stop_all() {
  for name in "${!pids[@]}"; do
    stop "$name"
  done
}
trap stop_all EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The broker: a child JVM that starts a one-node KRaft cluster and stops it (deleting its data) on SIGTERM.
start_broker() {
  java -Djava.io.tmpdir="$work" -cp "$classpath" dev.interlace.benchmarks.KafkaBroker start \
    >"$work/broker.out" 2>&1 &
  pids[broker]=$!
  bootstrap=""
  for _ in $(seq 1 720); do
    bootstrap=$(awk '/^bootstrap / {print $2}' "$work/broker.out")
    [ -n "$bootstrap" ] && break
    kill -0 "${pids[broker]}" 2>/dev/null || break
    sleep 0.25
  done
  [ -n "$bootstrap" ] || { cat "$work/broker.out"; echo "the broker did not start" >&2; exit 1; }
  broker_jvm=$(pgrep -P "${pids[broker]}" -f kafka.Kafka | head -1)
}
