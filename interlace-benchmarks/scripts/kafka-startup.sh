#!/usr/bin/env bash
# How long a Kafka node takes to listen when it serves orders with N partitions (N log streams), on a new topic prefix
# (its topics made) and restarted on the same data directory (its topics there), against one broker; alternating with
# a baseline build when one is given. The builds are the lib/ directories kafka-publish.sh makes (`--work DIR`: DIR/lib,
# with its classpath.txt), e.g. one of the tree under test and one of a baseline commit.
#
# usage: interlace-benchmarks/scripts/kafka-startup.sh --lib DIR [--baseline-lib DIR] [--partitions 32] [--rounds 2]
set -euo pipefail

lib=""
baseline=""
partitions=32
rounds=2
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --baseline-lib) baseline=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$lib" ] || { echo "--lib DIR is required (a lib/ directory made by kafka-publish.sh)" >&2; exit 2; }

work=$(mktemp -d /var/tmp/interlace-kafka-startup.XXXX)
classpath=$(cat "$lib/classpath.txt")
java -Djava.io.tmpdir="$work" -cp "$classpath" dev.interlace.benchmarks.KafkaBroker start >"$work/broker.out" 2>&1 &
broker=$!
trap 'kill "$broker" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
bootstrap=""
for _ in $(seq 1 480); do
  bootstrap=$(awk '/^bootstrap / {print $2}' "$work/broker.out")
  [ -n "$bootstrap" ] && break
  sleep 0.25
done
[ -n "$bootstrap" ] || { cat "$work/broker.out"; echo "the broker did not start" >&2; exit 1; }

# start_once CLASSPATH PREFIX DATA LABEL: starts the node, prints the milliseconds until it listens, stops it.
start_once() {
  local started pid
  started=$(date +%s%3N)
  java -cp "$1" dev.interlace.benchmarks.PartitionedServe "$partitions" serve --port 8733 --data-dir "$3" --log kafka \
    --kafka-bootstrap "$bootstrap" --kafka-topic-prefix "$2" --kafka-replication-factor 1 \
    --kafka-min-insync-replicas 1 >"$work/$4.out" 2>&1 &
  pid=$!
  until grep -q "listening on" "$work/$4.out"; do
    kill -0 "$pid" 2>/dev/null || { tail -5 "$work/$4.out"; echo "$4: the node ended before listening" >&2; exit 1; }
    sleep 0.05
  done
  echo "$4: listening after $(( $(date +%s%3N) - started )) ms"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

echo "orders with $partitions partitions, one broker at $bootstrap; $(nproc) cores"
for round in $(seq 1 "$rounds"); do
  for build in tested baseline; do
    dir=$lib
    if [ "$build" = baseline ]; then
      [ -n "$baseline" ] || continue
      dir=$baseline
    fi
    prefix="startup-$round-$build-$RANDOM."
    start_once "$(cat "$dir/classpath.txt")" "$prefix" "$work/data-$round-$build" "$build-$round-new-prefix"
    start_once "$(cat "$dir/classpath.txt")" "$prefix" "$work/data-$round-$build" "$build-$round-restart"
  done
done
