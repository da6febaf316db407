#!/usr/bin/env bash
# weir against Apache Kafka Connect on this machine, in one run, on one real broker
# (issue 8). Writes the markdown table to bench/results/latest.md and prints it.
#
#   bench/run.sh [--records N] [--tasks "1 2 4 8"] [--connect-tasks "1 2 4 8"]
#                [--out FILE] [--keep] [--no-failover | --only failover|jdbc]
#                [--no-build] [--check] [--rounds R]
#
#   --records N        input size, default 2000000 (a topic of N JSON user events,
#                      ~180 bytes each, 8 partitions; and a file of N lines)
#   --tasks LIST       weir sink tasks.max values to try (the best is reported)
#   --connect-tasks LIST  the same for Kafka Connect (default: the same list)
#   --out FILE         where the report goes, default bench/results/latest.md
#   --keep             keep the work directory (sink files, logs) afterwards
#   --no-failover      skip the failover runs (step 8)
#   --only failover    run the failover runs only (steps 3 to 7 skipped)
#   --only jdbc        run the JDBC sink and its raw baselines only (step 6)
#   --no-build         use the build directory as it is (WEIR_BENCH_BUILD, e.g. the
#                      test build of scripts/test.sh): no meson, only a check that
#                      weir and the bench tools are there; the report names its type
#   --check            exit 1 when a subject did not deliver (a smoke run: it checks
#                      that the harness works, never a time)
#   --rounds R         run each compared subject R times, default 2: weir's and Kafka
#                      Connect's sinks (each tasks.max), the bare consumer, the JDBC
#                      sink and jdbc_bench's loops; each target compares the best of
#                      each side (the machine's noise moves single runs by 20% and more)
#
# In order: weir standalone (FileStreamSink with JsonConverter, InsertField,
# ReplaceField and MaskField), Kafka Connect standalone with the identical connector
# config, a bare librdkafka consumer (the ceiling), weir's JDBC sink on SQLite with
# the raw SQLite insert rate beside it, and FileStreamSource (file of N lines ->
# topic) for weir and Kafka Connect. bench_run (bench/bench_run.cpp) runs each one
# and measures start -> first record -> last record, CPU and peak RSS. Last, the
# failover: three `weir node`s, then three Kafka Connect distributed workers, each
# running one FileStreamSink (tasks.max=6, 6 partitions) with
# scheduled.rebalance.max.delay.ms=0; failover_probe (bench/failover_probe.cpp)
# produces a steady load, kills one worker with SIGKILL and times until every
# partition has again a record written that was produced after the kill.
#
# It builds weir (release) into build-release/, installs what is missing (apt-get,
# and Kafka's and Kafka Connect's jars with Maven into tools/*/lib), starts its own
# broker, and always stops it and every child at the end. Every run has a timeout.
#
# Environment:
#   WEIR_KAFKA_PORT     the bench broker's port, default 29092 (so it does not meet
#                       the test broker on 9092); the controller uses the next one
#   WEIR_KAFKA_DIR      its state directory, default <repo>/.cache/bench-kafka
#   WEIR_BENCH_DIR      work directory (sink files, logs), default <repo>/.cache/bench
#   WEIR_BENCH_BUILD    weir's build directory, default build-release
#   WEIR_BENCH_TIMEOUT  seconds allowed to each run, default 600 (the failover
#                       probe: to each of its phases, at most 180)
#   WEIR_BENCH_PORT     the first port tried for REST and cluster listeners on
#                       127.0.0.1, default 28083 (up to 116 above it are tried)
#   WEIR_BENCH_FAILOVER_PROPS  extra worker properties for both clusters of the
#                       failover runs, "key=value key=value" (default none: both
#                       engines with their defaults); the report names them
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

records=2000000
tasks_list="1 2 4 8"
connect_tasks_list=""
out="$WEIR_REPO/bench/results/latest.md"
keep=0
failover=1
sinks=1 # steps 3, 4, 5 and 7
jdbc=1  # step 6
build=1
check=0
rounds=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) records="$2"; shift ;;
    --tasks) tasks_list="$2"; shift ;;
    --connect-tasks) connect_tasks_list="$2"; shift ;;
    --out) out="$2"; shift ;;
    --keep) keep=1 ;;
    --no-failover) failover=0 ;;
    --only)
      case "${2:-}" in
        failover) sinks=0; jdbc=0 ;;
        jdbc) sinks=0; failover=0 ;;
        *) weir::die "--only takes: failover, jdbc" ;;
      esac
      shift ;;
    --no-build) build=0 ;;
    --check) check=1 ;;
    --rounds) rounds="$2"; shift ;;
    -h | --help) usage ;;
    *) printf 'unknown argument: %s\n' "$1" >&2; usage ;;
  esac
  shift
done
[[ "$records" =~ ^[1-9][0-9]*$ ]] || weir::die "--records needs a positive integer"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || weir::die "--rounds needs a positive integer"
connect_tasks_list="${connect_tasks_list:-$tasks_list}"

export WEIR_KAFKA_PORT="${WEIR_KAFKA_PORT:-29092}"
export WEIR_KAFKA_DIR="${WEIR_KAFKA_DIR:-$WEIR_REPO/.cache/bench-kafka}"
work="${WEIR_BENCH_DIR:-$WEIR_REPO/.cache/bench}"
builddir="${WEIR_BENCH_BUILD:-build-release}"
[[ "$builddir" == /* ]] || builddir="$WEIR_REPO/$builddir"
run_timeout="${WEIR_BENCH_TIMEOUT:-600}"
bootstrap="127.0.0.1:$WEIR_KAFKA_PORT"
connect_dir="$WEIR_REPO/tools/connect"
connect_lib="$connect_dir/lib"
connect_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$connect_dir/pom.xml")"
kafka_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$WEIR_REPO/tools/kafka/pom.xml")"
# connect-standalone.sh's defaults (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS).
connect_jvm=(-Xms256M -Xmx2G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
  -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
  -XX:MaxInlineLevel=15 -Djava.awt.headless=true)
run_id="$(date +%s)"

# --- cleanup: every child and the broker, whatever happens -----------------------
broker_started=0
cluster_pids=() # the failover runs' weir nodes and Kafka Connect workers
cleanup() {
  local rc=$?
  # A failover run that did not finish leaves its cluster up: no drain, just end it.
  ((${#cluster_pids[@]} == 0)) || kill -KILL "${cluster_pids[@]}" 2>/dev/null || true
  # bench_run kills its subject's process group when it is signalled itself.
  jobs -p | xargs -r kill 2>/dev/null || true
  wait 2>/dev/null || true
  if ((broker_started)); then
    weir::log "bench: stopping the bench broker"
    "$WEIR_REPO/scripts/kafka.sh" stop || true
  fi
  if ((!keep)) && [[ -d "$work/run" ]]; then
    find "$work/run" -maxdepth 1 \( -name '*.txt' -o -name '*.db*' \) -delete 2>/dev/null || true
    rm -f "$work"/run/failover-*/n*/sink.txt
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- step 1: packages, weir, the bench tools, the Kafka Connect jars ---------------
if ((build)); then
  weir::log "bench: step 1/8: packages and build ($builddir, release)"
  weir::ensure_packages build java
  weir::build "$builddir" -Dbuildtype=release -Dtests=disabled
else
  weir::log "bench: step 1/8: packages; the build in $builddir as it is (--no-build)"
  weir::ensure_packages java
fi
weir="$builddir/weir"
tools="$builddir/bench"
for t in "$weir" "$tools"/{preload,bare_consumer,bench_run,jdbc_bench,failover_probe}; do
  [[ -x "$t" ]] || weir::die "missing $t (build it: ninja -C $builddir)"
done
buildtype="$(meson introspect --buildoptions "$builddir" 2>/dev/null |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))' ||
  echo '?')"

# ensure_connect_jars — resolve Kafka Connect's jars with Maven into tools/connect/lib
# unless they are there for the current pom.xml (as scripts/kafka.sh does for Kafka).
ensure_connect_jars() {
  local stamp="$connect_lib/.pom.sha256" want tmp
  want="$(sha256sum "$connect_dir/pom.xml" | cut -d' ' -f1)"
  if [[ -f "$connect_lib/connect-runtime-$connect_version.jar" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
    weir::log "bench: Kafka Connect $connect_version jars present"
    return 0
  fi
  exec 8<"$connect_dir/pom.xml"
  flock -w 600 8 || weir::die "could not lock $connect_dir/pom.xml within 600 s"
  if [[ ! -f "$connect_lib/connect-runtime-$connect_version.jar" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    weir::log "bench: resolving Kafka Connect $connect_version jars from Maven Central into tools/connect/lib"
    tmp="$connect_lib.tmp.$$"
    rm -rf "$tmp"
    if ! mvn -B -q -f "$connect_dir/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g' >&2; then
      rm -rf "$tmp"
      weir::die "mvn could not resolve the Kafka Connect jars"
    fi
    [[ -f "$tmp/connect-runtime-$connect_version.jar" ]] || weir::die "mvn did not produce connect-runtime"
    printf '%s\n' "$want" >"$tmp/.pom.sha256"
    rm -rf "$connect_lib"
    mv "$tmp" "$connect_lib"
  fi
  exec 8<&-
}
# Kafka Connect runs in steps 4, 7 and 8 only.
if ((sinks || failover)); then ensure_connect_jars; fi

# --- step 2: the broker and the input ---------------------------------------------
weir::log "bench: step 2/8: broker on $bootstrap (state in $WEIR_KAFKA_DIR) and $records records"
rm -rf "$work/run"
mkdir -p "$work/run"
results="$work/run/results.tsv"
: >"$results"
meta() { printf 'meta\t%s\t%s\n' "$1" "$2" >>"$results"; }
meta records "$records"
meta cores "$(nproc)"
meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
meta memory "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
meta load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
meta nice "$(nice)"
meta rounds "$rounds"
meta buildtype "$buildtype"
meta date "$(date -u '+%Y-%m-%d %H:%M UTC')"
meta weir "$("$weir" version 2>/dev/null | head -n 1 | sed 's/^weir //') (git $(git -C "$WEIR_REPO" rev-parse --short HEAD 2>/dev/null || echo '?'))"
meta kafka "$kafka_version"
meta connect "$connect_version"
meta java "$(java -version 2>&1 | head -n 1 | tr -d '"')"
meta librdkafka "$(dpkg-query -W -f='${Version}' librdkafka-dev 2>/dev/null || echo '?')"
meta sqlite "$(sqlite3 --version 2>/dev/null | cut -d' ' -f1)"
meta connect_jvm "${connect_jvm[*]}"

"$WEIR_REPO/scripts/kafka.sh" stop >/dev/null 2>&1 || true
broker_started=1
"$WEIR_REPO/scripts/kafka.sh" start >/dev/null
topic="user-events-$run_id"
"$tools/preload" --bootstrap-servers "$bootstrap" --topic "$topic" --partitions 8 --records "$records" >&2
if ((sinks)); then "$tools/preload" --file "$work/run/source-input.txt" --records "$records"; fi
# The first consumer group on a fresh broker waits for __consumer_offsets to be
# created and loaded (seconds): pay that here, not in whichever run comes first.
timeout 120 "$tools/bare_consumer" --bootstrap-servers "$bootstrap" --topic "$topic" \
  --group "bench-warmup-$run_id" --records 1 >/dev/null

# free_port [N] — N (default 1) distinct free TCP ports on 127.0.0.1, for listeners.
port_base="${WEIR_BENCH_PORT:-28083}"
free_port() {
  local want="${1:-1}" p found=()
  for ((p = port_base; p < port_base + 117 && ${#found[@]} < want; ++p)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || found+=("$p")
  done
  ((${#found[@]} == want)) || weir::die "not $want free ports in $port_base..$((port_base + 116))"
  printf '%s\n' "${found[*]}"
}

# worker_file NAME [KEY=VALUE...] — a standalone worker config; prints its path.
worker_file() {
  local name="$1" f="$work/run/$1.worker.properties" kv
  shift
  {
    printf 'bootstrap.servers=%s\n' "$bootstrap"
    printf 'key.converter=org.apache.kafka.connect.storage.StringConverter\n'
    printf 'value.converter=org.apache.kafka.connect.json.JsonConverter\n'
    printf 'value.converter.schemas.enable=false\n'
    printf 'consumer.auto.offset.reset=earliest\n'
    printf 'offset.storage.file.filename=%s\n' "$work/run/$name.offsets"
    printf 'listeners=http://127.0.0.1:%s\n' "$(free_port)"
    for kv in "$@"; do printf '%s\n' "$kv"; done
  } >"$f"
  printf '%s\n' "$f"
}

# sink_file NAME TASKS OUTPUT — the FileStreamSink connector config both engines run.
sink_file() {
  local f="$work/run/$1.properties"
  cat >"$f" <<EOF
name=$1
connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector
tasks.max=$2
topics=$topic
file=$3
transforms=addsrc,shape,mask
transforms.addsrc.type=org.apache.kafka.connect.transforms.InsertField\$Value
transforms.addsrc.static.field=pipeline
transforms.addsrc.static.value=bench
transforms.shape.type=org.apache.kafka.connect.transforms.ReplaceField\$Value
transforms.shape.exclude=session
transforms.shape.renames=user_id:user,ts:timestamp
transforms.mask.type=org.apache.kafka.connect.transforms.MaskField\$Value
transforms.mask.fields=email
EOF
  printf '%s\n' "$f"
}

# measure KIND SUBJECT TARGET [KEY=VALUE...] -- CMD... — run CMD under bench_run and
# append its measurements (plus the extra keys) to the results.
measure() {
  local kind="$1" subject="$2" target="$3" extra=() line log
  shift 3
  while [[ $# -gt 0 && "$1" != -- ]]; do extra+=("$1"); shift; done
  shift
  log="$work/run/$kind-$(printf '%s' "$subject" | tr -c 'A-Za-z0-9' '_').log"
  weir::log "bench: $subject"
  # In the background, so that a signal to this script is handled at once: cleanup
  # kills bench_run, which kills its subject's process group.
  "$tools/bench_run" --records "$records" --target "$target" --timeout "$run_timeout" \
    --log "$log" -- "$@" >"$log.result" &
  wait "$!"
  line="$(<"$log.result")"
  weir::log "bench:   $line"
  printf '%s\t%s\t%s %s\n' "$kind" "$subject" "$line" "${extra[*]}" >>"$results"
  LAST_LINE="$line"
}

connect_cmd=(java "${connect_jvm[@]}" -Dlog4j2.configurationFile="$connect_dir/log4j2.properties"
  -cp "$connect_lib/*" org.apache.kafka.connect.cli.ConnectStandalone)

# ", round R" after a subject's name from its second round on.
round_label() { (($1 > 1)) && printf ', round %s' "$1" || true; }

if ((sinks)); then
  for ((round = 1; round <= rounds; round++)); do
    # --- step 3: weir sink, each tasks.max ------------------------------------------
    weir::log "bench: step 3/8: weir standalone FileStreamSink, tasks.max in: $tasks_list$(round_label "$round")"
    for t in $tasks_list; do
      name="bench-weir-file-t$t-r$round-$run_id"
      sink="$work/run/$name.txt"
      measure weir_sink "weir FileStreamSink, tasks.max=$t$(round_label "$round")" "file:$sink" "tasks=$t" -- \
        "$weir" standalone "$(worker_file "$name")" "$(sink_file "$name" "$t" "$sink")"
      rm -f "$sink"
    done

    # --- step 4: Kafka Connect sink, each tasks.max -----------------------------------
    weir::log "bench: step 4/8: Kafka Connect $connect_version standalone FileStreamSink, tasks.max in: $connect_tasks_list$(round_label "$round")"
    for t in $connect_tasks_list; do
      name="bench-connect-file-t$t-r$round-$run_id"
      sink="$work/run/$name.txt"
      measure kc_sink "Kafka Connect FileStreamSink, tasks.max=$t$(round_label "$round")" "file:$sink" "tasks=$t" -- \
        "${connect_cmd[@]}" "$(worker_file "$name")" "$(sink_file "$name" "$t" "$sink")"
      rm -f "$sink"
    done

    # --- step 5: the ceiling ----------------------------------------------------------
    weir::log "bench: step 5/8: bare librdkafka consumer$(round_label "$round")"
    measure ceiling "bare librdkafka consumer$(round_label "$round")" exit -- \
      "$tools/bare_consumer" --bootstrap-servers "$bootstrap" --topic "$topic" \
      --group "connect-bench-bare-r$round-$run_id" --records "$records"
  done
fi

if ((jdbc)); then
  # --- step 6: JDBC sink on SQLite, and the raw insert rate -----------------------------
  weir::log "bench: step 6/8: weir JDBC sink (SQLite, upsert) and raw SQLite inserts"
  for ((round = 1; round <= rounds; round++)); do
    name="bench-weir-jdbc-r$round-$run_id"
    db="$work/run/$name.db"
    cat >"$work/run/$name.properties" <<EOF
name=$name
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
tasks.max=1
topics=$topic
connection.url=jdbc:sqlite:$db
insert.mode=upsert
pk.mode=record_value
pk.fields=event_id
auto.create=true
table.name.format=user_events
EOF
    measure weir_jdbc "weir JDBC sink (SQLite upsert), tasks.max=1$(round_label "$round")" "sqlite:$db" tasks=1 -- \
      "$weir" standalone "$(worker_file "$name")" "$work/run/$name.properties"
    rm -f "$db" "$db-wal" "$db-shm" # so that its pages are not written back during the next loop
  done
  # The raw SQLite insert rates: of the very records the sink just wrote, read from
  # the topic in consumer order into the table auto.create made (the target's
  # reference), and of jdbc_bench's synthetic rows in key order (for comparison).
  weir::log "bench: jdbc_bench (raw SQLite inserts, same rows and synthetic)"
  if raw="$("$tools/jdbc_bench" --records "$records" --rounds "$rounds" --bootstrap-servers "$bootstrap" \
      --topic "$topic" --pk-fields event_id --table user_events 2>"$work/run/jdbc_bench.err")"; then
    printf '%s\n' "$raw" >"$work/run/jdbc_bench.out"
    weir::log "bench:   $(grep -m1 'same-rows raw INSERT loop, consumer order, 1 transaction' <<<"$raw" | sed 's/^ *//')"
    rate_of() { sed -n "s/.*$1[^:]*: \([0-9]*\) rows.*/\1/p" <<<"$raw" | head -n 1; }
    printf 'raw_sqlite\tjdbc_bench raw\tstatus=ok rate=%s sorted_rate=%s polled_rate=%s topic_upsert_rate=%s synthetic_rate=%s upsert_rate=%s\n' \
      "$(rate_of 'same-rows raw INSERT loop, consumer order, 1 transaction')" \
      "$(rate_of 'same-rows raw INSERT loop, key order')" \
      "$(rate_of 'same-rows raw INSERT loop, consumer order, [0-9]* per transaction')" \
      "$(rate_of 'same-rows JdbcSinkWriter upsert')" "$(rate_of 'raw prepared INSERT loop')" \
      "$(rate_of 'JdbcSinkWriter upsert, 1 transaction')" >>"$results"
  else
    weir::log "bench:   jdbc_bench failed: $(tail -n 1 "$work/run/jdbc_bench.err")"
    printf 'raw_sqlite\tjdbc_bench raw\tstatus=failed\n' >>"$results"
  fi
fi

if ((sinks)); then
  # --- step 7: the source direction -------------------------------------------------------
  weir::log "bench: step 7/8: FileStreamSource, $records lines -> topic"
  source_file() {
    cat >"$work/run/$1.properties" <<EOF
name=$1
connector.class=org.apache.kafka.connect.file.FileStreamSourceConnector
tasks.max=1
file=$work/run/source-input.txt
topic=$2
value.converter=org.apache.kafka.connect.storage.StringConverter
EOF
    printf '%s\n' "$work/run/$1.properties"
  }
  for engine in weir connect; do
    name="bench-$engine-source-$run_id"
    src_topic="source-$engine-$run_id"
    "$tools/preload" --bootstrap-servers "$bootstrap" --create-topic "$src_topic" --partitions 8
    if [[ "$engine" == weir ]]; then
      measure weir_source "weir FileStreamSource" "topic:$bootstrap:$src_topic" -- \
        "$weir" standalone "$(worker_file "$name")" "$(source_file "$name" "$src_topic")"
      if [[ "$LAST_LINE" != status=ok* ]]; then
        # Not on main yet (issue 5): say so, with weir's own words, instead of a number.
        why="$(grep -m1 -iE 'error|invalid' "$work/run/weir_source-weir_FileStreamSource.log" | cut -c1-160 || true)"
        weir::log "bench:   weir FileStreamSource not available: ${why:-no records}"
        sed -i '$ s/$/ why=not_available_yet/' "$results"
      fi
    else
      measure kc_source "Kafka Connect FileStreamSource" "topic:$bootstrap:$src_topic" -- \
        "${connect_cmd[@]}" "$(worker_file "$name")" "$(source_file "$name" "$src_topic")"
    fi
  done
fi

# --- step 8: failover after kill -9 of one of three workers -----------------------------
# rest METHOD PORT PATH [JSON] — a request to the REST API on 127.0.0.1:PORT; prints
# the body, fails unless the answer is 2xx (python3: report.py needs it anyway).
rest() {
  python3 - "$@" <<'PY'
import sys, urllib.request
method, port, path = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else None
req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method,
                             headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=5) as r:
        sys.stdout.write(r.read().decode())
except Exception as e:
    sys.exit(f"{method} {path}: {e}" if body else 1)
PY
}

# running_tasks PORT NAME [WORKER_ID] — how many tasks of the connector are RUNNING
# (on WORKER_ID only, if given); with --list, `id@worker_id` of every task instead.
running_tasks() {
  rest GET "$1" "/connectors/$2/status" 2>/dev/null | python3 -c '
import json, sys
tasks = json.load(sys.stdin)["tasks"]
if sys.argv[1] == "--list":
    print(" ".join("{}@{}".format(t["id"], t["worker_id"]) for t in tasks))
else:
    print(sum(t["state"] == "RUNNING" and sys.argv[1] in ("", t["worker_id"]) for t in tasks))
' "${3:-}"
}

# wait_for SECONDS WHAT CMD... — run CMD every 0.5 s until it succeeds.
wait_for() {
  local limit="$1" what="$2" deadline=$((SECONDS + $1))
  shift 2
  until "$@"; do
    if ((SECONDS >= deadline)); then
      weir::log "bench:   $what: not within $limit s"
      return 1
    fi
    sleep 0.5
  done
}

# tasks_running PORT NAME N — true when the connector's status shows N tasks RUNNING.
tasks_running() {
  [[ "$(running_tasks "$1" "$2")" == "$3" ]]
}

# failover_run ENGINE — three workers (weir nodes or Kafka Connect distributed
# workers), one FileStreamSink over a 6-partition topic, kill -9 of one, measured
# by failover_probe. Each worker runs in its own directory and writes its own
# sink.txt there (a relative `file`), so no two processes append to one file.
failover_run() {
  local engine="$1" kind subject name ftopic dir ports rest_ports cluster_ports seeds i n log
  local victim=-1 status line pids=()
  name="bench-failover-$engine-$run_id"
  ftopic="failover-$engine-$run_id"
  dir="$work/run/failover-$engine"
  ports="$(free_port 6)"
  read -r -a ports <<<"$ports"
  rest_ports=("${ports[@]:0:3}")
  cluster_ports=("${ports[@]:3:3}")
  seeds="127.0.0.1:${cluster_ports[0]},127.0.0.1:${cluster_ports[1]},127.0.0.1:${cluster_ports[2]}"
  if [[ "$engine" == weir ]]; then
    kind=weir_failover subject="weir, 3 nodes"
  else
    kind=kc_failover subject="Kafka Connect $connect_version, 3 distributed workers"
  fi
  weir::log "bench: $subject: REST on ${rest_ports[*]}"
  "$tools/preload" --bootstrap-servers "$bootstrap" --create-topic "$ftopic" --partitions "$failover_partitions"
  for i in 0 1 2; do
    mkdir -p "$dir/n$i"
    {
      printf 'bootstrap.servers=%s\n' "$bootstrap"
      printf 'group.id=%s\n' "$name"
      printf 'key.converter=org.apache.kafka.connect.storage.StringConverter\n'
      printf 'value.converter=org.apache.kafka.connect.json.JsonConverter\n'
      printf 'value.converter.schemas.enable=false\n'
      printf 'config.storage.topic=%s-configs\n' "$name"
      printf 'offset.storage.topic=%s-offsets\n' "$name"
      printf 'status.storage.topic=%s-status\n' "$name"
      printf 'scheduled.rebalance.max.delay.ms=0\n'
      printf 'listeners=http://127.0.0.1:%s\n' "${rest_ports[i]}"
      ((${#failover_props[@]} == 0)) || printf '%s\n' "${failover_props[@]}"
      if [[ "$engine" == weir ]]; then
        printf 'cluster.listen=127.0.0.1:%s\n' "${cluster_ports[i]}"
        printf 'cluster.seeds=%s\n' "$seeds"
        printf 'cluster.secret=%s\n' "$name"
        printf 'offset.storage.file.filename=%s\n' "$dir/n$i/state.db"
      else
        printf 'rest.advertised.host.name=127.0.0.1\n'
        printf 'rest.advertised.port=%s\n' "${rest_ports[i]}"
        printf '%s.storage.replication.factor=1\n' config offset status
      fi
    } >"$dir/n$i/worker.properties"
  done
  # start_worker I — the worker in its directory, in the background; its pid is kept.
  start_worker() {
    local cmd=("${connect_distributed_cmd[@]}" worker.properties)
    [[ "$engine" == connect ]] || cmd=("$weir" node --config worker.properties)
    (cd "$dir/n$1" && exec "${cmd[@]}" >worker.log 2>&1) &
    pids[$1]=$!
    cluster_pids+=("$!")
  }
  # worker_ready I — true when worker I answers on REST, or when it has ended (then
  # status says so: no use waiting for a dead process).
  worker_ready() {
    if ! kill -0 "${pids[$1]}" 2>/dev/null; then
      status="worker_$1_ended"
      weir::log "bench:   worker $1 ended; the end of $dir/n$1/worker.log:"
      tail -n 5 "$dir/n$1/worker.log" >&2 || true
      return 0
    fi
    rest GET "${rest_ports[$1]}" / >/dev/null
  }
  # The first worker first, so that it is the oldest (weir's leader, Kafka Connect's
  # first group member) in both clusters; then the other two together.
  status=ok
  start_worker 0
  wait_for "$failover_timeout" "worker 0" worker_ready 0 || status=not_started
  if [[ "$status" == ok ]]; then
    start_worker 1
    start_worker 2
    for i in 1 2; do
      wait_for "$failover_timeout" "worker $i" worker_ready "$i" || status=not_started
    done
  fi
  if [[ "$status" == ok ]]; then
    rest POST "${rest_ports[0]}" /connectors >/dev/null \
      "{\"name\":\"$name\",\"config\":{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",
        \"tasks.max\":\"$failover_tasks\",\"topics\":\"$ftopic\",\"file\":\"sink.txt\"}}" || status=not_created
  fi
  if [[ "$status" == ok ]]; then
    wait_for "$failover_timeout" "tasks" tasks_running "${rest_ports[0]}" "$name" "$failover_tasks" ||
      status=tasks_not_running
  fi
  if [[ "$status" == ok ]]; then
    # The victim: the last worker started that runs a task (the leader only if no
    # other runs one), found by the REST port in the tasks' worker_id.
    for i in 2 1 0; do
      n="$(running_tasks "${rest_ports[0]}" "$name" "127.0.0.1:${rest_ports[i]}")" || n=0
      if ((${n:-0} > 0)); then victim=$i; break; fi
    done
    ((victim >= 0)) || status=no_task_placed
  fi
  log="$work/run/$kind.log"
  if [[ "$status" == ok ]]; then
    weir::log "bench:   tasks: $(running_tasks "${rest_ports[0]}" "$name" --list);" \
      "kill -9 of worker $victim (127.0.0.1:${rest_ports[victim]}, pid ${pids[victim]})"
    "$tools/failover_probe" --bootstrap-servers "$bootstrap" --topic "$ftopic" \
      --partitions "$failover_partitions" --kill "${pids[victim]}" --timeout "$failover_timeout" \
      --file "$dir/n0/sink.txt" --file "$dir/n1/sink.txt" --file "$dir/n2/sink.txt" >"$log.result" 2>"$log" &
    wait "$!" || true
    line="$(<"$log.result")"
  else
    line="status=$status"
    weir::log "bench:   $subject: $status; the workers' logs are in $dir/n*/worker.log"
  fi
  weir::log "bench:   $line"
  printf '%s\t%s\t%s victim=%s\n' "$kind" "$subject" "$line" "$victim" >>"$results"
  # The others end with SIGTERM (SIGKILL after 20 s), so the next run has the machine.
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((i = 0; i < 40; ++i)); do
    kill -0 "${pids[@]}" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  cluster_pids=()
}

if ((failover)); then
  weir::log "bench: step 8/8: failover after kill -9 of one of three workers"
  failover_partitions=6
  failover_tasks=6
  failover_timeout=$((run_timeout < 180 ? run_timeout : 180))
  read -r -a failover_props <<<"${WEIR_BENCH_FAILOVER_PROPS:-}"
  meta failover_props "${failover_props[*]}"
  connect_distributed_cmd=("${connect_cmd[@]}")
  connect_distributed_cmd[${#connect_distributed_cmd[@]} - 1]=org.apache.kafka.connect.cli.ConnectDistributed
  failover_run weir
  failover_run connect
fi

# --- the report ---------------------------------------------------------------------------
meta load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$(dirname "$out")"
python3 "$WEIR_REPO/bench/report.py" "$results" >"$out"
cat "$out"
weir::log "bench: report written to $out (raw measurements and logs in $work/run)"
if ((check)); then
  # Every subject must have delivered.
  failed="$(awk -F'\t' '$1 != "meta" && $3 !~ /^status=ok/ {print "  " $2 ": " $3}' "$results")"
  [[ -z "$failed" ]] || weir::die "bench: --check: these runs did not deliver:"$'\n'"$failed"
  weir::log "bench: --check: every run delivered"
fi
