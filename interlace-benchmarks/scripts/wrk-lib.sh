# Shared by the wrk benchmarks (wrk-publish.sh, kafka-publish.sh, one-client.sh, thread-cpu.sh, tail-latency.sh): their
# options, installing wrk, the disk probe, starting a server and waiting for its address, and one wrk
# measurement. Sourced, not run.

# The benchmarks' folder and the checkout they belong to; the defaults of the options every benchmark takes (--jar:
# the example server built from $repo, --java: java on the PATH).
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
jar=""
java_bin=java

# Reads a benchmark's options: --java PATH into $java_bin, and --NAME VALUE into $NAME (a hyphen in NAME read as an
# underscore) for each NAME of the list $2 (e.g. "jar seconds warmup work"); anything else is an error. --help prints
# lines 2 to $1 of the script. What follows -- goes to `interlace serve`: the script takes it from $serve_args.
# usage: parse_options HELP_LINES "NAME..." "$@"
parse_options() {
  local help_lines=$1 names=" ${2//-/_} " name
  shift 2
  serve_args=()
  while [ $# -gt 0 ]; do
    name=${1#--}
    name=${name//-/_}
    case "$1" in
      --java) java_bin=$2; shift 2 ;;
      --) shift; serve_args=("$@"); break ;;
      -h|--help) sed -n "2,${help_lines}p" "$0"; exit 0 ;;
      --*) [[ $names == *" $name "* ]] || { echo "unknown option $1" >&2; exit 2; }
           [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
           printf -v "$name" '%s' "$2"; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 2 ;;
    esac
  done
}

# Installs wrk (Debian package) if it is missing.
ensure_wrk() {
  if ! command -v wrk >/dev/null 2>&1; then
    echo "installing wrk (Debian package)"
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
  fi
}

# Sets $jar, when no --jar was given, to the example server built from the tree at $repo (copied into $work:
# concurrent builds replace target/ jars).
ensure_jar() {
  if [ -z "$jar" ]; then
    (cd "$repo" && mvn -B -q -DskipTests package) >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
    jar="$work/server.jar"
    cp "$repo/examples/target/interlace-examples.jar" "$jar"
  fi
}

# What a benchmark of the example server does before it starts one: makes $work, installs wrk, and sets $jar.
prepare_server_run() {
  ensure_wrk
  mkdir -p "$work"
  ensure_jar
}

# Waits until the server whose output goes to file $1 prints the address it listens on (its ready line), or until its process $2
# exits; sets $url. Exits the script when the server does not start within 60 s (or $3 s).
await_url() {
  local output=$1 pid=$2 limit=${3:-60}
  url=""
  for _ in $(seq 1 $((limit * 4))); do
    url=$(grep -o "listening on http://[0-9.]*:[0-9]*" "$output" 2>/dev/null | head -1 | cut -d' ' -f3 || true)
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  cat "$output"
  echo "the server did not start" >&2
  exit 1
}

# Runs FsyncProbe, the disk alone (8 KiB writes, each followed by fsync), in directory $1; builds the benchmarks' jar
# first when it is missing.
probe_disk() {
  local bench_jar="$repo/interlace-benchmarks/target/interlace-benchmarks.jar"
  [ -f "$bench_jar" ] || (cd "$repo" && mvn -B -q -DskipTests package -pl interlace-benchmarks -am) >"$work/build.log" \
    2>&1 || { cat "$work/build.log"; exit 1; }
  "$java_bin" -cp "$bench_jar" dev.interlace.benchmarks.FsyncProbe "$1"
}

# Starts `interlace serve` of $jar on data directory $1 with the serve options that follow (and the JVM options in the
# array $server_jvm, if set), its output in $work/serve.out; sets $server_pid and $url, and stops the server when the
# script exits.
# usage: serve_once DATA_DIR [SERVE_OPTIONS...]
serve_once() {
  local data=$1
  shift
  "$java_bin" ${server_jvm[@]+"${server_jvm[@]}"} -jar "$jar" serve --port 0 --data-dir "$data" "$@" \
    >"$work/serve.out" 2>&1 &
  server_pid=$!
  trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT
  await_url "$work/serve.out" "$server_pid"
}

# The CPU ticks (user + system) in the /proc stat file $1: fields 14 and 15, counted after the name in parentheses,
# which may hold spaces ("C2 CompilerThre", "VM Thread").
stat_ticks() {
  sed -E 's/^.*\) //' "$1" | awk '{print $12 + $13}'
}

# The CPU ticks of process $1's JIT compiler threads (C1 and C2), summed.
jit_ticks() {
  local task total=0
  for task in /proc/"$1"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null)" in
      C1\ Compiler* | C2\ Compiler*) total=$((total + $(stat_ticks "$task/stat" 2>/dev/null || echo 0))) ;;
    esac
  done
  echo "$total"
}

# One wrk run of $seconds against $url$path: prints "rate p99_ms failed p50_ms", failed counting the non-2xx answers
# and the socket errors (timeouts included).
# usage: measure THREADS CONNECTIONS PATH [LUA_SCRIPT [SCRIPT_ARGUMENTS...]]
measure() {
  local threads=$1 connections=$2 path=$3 script=${4:-}
  shift $(($# < 4 ? $# : 4))
  local out
  if [ -n "$script" ]; then
    out=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s "$script" "$url$path" -- "$@")
  else
    out=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "$url$path")
  fi
  local rate p50 p99 non2xx errors
  rate=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p50=$(wrk_percentile_ms 50% <<<"$out")
  p99=$(wrk_percentile_ms 99% <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  # Socket errors (a timeout is a request unanswered after wrk's 2 s; its latency is in no percentile) count as
  # failures too.
  errors=$(awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}' <<<"$out")
  echo "$rate ${p99:-?} $((${non2xx:-0} + ${errors:-0})) ${p50:-?}"
}

# The latency at percentile $1 ("50%", "99%") of wrk --latency's output on stdin, in milliseconds.
wrk_percentile_ms() {
  awk -v p="$1" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us$/, "", v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)} else if (v ~ /s$/) {sub(/s$/, "", v); v=v*1000}; print v}'
}
