#!/usr/bin/env bash
# weir against Apache Kafka Connect on this machine, in one run, on one real broker
# (issue 8). Writes the markdown table to bench/results/latest.md and prints it.
#
#   bench/run.sh [--records N] [--tasks "1 2 4 8"] [--connect-tasks "1 2 4 8"]
#                [--out FILE] [--keep] [--no-failover] [--no-postgres]
#                [--only failover|jdbc|postgres|timing|cdc|pgsource|avro|many|partitions|sweep]
#                [--no-timing] [--no-cdc] [--no-pgsource] [--no-avro] [--no-many] [--connectors N]
#                [--many-records N] [--no-partitions] [--many-partitions P] [--sweep] [--no-sweep]
#                [--sweep-records "N1 N2 ..."] [--no-build] [--check] [--rounds R]
#
#   --records N        input size, default 2000000 (a topic of N JSON user events,
#                      ~180 bytes each, 8 partitions; and a file of N lines)
#   --tasks LIST       weir sink tasks.max values to try (the best is reported)
#   --connect-tasks LIST  the same for Kafka Connect (default: the same list)
#   --out FILE         where the report goes, default bench/results/latest.md
#   --keep             keep the work directory (sink files, logs) afterwards
#   --no-failover      skip the failover runs (step 9)
#   --no-postgres      skip the PostgreSQL runs (step 7)
#   --only failover    run the failover runs only (steps 3 to 8 skipped)
#   --only jdbc        run the JDBC sink on SQLite and its raw baselines only (step 6)
#   --only postgres    run the PostgreSQL runs only (step 7): weir's JDBC sink for each
#                      --tasks, Debezium's for each --connect-tasks, and COPY
#   --only timing      run the cost-of-measuring pair only (step 3b): weir's sink with
#                      its per-stage timing on, then off (metrics.stage.timing.enabled)
#   --no-timing        skip that pair
#   --only cdc         run the CDC runs only: N inserts (transactions of 100 rows,
#                      pgbench) streamed to Kafka by weir's PostgresConnector, then by
#                      Debezium's PostgreSQL connector on Kafka Connect (N: --records,
#                      a multiple of 100; the issue's size is 1000000; in a run of
#                      more than the CDC runs, N is --records up to 1000000)
#   --no-cdc           skip the CDC runs
#   --only pgsource    run the JDBC source on PostgreSQL only (step 10): N rows read in
#                      incrementing mode into a topic, against COPY ... TO of the same rows
#   --no-pgsource      skip step 10
#   --only avro        run the Avro pair only (step 11): weir's sink of step 3 at
#                      tasks.max=1 over the JSON topic (JsonConverter), then over the
#                      same events as Confluent Avro (AvroConverter, the bench's own
#                      Schema Registry), --rounds times, the order swapped each round
#   --no-avro          skip step 11
#   --only many        run the many-connectors step only (step 12, issue 26): --connectors
#                      FileStreamSink connectors (tasks.max=1, each its own file and
#                      consumer group) POSTed to the REST API of one weir standalone
#                      started with no connector file, then of one Kafka Connect
#                      standalone; time from the first POST until every file holds all
#                      the records, CPU, peak RSS, peak thread count, threads by name
#   --no-many          skip step 12
#   --connectors N     step 12's number of connectors, default 200
#   --many-records N   step 12's topic: N JSON user events on 4 partitions, default 20000
#   --only partitions  run the many-partitions step only (step 13, issue 26): weir's sink
#                      of step 3 at tasks.max=8 over a topic of --many-partitions
#                      partitions holding the same N events, beside the same connector
#                      over step 3's topic of 8 partitions, the order swapped each round
#   --no-partitions    skip step 13
#   --many-partitions P  step 13's partition count, default 1000
#   --only sweep       run the records sweep only (step 14, issue 26): weir's sink of step 3
#                      at tasks.max=1 over a topic of each --sweep-records size, CPU s per
#                      million records of each
#   --sweep            add step 14 to a run (off by default: its 20,000,000 records take
#                      ~3.6 GB of topic and minutes); --no-sweep leaves it out again
#   --sweep-records L  step 14's sizes, default "200000 2000000 20000000"
#   --no-build         use the build directory as it is (WEIR_BENCH_BUILD, e.g. the
#                      test build of scripts/test.sh): no meson, only a check that
#                      weir and the bench tools are there; the report names its type
#   --check            exit 1 when a subject did not deliver (a smoke run: it checks
#                      that the harness works, never a time)
#   --rounds R         run each compared subject R times, default 2: weir's and Kafka
#                      Connect's sinks (each tasks.max), the bare consumer, the JDBC
#                      sink and jdbc_bench's loops, the PostgreSQL runs; each target
#                      compares the best of each side (the machine's noise moves single
#                      runs by 20% and more)
#
# In order: weir standalone (FileStreamSink with JsonConverter, InsertField,
# ReplaceField and MaskField), Kafka Connect standalone with the identical connector
# config, a bare librdkafka consumer (the ceiling), weir's JDBC sink on SQLite with
# the raw SQLite insert rate beside it, weir's JDBC sink on PostgreSQL beside
# Debezium's JDBC sink on Kafka Connect and PostgreSQL's own COPY of the same rows
# (N JSON user events with schemas, upserted by user_id), and FileStreamSource
# (file of N lines -> topic) for weir and Kafka Connect. bench_run (bench/bench_run.cpp) runs each one
# and measures start -> first record -> last record, CPU and peak RSS. Last, the
# failover: three `weir node`s, then three Kafka Connect distributed workers, each
# running one FileStreamSink (tasks.max=6, 6 partitions) with
# scheduled.rebalance.max.delay.ms=0; failover_probe (bench/failover_probe.cpp)
# produces a steady load, kills one worker with SIGKILL and times until every
# partition has again a record written that was produced after the kill.
# Then the CDC runs: N inserts in transactions of 100 rows (pgbench) streamed from
# PostgreSQL to Kafka by weir's PostgresConnector, then by Debezium's on Kafka Connect;
# cdc_probe (bench/cdc_probe.cpp) reads each topic back for events/s and commit ->
# Kafka latency. Then weir's sink of step 3 over the JSON topic and over the same
# events as Confluent Avro (AvroConverter, the bench's own Schema Registry). Last,
# many FileStreamSink connectors created through the REST API of one process, weir's
# and Kafka Connect's; weir's sink at tasks.max=8 over 8 and over 1,000 partitions;
# and, with --sweep, weir's sink over 200,000 to 20,000,000 records (CPU per record).
#
# It builds weir (release) into build-release/, installs what is missing (apt-get,
# Kafka's and Kafka Connect's jars with Maven into tools/*/lib, Debezium's JDBC sink
# plugin into tools/debezium/plugins), starts its own broker, PostgreSQL server and
# Schema Registry, and always stops them and every child at the end. Every run has
# a timeout.
#
# Environment:
#   WEIR_KAFKA_PORT     the bench broker's port, default 29092 (so it does not meet
#                       the test broker on 9092); the controller uses the next one
#   WEIR_KAFKA_DIR      its state directory, default <repo>/.cache/bench-kafka
#   WEIR_POSTGRES_PORT  the bench PostgreSQL server's port (scripts/postgres.sh),
#                       default 29432 (so it does not meet the test server's)
#   WEIR_POSTGRES_DIR   its state directory, default <repo>/.cache/bench-postgres
#   WEIR_SCHEMA_REGISTRY_PORT  the bench Schema Registry's port (step 11,
#                       scripts/schema-registry.sh), default 58082 (so it does not
#                       meet the test registry on 58081)
#   WEIR_SCHEMA_REGISTRY_DIR   its state directory, default <repo>/.cache/bench-schema-registry
#   WEIR_BENCH_DIR      work directory (sink files, logs), default <repo>/.cache/bench
#   WEIR_BENCH_BUILD    weir's build directory, default build-release
#   WEIR_BENCH_TIMEOUT  seconds allowed to each run, default 600 (the failover
#                       probe: to each of its phases, at most 180)
#   WEIR_BENCH_PORT     the first port tried for REST and cluster listeners on
#                       127.0.0.1, default 28083 (up to 116 above it are tried)
#   WEIR_BENCH_CDC_SCHEMAS  true (default, JsonConverter's own default) or false: the
#                       CDC runs' key and value converters write the schema into
#                       every record or not (with it a change event is ~3 KB, without
#                       ~0.6 KB); the report names it
#   WEIR_BENCH_FAILOVER_PROPS  extra worker properties for both clusters of the
#                       failover runs, "key=value key=value" (default none: both
#                       engines with their defaults); the report names them
#   WEIR_BENCH_MANY_PROPS  extra worker properties for weir's run of step 12,
#                       "key=value ..." (e.g. consumer.queued.max.messages.kbytes=1024,
#                       to try a consumer setting); the report names them
#   WEIR_BENCH_MANY_ENGINES  which engines step 12 runs, default "weir connect"
#   WEIR_BENCH_PARTITIONS_PROPS  extra worker properties for both sides of step 13,
#                       "key=value ..." (e.g. consumer.fetch.max.bytes=4194304); the
#                       report names them
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
sinks=1    # steps 3, 4, 5 and 8
jdbc=1     # step 6
postgres=1 # step 7
timing=1   # step 3b
cdc=1      # the CDC runs (bench_cdc)
pgsource=1 # step 10
avro=1     # step 11
many=1     # step 12
partitions=1 # step 13
sweep=0    # step 14: only when asked (--sweep, --only sweep)
many_connectors=200
many_records=20000
many_partitions=1000
sweep_records="200000 2000000 20000000"
build=1
check=0
rounds=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records | --tasks | --connect-tasks | --out | --connectors | --many-records | --many-partitions | \
      --sweep-records | --rounds)
      [[ $# -ge 2 ]] || weir::die "$1 needs a value" ;;
  esac
  case "$1" in
    --records) records="$2"; shift ;;
    --tasks) tasks_list="$2"; shift ;;
    --connect-tasks) connect_tasks_list="$2"; shift ;;
    --out) out="$2"; shift ;;
    --keep) keep=1 ;;
    --no-failover) failover=0 ;;
    --no-postgres) postgres=0 ;;
    --no-timing) timing=0 ;;
    --no-cdc) cdc=0 ;;
    --no-pgsource) pgsource=0 ;;
    --no-avro) avro=0 ;;
    --no-many) many=0 ;;
    --connectors) many_connectors="$2"; shift ;;
    --many-records) many_records="$2"; shift ;;
    --no-partitions) partitions=0 ;;
    --many-partitions) many_partitions="$2"; shift ;;
    --sweep) sweep=1 ;;
    --no-sweep) sweep=0 ;;
    --sweep-records) sweep_records="$2"; shift ;;
    --only)
      case "${2:-}" in
        failover | jdbc | postgres | timing | cdc | pgsource | avro | many | partitions | sweep)
          for step in sinks jdbc failover postgres timing cdc pgsource avro many partitions sweep; do
            printf -v "$step" 0
          done
          printf -v "$2" 1 ;;
        *) weir::die "--only takes: failover, jdbc, postgres, timing, cdc, pgsource, avro, many, partitions, sweep" ;;
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
[[ "$many_connectors" =~ ^[1-9][0-9]*$ ]] || weir::die "--connectors needs a positive integer"
[[ "$many_records" =~ ^[1-9][0-9]*$ ]] || weir::die "--many-records needs a positive integer"
[[ "$many_partitions" =~ ^[1-9][0-9]*$ ]] || weir::die "--many-partitions needs a positive integer"
read -r -a sweep_sizes <<<"$sweep_records"
((${#sweep_sizes[@]} > 0)) || weir::die "--sweep-records needs at least one size"
for n in "${sweep_sizes[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || weir::die "--sweep-records needs positive integers, not: $n"
done
# The CDC runs: --records when they run alone, else at most the issue's 1,000,000
# inserts (a full run's 2,000,000 would be ~6 GB of Kafka per engine), in whole
# transactions of 100 rows.
if ((cdc && !sinks && !jdbc && !failover && !postgres && !timing && !avro && !many && !partitions && !sweep)); then
  cdc_records="$records"
  ((records % 100 == 0)) || weir::die "the CDC runs insert in transactions of 100 rows: --records needs a multiple of 100"
else
  cdc_records=$(((records < 1000000 ? records : 1000000) / 100 * 100))
  ((cdc_records > 0)) || cdc_records=100
fi
connect_tasks_list="${connect_tasks_list:-$tasks_list}"

export WEIR_KAFKA_PORT="${WEIR_KAFKA_PORT:-29092}"
export WEIR_KAFKA_DIR="${WEIR_KAFKA_DIR:-$WEIR_REPO/.cache/bench-kafka}"
export WEIR_POSTGRES_PORT="${WEIR_POSTGRES_PORT:-29432}"
export WEIR_POSTGRES_DIR="${WEIR_POSTGRES_DIR:-$WEIR_REPO/.cache/bench-postgres}"
export WEIR_SCHEMA_REGISTRY_PORT="${WEIR_SCHEMA_REGISTRY_PORT:-58082}"
export WEIR_SCHEMA_REGISTRY_DIR="${WEIR_SCHEMA_REGISTRY_DIR:-$WEIR_REPO/.cache/bench-schema-registry}"
work="${WEIR_BENCH_DIR:-$WEIR_REPO/.cache/bench}"
builddir="${WEIR_BENCH_BUILD:-build-release}"
[[ "$builddir" == /* ]] || builddir="$WEIR_REPO/$builddir"
run_timeout="${WEIR_BENCH_TIMEOUT:-600}"
bootstrap="127.0.0.1:$WEIR_KAFKA_PORT"
connect_dir="$WEIR_REPO/tools/connect"
connect_lib="$connect_dir/lib"
connect_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$connect_dir/pom.xml")"
debezium_dir="$WEIR_REPO/tools/debezium"
debezium_version="$(sed -n 's:.*<debezium.version>\(.*\)</debezium.version>.*:\1:p' "$debezium_dir/pom.xml")"
kafka_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$WEIR_REPO/tools/kafka/pom.xml")"
# connect-standalone.sh's defaults (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS).
connect_jvm=(-Xms256M -Xmx2G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
  -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
  -XX:MaxInlineLevel=15 -Djava.awt.headless=true)
run_id="$(date +%s)"

# --- cleanup: every child, the broker and the PostgreSQL server, whatever happens ---
broker_started=0
postgres_started=0
registry_started=0
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
  if ((postgres_started)); then
    weir::log "bench: stopping the bench PostgreSQL server"
    "$WEIR_REPO/scripts/postgres.sh" stop || true
  fi
  if ((registry_started)); then
    weir::log "bench: stopping the bench Schema Registry"
    "$WEIR_REPO/scripts/schema-registry.sh" stop || true
  fi
  if ((!keep)) && [[ -d "$work/run" ]]; then
    find "$work/run" -maxdepth 1 \( -name '*.txt' -o -name '*.db*' -o -name '*.csv' \) -delete 2>/dev/null || true
    rm -f "$work"/run/failover-*/n*/sink.txt
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- step 1: packages, weir, the bench tools, the Kafka Connect jars ---------------
if ((build)); then
  weir::log "bench: step 1/9: packages and build ($builddir, release)"
  weir::ensure_packages build java
  weir::build "$builddir" -Dbuildtype=release -Dtests=disabled
else
  weir::log "bench: step 1/9: packages; the build in $builddir as it is (--no-build)"
  weir::ensure_packages java
fi
weir="$builddir/weir"
tools="$builddir/bench"
for t in "$weir" "$tools"/{preload,bare_consumer,bare_producer,bench_run,jdbc_bench,failover_probe,cdc_probe}; do
  [[ -x "$t" ]] || weir::die "missing $t (build it: ninja -C $builddir)"
done
buildtype="$(meson introspect --buildoptions "$builddir" 2>/dev/null |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))' ||
  echo '?')"

# ensure_maven POM DEST WHAT CHECK [unpack] — what POM's dependencies make, in DEST,
# unless DEST/CHECK is there for the current POM (DEST/.pom.sha256 says which): its
# runtime jars (as scripts/kafka.sh does for Kafka), or with `unpack` its archives
# (*.tar.gz) unpacked. A lock on POM keeps two runs from fetching at once.
ensure_maven() {
  local pom="$1" dest="$2" what="$3" check="$4" unpack="${5:-}" want tmp archive
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  maven_fresh() { [[ -e "$dest/$check" && "$(cat "$dest/.pom.sha256" 2>/dev/null)" == "$want" ]]; }
  if maven_fresh; then
    weir::log "bench: $what present"
    return 0
  fi
  exec 8<"$pom"
  flock -w 600 8 || weir::die "could not lock $pom within 600 s"
  if ! maven_fresh; then
    weir::log "bench: fetching $what from Maven Central into ${dest#"$WEIR_REPO"/}"
    tmp="$dest.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp/fetched"
    if ! mvn -B -q -f "$pom" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp/fetched" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g' >&2; then
      rm -rf "$tmp"
      weir::die "mvn could not fetch $what"
    fi
    if [[ "$unpack" == unpack ]]; then
      mkdir "$tmp/out"
      for archive in "$tmp"/fetched/*.tar.gz; do
        tar -xzf "$archive" -C "$tmp/out" || weir::die "could not unpack $archive"
      done
    else
      mv "$tmp/fetched" "$tmp/out"
    fi
    [[ -e "$tmp/out/$check" ]] || weir::die "mvn did not produce $check ($what)"
    printf '%s\n' "$want" >"$tmp/out/.pom.sha256"
    rm -rf "$dest"
    mv "$tmp/out" "$dest"
    rm -rf "$tmp"
  fi
  exec 8<&-
}
# Kafka Connect runs in steps 4, 7, 8, 9 and 12 and the CDC runs only.
if ((sinks || failover || postgres || cdc || many)); then
  ensure_maven "$connect_dir/pom.xml" "$connect_lib" "Kafka Connect $connect_version jars" \
    "connect-runtime-$connect_version.jar"
fi
# Debezium's JDBC sink: its plugin archive unpacked into a plugin.path directory.
if ((postgres)); then
  ensure_maven "$debezium_dir/pom.xml" "$debezium_dir/plugins" "Debezium JDBC sink $debezium_version plugin" \
    debezium-connector-jdbc unpack
fi
# Debezium's PostgreSQL connector (the CDC runs), likewise.
debezium_pg_dir="$WEIR_REPO/tools/debezium-postgres"
debezium_pg_version="$(sed -n 's:.*<debezium.version>\(.*\)</debezium.version>.*:\1:p' "$debezium_pg_dir/pom.xml")"
if ((cdc)); then
  ensure_maven "$debezium_pg_dir/pom.xml" "$debezium_pg_dir/plugins" \
    "Debezium PostgreSQL connector $debezium_pg_version plugin" debezium-connector-postgres unpack
fi

# --- step 2: the broker and the input ---------------------------------------------
weir::log "bench: step 2/9: broker on $bootstrap (state in $WEIR_KAFKA_DIR) and $records records"
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
((!postgres)) || meta debezium "$debezium_version"
((!cdc)) || meta debezium_pg "$debezium_pg_version"
if ((many)); then meta many_connectors "$many_connectors"; meta many_records "$many_records"; fi
((!partitions)) || meta many_partitions "$many_partitions"
((!sweep)) || meta sweep_records "${sweep_sizes[*]}"

"$WEIR_REPO/scripts/kafka.sh" stop >/dev/null 2>&1 || true
broker_started=1
"$WEIR_REPO/scripts/kafka.sh" start >/dev/null
topic="user-events-$run_id"
pg_topic="pg-user-events-$run_id" # the same events with schemas, one user each (step 7)
main_topic=$((sinks || jdbc || failover || timing || avro || partitions)) # the steps that read $topic
if ((main_topic)); then
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$topic" --partitions 8 --records "$records" >&2
fi
if ((sinks)); then "$tools/preload" --file "$work/run/source-input.txt" --records "$records"; fi
if ((postgres)); then
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$pg_topic" --partitions 8 --records "$records" \
    --schemas >&2
  # The same rows as CSV for COPY; preload prints their column list.
  pg_csv="$work/run/pg-rows.csv"
  pg_columns="$("$tools/preload" --csv "$pg_csv" --records "$records")"
fi
# The first consumer group on a fresh broker waits for __consumer_offsets to be
# created and loaded (seconds): pay that here, not in whichever run comes first.
warmup_topic="$topic"
((main_topic)) || warmup_topic="$pg_topic"
if ((!main_topic && !postgres)); then # the CDC, source or sweep runs alone: a topic of one record
  warmup_topic="warmup-$run_id"
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$warmup_topic" --partitions 1 --records 1 >&2
fi
timeout 120 "$tools/bare_consumer" --bootstrap-servers "$bootstrap" --topic "$warmup_topic" \
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
# Values are schemaless JSON unless a KEY=VALUE sets value.converter.schemas.enable,
# or value.converter (then the KEY=VALUEs give all of its settings).
worker_file() {
  local name="$1" f="$work/run/$1.worker.properties" kv
  shift
  {
    printf 'bootstrap.servers=%s\n' "$bootstrap"
    printf 'key.converter=org.apache.kafka.connect.storage.StringConverter\n'
    if [[ " $* " != *" value.converter="* ]]; then
      printf 'value.converter=org.apache.kafka.connect.json.JsonConverter\n'
      [[ " $* " == *" value.converter.schemas.enable="* ]] || printf 'value.converter.schemas.enable=false\n'
    fi
    printf 'consumer.auto.offset.reset=earliest\n'
    printf 'offset.storage.file.filename=%s\n' "$work/run/$name.offsets"
    printf 'listeners=http://127.0.0.1:%s\n' "$(free_port)"
    for kv in "$@"; do printf '%s\n' "$kv"; done
  } >"$f"
  printf '%s\n' "$f"
}

# sink_file NAME TASKS OUTPUT [TOPIC] — the FileStreamSink connector config both
# engines run, over the preloaded topic unless TOPIC is given.
sink_file() {
  local f="$work/run/$1.properties"
  cat >"$f" <<EOF
name=$1
connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector
tasks.max=$2
topics=${4:-$topic}
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
# append its measurements (plus the extra keys) to the results. bench_run also gets
# the options in measure_opts (the PostgreSQL runs': --conninfo, --verify-rows, ...),
# counts to measure_records (default --records), and, when measure_driver names a
# command, that command runs while the subject does (step 12's REST calls): when it
# fails, the subject is stopped.
measure_opts=()
measure_records=""
measure_driver=""
measure() {
  local kind="$1" subject="$2" target="$3" extra=() line log
  shift 3
  while [[ $# -gt 0 && "$1" != -- ]]; do extra+=("$1"); shift; done
  shift
  log="$work/run/$kind-$(printf '%s' "$subject" | tr -c 'A-Za-z0-9' '_').log"
  weir::log "bench: $subject"
  # In the background, so that a signal to this script is handled at once: cleanup
  # kills bench_run, which kills its subject's process group.
  "$tools/bench_run" --records "${measure_records:-$records}" --target "$target" --timeout "$run_timeout" \
    --log "$log" "${measure_opts[@]}" -- "$@" >"$log.result" &
  local bench_pid=$!
  if [[ -n "$measure_driver" ]] && ! $measure_driver; then
    weir::log "bench:   $measure_driver failed: stopping the subject"
    kill "$bench_pid" 2>/dev/null || true
  fi
  wait "$bench_pid" || true
  line="$(<"$log.result")"
  weir::log "bench:   $line"
  printf '%s\t%s\t%s %s\n' "$kind" "$subject" "$line" "${extra[*]}" >>"$results"
  LAST_LINE="$line"
}

connect_cmd=(java "${connect_jvm[@]}" -Dlog4j2.configurationFile="$connect_dir/log4j2.properties"
  -cp "$connect_lib/*" org.apache.kafka.connect.cli.ConnectStandalone)

# ", round R" after a subject's name from its second round on.
round_label() { (($1 > 1)) && printf ', round %s' "$1" || true; }

# alternating A B RUN — `RUN MODE ROUND` for --rounds rounds, MODE A then B, the order
# swapped each round so that neither side always runs on a warmer cache.
alternating() {
  local round first second
  for ((round = 1; round <= rounds; round++)); do
    first="$1" second="$2"
    ((round % 2)) || first="$2" second="$1"
    "$3" "$first" "$round"
    "$3" "$second" "$round"
  done
}

if ((sinks)); then
  for ((round = 1; round <= rounds; round++)); do
    # --- step 3: weir sink, each tasks.max ------------------------------------------
    weir::log "bench: step 3/9: weir standalone FileStreamSink, tasks.max in: $tasks_list$(round_label "$round")"
    for t in $tasks_list; do
      name="bench-weir-file-t$t-r$round-$run_id"
      sink="$work/run/$name.txt"
      measure weir_sink "weir FileStreamSink, tasks.max=$t$(round_label "$round")" "file:$sink" "tasks=$t" -- \
        "$weir" standalone "$(worker_file "$name")" "$(sink_file "$name" "$t" "$sink")"
      rm -f "$sink"
    done

    # --- step 4: Kafka Connect sink, each tasks.max -----------------------------------
    weir::log "bench: step 4/9: Kafka Connect $connect_version standalone FileStreamSink, tasks.max in: $connect_tasks_list$(round_label "$round")"
    for t in $connect_tasks_list; do
      name="bench-connect-file-t$t-r$round-$run_id"
      sink="$work/run/$name.txt"
      measure kc_sink "Kafka Connect FileStreamSink, tasks.max=$t$(round_label "$round")" "file:$sink" "tasks=$t" -- \
        "${connect_cmd[@]}" "$(worker_file "$name")" "$(sink_file "$name" "$t" "$sink")"
      rm -f "$sink"
    done

    # --- step 5: the ceiling ----------------------------------------------------------
    weir::log "bench: step 5/9: bare librdkafka consumer$(round_label "$round")"
    measure ceiling "bare librdkafka consumer$(round_label "$round")" exit -- \
      "$tools/bare_consumer" --bootstrap-servers "$bootstrap" --topic "$topic" \
      --group "connect-bench-bare-r$round-$run_id" --records "$records"
    # The same, taking queued messages one per librdkafka call, as weir's consumer
    # must before librdkafka 2.1.0 (its batch call skips records after a pause from
    # its own thread): what that costs, next to the ceiling.
    measure ceiling_one_per_call "bare librdkafka consumer, one message per call$(round_label "$round")" exit -- \
      "$tools/bare_consumer" --bootstrap-servers "$bootstrap" --topic "$topic" \
      --group "connect-bench-bare1-r$round-$run_id" --records "$records" --one-per-call
  done
fi

# --- step 3b: what measuring costs --------------------------------------------------------
# Issue 22: the per-stage timing (busy, CPU, ns/record: clock reads per batch) must not
# cost throughput. The same weir sink pipeline as step 3 (tasks.max=1: one consumer
# thread, where a per-batch cost shows most) with the timing on and off, the order
# swapped each round so that neither side always runs on a warmer cache.
# timing_run MODE ROUND — one run with metrics.stage.timing.enabled=MODE.
timing_run() {
  local mode="$1" round="$2" name="bench-weir-timing-$1-r$2-$run_id" sink
  sink="$work/run/$name.txt"
  measure "weir_timing_$([[ $mode == true ]] && echo on || echo off)" \
    "weir FileStreamSink, tasks.max=1, metrics.stage.timing.enabled=$mode$(round_label "$round")" \
    "file:$sink" tasks=1 -- \
    "$weir" standalone "$(worker_file "$name" "metrics.stage.timing.enabled=$mode")" "$(sink_file "$name" 1 "$sink")"
  rm -f "$sink"
}
if ((timing)); then
  weir::log "bench: step 3b: weir FileStreamSink with per-stage timing on and off, $rounds round(s)"
  alternating true false timing_run
fi

if ((jdbc)); then
  # --- step 6: JDBC sink on SQLite, and the raw insert rate -----------------------------
  weir::log "bench: step 6/9: weir JDBC sink (SQLite, upsert) and raw SQLite inserts"
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

# pg_start — a fresh bench PostgreSQL server (scripts/postgres.sh, wal_level=logical);
# sets pg_url, pg_user, pg_password, pg_host, pg_port, pg_db, pg_jdbc, pg_super (the
# superuser over the server's socket: local connections are trusted) and postmaster.
pg_start() {
  "$WEIR_REPO/scripts/postgres.sh" stop >/dev/null 2>&1 || true
  postgres_started=1
  pg_url="$("$WEIR_REPO/scripts/postgres.sh" start | tail -n 1)"
  [[ "$pg_url" =~ ^postgresql://([^:@/]+):([^@/]+)@([^:/]+):([0-9]+)/([^/?]+)$ ]] ||
    weir::die "scripts/postgres.sh printed no postgresql://USER:PASSWORD@HOST:PORT/DB URL: $pg_url"
  pg_user="${BASH_REMATCH[1]}" pg_password="${BASH_REMATCH[2]}"
  pg_host="${BASH_REMATCH[3]}" pg_port="${BASH_REMATCH[4]}" pg_db="${BASH_REMATCH[5]}"
  pg_jdbc="jdbc:postgresql://$pg_host:$pg_port/$pg_db"
  pg_super=(env PGOPTIONS=--client-min-messages=warning psql -X -q -v ON_ERROR_STOP=1 -h "$WEIR_POSTGRES_DIR"
    -p "$WEIR_POSTGRES_PORT" -U postgres -d "$pg_db")
  postmaster="$(head -n 1 "$WEIR_POSTGRES_DIR/data/postmaster.pid" 2>/dev/null)" ||
    weir::die "no $WEIR_POSTGRES_DIR/data/postmaster.pid: where is the server's pid?"
  meta postgres "$("${pg_super[@]}" -Atc 'SHOW server_version' | cut -d' ' -f1)"
}

if ((postgres)); then
  # --- step 7: JDBC sinks on PostgreSQL, and COPY ------------------------------------------
  # The same N events with schemas (one user each), upserted by user_id into a table
  # the sink creates: weir for each --tasks, Debezium's JDBC sink on Kafka Connect for
  # each --connect-tasks, then PostgreSQL's own COPY of the same rows into a table of
  # the same shape (the ceiling). Each run starts on an emptied database, checkpointed;
  # each is done when its progress says N (weir: the offsets it stores in the rows'
  # transaction; Kafka Connect: its consumer group's commits, every second here), and
  # counts only if the table then holds exactly N rows of N distinct user_ids.
  weir::log "bench: step 7/9: PostgreSQL: weir's and Debezium's JDBC sinks (upsert), COPY"
  pg_start
  measure_opts=(--conninfo "$pg_url" --verify-rows user_events:user_id --server-pid "$postmaster")
  weir_progress="pg:SELECT coalesce(sum(next_offset), 0) FROM __weir_sink_offsets"
  debezium_worker=(value.converter.schemas.enable=true "plugin.path=$debezium_dir/plugins"
    connector.client.config.override.policy=All offset.flush.interval.ms=1000)

  # pg_fresh — drop the last run's tables and write its dirty pages out (CHECKPOINT),
  # so that no run pays for the one before.
  pg_fresh() {
    "${pg_super[@]}" -c 'DROP TABLE IF EXISTS user_events, __weir_sink_offsets' -c CHECKPOINT
  }
  # COPY over one connection, and over as many as weir's largest tasks.max: the rows
  # split into that many files (whole lines), one psql copying each, all at once.
  # pg-rows-C.list names the files for C connections.
  copy_widths=1
  max_tasks="$(printf '%s\n' $tasks_list | sort -n | tail -n 1)"
  ((max_tasks <= 1)) || copy_widths="1 $max_tasks"
  for c in $copy_widths; do
    if ((c == 1)); then
      printf '%s\n' "$pg_csv" >"$work/run/pg-rows-1.list"
    else
      split -n "l/$c" -d -a 3 --additional-suffix=.csv "$pg_csv" "$work/run/pg-rows-$c-"
      printf '%s\n' "$work/run/pg-rows-$c-"*.csv >"$work/run/pg-rows-$c.list"
    fi
  done

  # keep_shape WHO — after the first run that delivered, an empty copy of the table
  # it created: COPY's target has the same columns, types and primary key.
  copy_shape=""
  keep_shape() {
    [[ -z "$copy_shape" && "$LAST_LINE" == status=ok* ]] || return 0
    "${pg_super[@]}" -c 'CREATE TABLE bench_copy_shape (LIKE user_events INCLUDING ALL)'
    copy_shape="$1"
    meta copy_shape "$1"
  }
  for ((round = 1; round <= rounds; round++)); do
    for t in $tasks_list; do
      name="bench-weir-pg-t$t-r$round-$run_id"
      cat >"$work/run/$name.properties" <<EOF
name=$name
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
tasks.max=$t
topics=$pg_topic
connection.url=$pg_jdbc
connection.user=$pg_user
connection.password=$pg_password
insert.mode=upsert
pk.mode=record_value
pk.fields=user_id
auto.create=true
table.name.format=user_events
consumer.override.max.poll.records=2000
EOF
      pg_fresh
      measure weir_pg "weir JDBC sink, tasks.max=$t$(round_label "$round")" "$weir_progress" "tasks=$t" -- \
        "$weir" standalone "$(worker_file "$name" value.converter.schemas.enable=true)" "$work/run/$name.properties"
      keep_shape "weir's auto.create"
    done
    for t in $connect_tasks_list; do
      name="bench-debezium-t$t-r$round-$run_id"
      cat >"$work/run/$name.properties" <<EOF
name=$name
connector.class=io.debezium.connector.jdbc.JdbcSinkConnector
tasks.max=$t
topics=$pg_topic
connection.url=$pg_jdbc
connection.username=$pg_user
connection.password=$pg_password
insert.mode=upsert
primary.key.mode=record_value
primary.key.fields=user_id
schema.evolution=basic
collection.name.format=user_events
batch.size=2000
consumer.override.max.poll.records=2000
EOF
      pg_fresh
      measure kc_pg "Debezium JDBC sink $debezium_version, tasks.max=$t$(round_label "$round")" \
        "group:$bootstrap:$pg_topic:connect-$name" "tasks=$t" -- \
        "${connect_cmd[@]}" "$(worker_file "$name" "${debezium_worker[@]}")" "$work/run/$name.properties"
      keep_shape "Debezium's schema.evolution=basic"
    done
    if [[ -n "$copy_shape" ]]; then
      for c in $copy_widths; do
        "${pg_super[@]}" -c 'DROP TABLE IF EXISTS user_events, __weir_sink_offsets' \
          -c 'CREATE TABLE user_events (LIKE bench_copy_shape INCLUDING ALL)' \
          -c "ALTER TABLE user_events OWNER TO $pg_user" -c CHECKPOINT
        # xargs fails (123) if any psql does.
        measure pg_copy "PostgreSQL COPY (psql \\copy, $c connection$( ((c == 1)) || echo s))$(round_label "$round")" \
          exit "connections=$c" -- xargs -a "$work/run/pg-rows-$c.list" -P "$c" -I{} \
          psql -X -q -v ON_ERROR_STOP=1 "$pg_url" -c "\\copy user_events ($pg_columns) FROM '{}' WITH (FORMAT csv)"
      done
    else
      weir::log "bench:   COPY not run: no sink created the table to copy into"
      printf 'pg_copy\tPostgreSQL COPY\tstatus=not_run why=no_sink_created_the_table\n' >>"$results"
    fi
  done
  measure_opts=()
  # Free the machine for the steps after this one.
  "$WEIR_REPO/scripts/postgres.sh" stop || true
  postgres_started=0
fi

if ((sinks)); then
  # --- step 8: the source direction -------------------------------------------------------
  weir::log "bench: step 8/9: FileStreamSource, $records lines -> topic"
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
  # The ceiling: a bare librdkafka producer writing the same lines with weir's producer
  # settings (bench/bare_producer.cpp).
  for engine in weir connect bare; do
    name="bench-$engine-source-$run_id"
    src_topic="source-$engine-$run_id"
    "$tools/preload" --bootstrap-servers "$bootstrap" --create-topic "$src_topic" --partitions 8
    if [[ "$engine" == bare ]]; then
      measure source_ceiling "bare librdkafka producer" "topic:$bootstrap:$src_topic" -- \
        "$tools/bare_producer" --bootstrap-servers "$bootstrap" --topic "$src_topic" \
        --file "$work/run/source-input.txt" --records "$records"
    elif [[ "$engine" == weir ]]; then
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

# --- step 9: failover after kill -9 of one of three workers -----------------------------
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
      printf '%s.storage.replication.factor=1\n' config offset status
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
  weir::log "bench: step 9/9: failover after kill -9 of one of three workers"
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

# --- the CDC runs: PostgreSQL -> Kafka, weir's PostgresConnector and Debezium's ----------
# Each run has a fresh table, slot, publication and topic. The engine starts under
# bench_run with the same connector config (snapshot.mode=initial, of an empty table);
# the harness inserts a row into a marker table, cdc_ready, every 0.5 s until a streamed
# one is in Kafka (cdc_probe --wait-streamed), so the workload starts only once the
# connector streams. Then pgbench inserts N rows into cdc_events in transactions of 100
# rows (one INSERT ... SELECT ... generate_series(1, 100) each, 2 clients); bench_run
# stops the engine when the events topic holds N records (its CPU and peak RSS read
# then), and cdc_probe reads the topic back: events/s over the first -> last append
# time, and commit -> Kafka latency (source.ts_ms, the transaction's commit time,
# against the record's LogAppendTime). Stream CPU is the engine's CPU from the
# workload's start to the N-th record.
cdc_pgbench=""
cdc_schemas="${WEIR_BENCH_CDC_SCHEMAS:-true}"
[[ "$cdc_schemas" == true || "$cdc_schemas" == false ]] || weir::die "WEIR_BENCH_CDC_SCHEMAS takes true or false"
cdc_script="$work/run/cdc-insert.sql"

# cdc_setup — the server, pgbench and its script (once, before the first CDC run).
cdc_setup() {
  pg_start
  cdc_pgbench="$(find /usr/lib/postgresql -path '*/bin/pgbench' 2>/dev/null | sort -V | tail -n 1)"
  [[ -x "$cdc_pgbench" ]] || weir::die "no pgbench under /usr/lib/postgresql (Debian's postgresql package ships it)"
  # pgbench_history's shape, with a key: the row pgbench's TPC-B-like script inserts.
  cat >"$cdc_script" <<'SQL'
INSERT INTO cdc_events (aid, bid, tid, delta, mtime, filler)
  SELECT 1 + (random() * 99999)::int, 1 + (random() * 9)::int, 1 + (random() * 99)::int,
         (random() * 10000)::int - 5000, clock_timestamp(), 'cdc-bench' FROM generate_series(1, 100);
SQL
}

# cdc_cpu_s PID — user+sys CPU seconds of a process so far (all its threads).
cdc_cpu_s() {
  awk -v tck="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / tck }' "/proc/$1/stat" \
    2>/dev/null || echo 0
}

# cdc_run ENGINE ROUND — one run of weir (ENGINE weir) or Debezium on Kafka Connect
# (ENGINE debezium); appends its line to the results.
cdc_run() {
  local engine="$1" round="$2" kind subject name prefix topic ready slot worker conn log line probe
  local bench_pid wait_pid ticker subject_pid t0 streaming_s cpu0 cpu_s workload_s status=ok clients=1 cmd=()
  name="bench-cdc-$engine-r$round-$run_id"
  prefix="cdc_${engine}_r${round}_$run_id"
  slot="$prefix"
  topic="$prefix.public.cdc_events" ready="$prefix.public.cdc_ready"
  if [[ "$engine" == weir ]]; then
    kind=weir_cdc subject="weir PostgresConnector$(round_label "$round")"
  else
    kind=kc_cdc subject="Debezium PostgresConnector $debezium_pg_version on Kafka Connect $connect_version$(round_label "$round")"
  fi
  log="$work/run/$kind-r$round.log"
  weir::log "bench: $subject"
  "${pg_super[@]}" -c 'DROP TABLE IF EXISTS cdc_events, cdc_ready' -c CHECKPOINT
  psql -X -q -v ON_ERROR_STOP=1 "$pg_url" \
    -c 'CREATE TABLE cdc_events (id bigserial PRIMARY KEY, aid integer NOT NULL, bid integer NOT NULL,
          tid integer NOT NULL, delta integer NOT NULL, mtime timestamptz NOT NULL, filler char(22))' \
    -c 'CREATE TABLE cdc_ready (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())'
  # One partition each; LogAppendTime: a record's timestamp is when the broker took it.
  for t in "$topic" "$ready"; do
    "$tools/preload" --bootstrap-servers "$bootstrap" --create-topic "$t" --partitions 1 \
      --config message.timestamp.type=LogAppendTime
  done
  worker="$work/run/$name.worker.properties" conn="$work/run/$name.properties"
  {
    printf 'bootstrap.servers=%s\n' "$bootstrap"
    printf 'key.converter=org.apache.kafka.connect.json.JsonConverter\n'
    printf 'value.converter=org.apache.kafka.connect.json.JsonConverter\n'
    printf 'key.converter.schemas.enable=%s\nvalue.converter.schemas.enable=%s\n' "$cdc_schemas" "$cdc_schemas"
    printf 'offset.storage.file.filename=%s\n' "$work/run/$name.offsets"
    printf 'listeners=http://127.0.0.1:%s\n' "$(free_port)"
    [[ "$engine" == weir ]] || printf 'plugin.path=%s\n' "$debezium_pg_dir/plugins"
  } >"$worker"
  cat >"$conn" <<PROPS
name=$name
connector.class=io.debezium.connector.postgresql.PostgresConnector
tasks.max=1
database.hostname=$pg_host
database.port=$pg_port
database.user=$pg_user
database.password=$pg_password
database.dbname=$pg_db
topic.prefix=$prefix
plugin.name=pgoutput
slot.name=$slot
publication.name=$prefix
publication.autocreate.mode=filtered
table.include.list=public.cdc_events,public.cdc_ready
snapshot.mode=initial
slot.drop.on.stop=true
PROPS
  if [[ "$engine" == weir ]]; then cmd=("$weir" standalone "$worker" "$conn"); else
    cmd=("${connect_cmd[@]}" "$worker" "$conn"); fi

  t0="$EPOCHREALTIME"
  "$tools/bench_run" --records "$cdc_records" --target "topic:$bootstrap:$topic" --timeout "$run_timeout" \
    --log "$log" -- "${cmd[@]}" >"$log.result" &
  bench_pid=$!
  (while :; do
    psql -X -q "$pg_url" -c 'INSERT INTO cdc_ready DEFAULT VALUES' >/dev/null 2>&1 || true
    sleep 0.5
  done) &
  ticker=$!
  "$tools/cdc_probe" --bootstrap-servers "$bootstrap" --topic "$ready" --wait-streamed --timeout "$run_timeout" &
  wait_pid=$!
  while kill -0 "$wait_pid" 2>/dev/null && kill -0 "$bench_pid" 2>/dev/null; do sleep 0.2; done
  if kill -0 "$bench_pid" 2>/dev/null && wait "$wait_pid"; then
    streaming_s="$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
  else
    status=not_streaming
    kill "$wait_pid" 2>/dev/null || true
    wait "$wait_pid" 2>/dev/null || true
  fi
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [[ "$status" == ok ]]; then
    subject_pid="$(ps -o pid= --ppid "$bench_pid" | head -n 1 | tr -d ' ')"
    cpu0="$(cdc_cpu_s "$subject_pid")"
    weir::log "bench:   streaming after $streaming_s s; pgbench: $cdc_records rows, 100 a transaction"
    ((cdc_records % 200 == 0)) && clients=2
    workload_s="$EPOCHREALTIME"
    PGPASSWORD="$pg_password" "$cdc_pgbench" -n -h "$pg_host" -p "$pg_port" -U "$pg_user" -f "$cdc_script" \
      -c "$clients" -j "$clients" -t "$((cdc_records / 100 / clients))" "$pg_db" >"$log.pgbench" 2>&1 ||
      { status=workload_failed; weir::log "bench:   pgbench failed: $(tail -n 1 "$log.pgbench")"; }
    workload_s="$(awk -v a="$workload_s" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
  fi
  [[ "$status" == ok ]] || kill "$bench_pid" 2>/dev/null || true
  wait "$bench_pid" || true
  line="$(<"$log.result")"
  if [[ "$status" == ok && "$line" == status=ok* ]]; then
    cpu_s="$(sed -n 's/.* cpu_s=\([0-9.]*\).*/\1/p' <<<"$line")"
    # status=ok unless the topic's events are not N distinct rows' inserts.
    probe="$("$tools/cdc_probe" --bootstrap-servers "$bootstrap" --topic "$topic" --records "$cdc_records" \
      --timeout "$run_timeout")"
    line="${probe%% *} ${line#status=ok } ${probe#* } streaming_s=$streaming_s workload_s=$workload_s"
    line+=" clients=$clients stream_cpu_s=$(awk -v a="$cpu_s" -v b="$cpu0" 'BEGIN { printf "%.2f", a - b }')"
  elif [[ "$status" != ok ]]; then
    line="status=$status ${line#status=* }"
  fi
  weir::log "bench:   $line"
  printf '%s\t%s\t%s\n' "$kind" "$subject" "$line" >>"$results"
  # The engine dropped its slot when stopped (slot.drop.on.stop); one killed did not.
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    "${pg_super[@]}" -Atc "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot' AND active" |
      grep -qx 0 && break
    sleep 1
  done
  "${pg_super[@]}" -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
    WHERE slot_name = '$slot' AND NOT active" -c "DROP PUBLICATION IF EXISTS $prefix" >/dev/null
}

if ((cdc)); then
  weir::log "bench: CDC: $cdc_records inserts (transactions of 100 rows) streamed to Kafka: weir's and Debezium's PostgresConnector"
  cdc_setup
  meta cdc_schemas "$cdc_schemas"
  meta cdc_records "$cdc_records"
  for ((round = 1; round <= rounds; round++)); do
    cdc_run weir "$round"
    cdc_run debezium "$round"
  done
  "$WEIR_REPO/scripts/postgres.sh" stop || true
  postgres_started=0
fi

# --- step 10: the JDBC source on PostgreSQL, and COPY ... TO ------------------------------
# N rows in a table (id bigint primary key, a user event's columns), read by weir's
# JdbcSourceConnector in incrementing mode into a topic of 8 partitions (done when the
# topic's end offsets sum to N), then PostgreSQL's own COPY of the same rows to a
# client (psql, output discarded): the ceiling. Its own server, started and stopped here.
pgsource_runs() {
  local name src_topic round
  pg_start
  weir::log "bench: pgsource: $records rows into bench_source"
  psql -X -q -v ON_ERROR_STOP=1 "$pg_url" <<EOF
DROP TABLE IF EXISTS bench_source;
CREATE TABLE bench_source (id bigint PRIMARY KEY, user_id integer NOT NULL, name text NOT NULL,
  email text NOT NULL, amount numeric(10,2) NOT NULL, active boolean NOT NULL, created timestamptz NOT NULL);
INSERT INTO bench_source SELECT g, g % 100000, 'user-' || g, 'user' || g || '@example.com',
  (g % 1000) + 0.5, g % 2 = 0, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'
  FROM generate_series(1, $records) g;
VACUUM ANALYZE bench_source;
EOF
  for ((round = 1; round <= rounds; round++)); do
    name="bench-weir-pgsource-r$round-$run_id"
    src_topic="$name-bench_source"
    "$tools/preload" --bootstrap-servers "$bootstrap" --create-topic "$src_topic" --partitions 8
    cat >"$work/run/$name.properties" <<EOF
name=$name
connector.class=io.confluent.connect.jdbc.JdbcSourceConnector
tasks.max=1
connection.url=$pg_jdbc
connection.user=$pg_user
connection.password=$pg_password
mode=incrementing
incrementing.column.name=id
table.whitelist=bench_source
topic.prefix=$name-
poll.interval.ms=1000
EOF
    measure weir_pgsource "weir JDBC source (PostgreSQL, incrementing)$(round_label "$round")" \
      "topic:$bootstrap:$src_topic" -- \
      "$weir" standalone "$(worker_file "$name")" "$work/run/$name.properties"
    measure pgsource_copy "PostgreSQL COPY bench_source TO STDOUT (psql)$(round_label "$round")" exit -- \
      sh -c 'psql -X -q -v ON_ERROR_STOP=1 "$1" -c "COPY bench_source TO STDOUT" >/dev/null' sh "$pg_url"
  done
  "$WEIR_REPO/scripts/postgres.sh" stop || true
  postgres_started=0
}
if ((pgsource)); then
  weir::log "bench: step 10: JDBC source on PostgreSQL, $records rows, and COPY ... TO"
  pgsource_runs
fi

# --- step 11: the sink pipeline with Avro values beside JSON values ------------------------
# Issue 27: the sink of step 3 (tasks.max=1: one consumer and converter thread, where a
# converter's per-record cost shows most) over the JSON topic with its JsonConverter,
# and over the same events (same keys, same field values) as Confluent Avro, written
# by preload's own encoder under a schema it registered in the bench's own registry,
# read with the AvroConverter. The order swapped each round, as in step 3b.
# avro_run MODE ROUND — one run over the JSON topic (MODE json) or the Avro one (avro).
avro_run() {
  local mode="$1" round="$2" name="bench-weir-$1-r$2-$run_id" sink
  sink="$work/run/$name.txt"
  if [[ "$mode" == json ]]; then
    measure weir_json_values "weir FileStreamSink, JSON values (JsonConverter), tasks.max=1$(round_label "$round")" \
      "file:$sink" tasks=1 -- \
      "$weir" standalone "$(worker_file "$name")" "$(sink_file "$name" 1 "$sink")"
  else
    measure weir_avro_values "weir FileStreamSink, Avro values (AvroConverter), tasks.max=1$(round_label "$round")" \
      "file:$sink" tasks=1 -- \
      "$weir" standalone "$(worker_file "$name" value.converter=io.confluent.connect.avro.AvroConverter \
        "value.converter.schema.registry.url=$registry_url")" "$(sink_file "$name" 1 "$sink" "$avro_topic")"
  fi
  rm -f "$sink"
}
avro_runs() {
  local registry_url avro_topic="avro-user-events-$run_id"
  "$WEIR_REPO/scripts/schema-registry.sh" stop >/dev/null 2>&1 || true
  registry_started=1
  registry_url="$("$WEIR_REPO/scripts/schema-registry.sh" start | tail -n 1)"
  [[ "$registry_url" == http://* ]] || weir::die "scripts/schema-registry.sh printed no URL: $registry_url"
  meta schema_registry "$registry_url"
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$avro_topic" --partitions 8 --records "$records" \
    --avro "$registry_url" >&2
  alternating json avro avro_run
  "$WEIR_REPO/scripts/schema-registry.sh" stop || true
  registry_started=0
}
if ((avro)); then
  weir::log "bench: step 11: weir FileStreamSink with JSON values and with Avro values, $rounds round(s)"
  avro_runs
fi

# --- step 12: many connectors in one process ----------------------------------------------
# Issue 26: --connectors FileStreamSink connectors (tasks.max=1, each its own file and
# consumer group) over one topic of --many-records events on 4 partitions, created one
# after the other through the REST API of one standalone worker started with no
# connector file; done when every file holds all the records. bench_run marks the
# first POST (--mark), samples the thread count and writes the threads by name.
many_port=""
many_prefix=""
many_name=""
# many_post — waits for the REST API (bounded), creates the mark file, POSTs the
# connectors (one curl, one connection) and fails unless each answered 201.
many_post() {
  local deadline=$((SECONDS + run_timeout)) i args=() codes
  until curl -sf -o /dev/null "http://127.0.0.1:$many_port/"; do
    ((SECONDS < deadline)) || return 1
    [[ -n "$(jobs -pr)" ]] || return 1 # bench_run is gone: the subject did not start
    sleep 0.05
  done
  : >"$work/run/$many_name.mark"
  for ((i = 0; i < many_connectors; i++)); do
    ((i == 0)) || args+=(--next)
    args+=(-s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' --data-binary
      "{\"name\":\"$many_name-$i\",\"config\":{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"tasks.max\":\"1\",\"topics\":\"$many_topic\",\"file\":\"$many_prefix$i.txt\"}}"
      "http://127.0.0.1:$many_port/connectors")
  done
  codes="$(timeout "$run_timeout" curl "${args[@]}" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
  weir::log "bench:   POST /connectors answers (count code): ${codes%,}"
  [[ "$codes" == " $many_connectors 201," ]]
}
# many_run KIND ENGINE — one engine's run; ENGINE is weir or connect.
many_run() {
  local kind="$1" engine="$2" worker names label
  many_name="bench-many-$engine-$run_id"
  many_prefix="$work/run/$many_name-"
  if [[ "$engine" == weir ]]; then
    # shellcheck disable=SC2086 # key=value words
    worker="$(worker_file "$many_name" ${WEIR_BENCH_MANY_PROPS:-})"
  else
    worker="$(worker_file "$many_name")"
  fi
  many_port="$(sed -n 's|^listeners=http://127.0.0.1:||p' "$worker")"
  names="$work/run/$many_name.threads"
  label="$([[ $engine == weir ]] && echo weir || echo "Kafka Connect $connect_version") standalone, $many_connectors FileStreamSink connectors"
  measure_records=$((many_connectors * many_records)) measure_driver=many_post \
    measure_opts=(--mark "$work/run/$many_name.mark" --thread-names "$names")
  if [[ "$engine" == weir ]]; then
    measure "$kind" "$label" "files:$many_connectors:$many_prefix" -- "$weir" standalone "$worker"
  else
    measure "$kind" "$label" "files:$many_connectors:$many_prefix" -- "${connect_cmd[@]}" "$worker"
  fi
  measure_records="" measure_driver="" measure_opts=()
  # The threads by name, NAME:COUNT for the report (the top 10; spaces in Java's names cut).
  if [[ -s "$names" ]]; then
    sed -i "\$s/\$/ thread_names=$(head -n 10 "$names" | awk '{n=$1; $1=""; sub(/^ /, ""); gsub(/ /, "_"); printf "%s%s:%s", (NR>1?",":""), $0, n}')/" "$results"
  fi
  rm -f "$many_prefix"*.txt
}
if ((many)); then
  weir::log "bench: step 12: $many_connectors FileStreamSink connectors through the REST API, weir then Kafka Connect"
  many_topic="many-user-events-$run_id"
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$many_topic" --partitions 4 --records "$many_records" >&2
  meta many_props "${WEIR_BENCH_MANY_PROPS:-}"
  for engine in ${WEIR_BENCH_MANY_ENGINES:-weir connect}; do
    case "$engine" in
      weir) many_run weir_many weir ;;
      connect) many_run kc_many connect ;;
      *) weir::die "WEIR_BENCH_MANY_ENGINES: weir or connect, not $engine" ;;
    esac
  done
fi

# --- step 13: many partitions ------------------------------------------------------------
# Issue 26: the sink of step 3 at tasks.max=8 over a topic of --many-partitions
# partitions holding the same N events, beside the same connector over step 3's topic
# of 8 partitions; the order swapped each round, as in step 3b. Throughput should hold,
# and memory be bounded by the consumer's credit settings, not by the partition count.
partitions_topic="partitions-$many_partitions-$run_id"
# partitions_run MODE ROUND — one run over step 3's 8 partitions (MODE few) or many.
partitions_run() {
  local mode="$1" round="$2" name="bench-weir-partitions-$1-r$2-$run_id" sink p=8 from="$topic"
  sink="$work/run/$name.txt"
  [[ "$mode" == few ]] || p="$many_partitions" from="$partitions_topic"
  # shellcheck disable=SC2086 # key=value words
  measure "weir_partitions_$mode" "weir FileStreamSink, tasks.max=8, $p partitions$(round_label "$round")" \
    "file:$sink" tasks=8 "partitions=$p" -- \
    "$weir" standalone "$(worker_file "$name" ${WEIR_BENCH_PARTITIONS_PROPS:-})" "$(sink_file "$name" 8 "$sink" "$from")"
  rm -f "$sink"
}
if ((partitions)); then
  weir::log "bench: step 13: weir FileStreamSink, tasks.max=8, over 8 and over $many_partitions partitions, $rounds round(s)"
  meta partitions_props "${WEIR_BENCH_PARTITIONS_PROPS:-}"
  "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$partitions_topic" --partitions "$many_partitions" \
    --records "$records" >&2
  alternating few many partitions_run
fi

# --- step 14: CPU per record against the input's size ------------------------------------
# Issue 26: the sink of step 3 at tasks.max=1 (one consumer thread: no rebalance, no
# tasks waiting on each other) over a fresh topic of 8 partitions of each --sweep-records
# size; the report compares their CPU seconds per million records.
sweep_runs() {
  local n round name sink sweep_topic
  for n in "${sweep_sizes[@]}"; do
    sweep_topic="sweep-$n-$run_id"
    "$tools/preload" --bootstrap-servers "$bootstrap" --topic "$sweep_topic" --partitions 8 --records "$n" >&2
    for ((round = 1; round <= rounds; round++)); do
      name="bench-weir-sweep-$n-r$round-$run_id"
      sink="$work/run/$name.txt"
      measure_records="$n"
      measure weir_sweep "weir FileStreamSink, tasks.max=1, $n records$(round_label "$round")" "file:$sink" \
        tasks=1 "n=$n" -- "$weir" standalone "$(worker_file "$name")" "$(sink_file "$name" 1 "$sink" "$sweep_topic")"
      measure_records=""
      rm -f "$sink"
    done
  done
}
if ((sweep)); then
  weir::log "bench: step 14: weir FileStreamSink, tasks.max=1, over ${sweep_sizes[*]} records, $rounds round(s)"
  sweep_runs
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
