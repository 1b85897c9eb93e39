# Shared by the Kafka benchmarks (kafka-publish.sh, kafka-scale.sh): their build and class path, their child
# processes, stopped on exit, a free port, and the broker. Needs $repo, $work, $build and $mvn_flags.

# The benchmarks' jar and class path (the example application, the kafka_2.13 jars and the KafkaCluster harness):
# built from the tree at $repo when $build is yes and copied to $work/lib, so that a later build in the tree cannot
# change a run; sets $classpath (with --no-build, the copy of the last build).
bench_classpath() {
  if [ "$build" = yes ]; then
    echo "building $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ', with uncommitted changes')"
    (cd "$repo" && mvn "${mvn_flags[@]}" -pl interlace-benchmarks -am -DskipTests package \
      org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile=target/bench-classpath.txt) >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
    rm -rf "$work/lib" && mkdir -p "$work/lib"
    cp "$repo/interlace-benchmarks/target/interlace-benchmarks.jar" "$work/lib/"
    local entries=("$work/lib/interlace-benchmarks.jar") dependencies=() jar
    IFS=: read -r -a dependencies <"$repo/interlace-benchmarks/target/bench-classpath.txt" || true  # no newline at its end
    for jar in "${dependencies[@]}"; do
      case "$jar" in
        "$repo"/*) cp "$jar" "$work/lib/" && entries+=("$work/lib/$(basename "$jar")") ;;
        *) entries+=("$jar") ;;
      esac
    done
    (IFS=:; echo "${entries[*]}") >"$work/lib/classpath.txt"
  fi
  classpath=$(cat "$work/lib/classpath.txt")
}

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

# The broker: a child JVM that starts a one-node KRaft cluster and stops it (deleting its data) on SIGTERM; the
# script's $broker_settings (KEY=VALUE, optional) go to its server.properties.
start_broker() {
  java -Djava.io.tmpdir="$work" -cp "$classpath" dev.interlace.benchmarks.KafkaBroker start ${broker_settings[@]+"${broker_settings[@]}"} \
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
