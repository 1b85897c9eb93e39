#!/usr/bin/env bash
# What a large deduplication window costs a Kafka node: writes KEYS keyed events and their key blocks to one stream
# in bulk, in the batches the sequencer's producer makes (not through HTTP), then measures a following node's
# heap, the takeover by a node that never held the stream, the whole index built from the key blocks into an empty
# directory (the worst case of such a takeover), a second node's standby segments (until it becomes a candidate
# for the stream) and its takeover, the sequencers' heap
# per key, retries of old keys against new publishes and against a bare produce round trip (their floor), and the only
# candidate left, a node that never followed the stream, taking over from the published index and, in the same
# conditions, without it (--fresh-only: the first takeover and those two only)
# (TakeoverBenchmark, on the benchmarks' class path, which holds the kafka_2.13 jars and the KafkaCluster harness).
#
# usage: interlace-benchmarks/scripts/kafka-takeover.sh [--offline] [--heap SIZE] [--fresh-only] KEYS     (defaults: --heap 1g; work in
#        /var/tmp/interlace-kafka-takeover, deleted first)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
mvn_flags=(-B -q)
heap=1g
only=()
while [ $# -gt 1 ]; do
  case "$1" in
    --offline) mvn_flags+=(-o); shift ;;
    --heap) heap=$2; shift 2 ;;
    --fresh-only) only=(--fresh-only); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
keys=${1:?usage: kafka-takeover.sh [--offline] [--heap SIZE] [--fresh-only] KEYS}
work=/var/tmp/interlace-kafka-takeover
rm -rf "$work" && mkdir -p "$work"
(cd "$repo" && mvn "${mvn_flags[@]}" -pl interlace-benchmarks -am -DskipTests package \
  org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -Dmdep.includeScope=runtime \
  -Dmdep.outputFile=target/bench-classpath.txt) >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
classpath="$repo/interlace-benchmarks/target/interlace-benchmarks.jar:$(cat "$repo/interlace-benchmarks/target/bench-classpath.txt")"
echo "$(date -u +%FT%TZ) $(git -C "$repo" rev-parse --short HEAD), $(nproc) cores, -Xmx$heap, $keys keys"
exec java -Xmx"$heap" -XX:+UseG1GC -cp "$classpath" dev.interlace.log.kafka.TakeoverBenchmark "$work/nodes" "$keys" "${only[@]}"
