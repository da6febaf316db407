#!/usr/bin/env bash
# Run a real Apache Kafka broker for weir's integration tests and benchmarks:
# KRaft mode, one process that is broker and controller, loopback only, started
# from the Maven Central jars that tools/kafka/pom.xml resolves into tools/kafka/lib.
#
#   scripts/kafka.sh start    start the broker (its data is wiped first); the last
#                             line of the output is the bootstrap address
#   scripts/kafka.sh stop     stop it (no-op when it is not running)
#   scripts/kafka.sh status   print running/stopped; exit 0 when running, 1 when not
#   scripts/kafka.sh crash    kill the broker as a crash would (SIGKILL: no clean
#                             shutdown), keeping its data, for fault tests
#   scripts/kafka.sh restart  start it again on its existing data, cluster id and
#                             ports (log recovery after a crash); prints the address
#   scripts/kafka.sh tool CLASS [ARGS...]
#                             run a Kafka command-line tool with the broker's jars,
#                             e.g. `tool TopicCommand --bootstrap-server 127.0.0.1:9092
#                             --list` (a CLASS without a package is taken from
#                             org.apache.kafka.tools)
#
# Environment:
#   WEIR_KAFKA_PORT             broker (PLAINTEXT) port, default 9092
#   WEIR_KAFKA_CONTROLLER_PORT  controller port, default WEIR_KAFKA_PORT + 1
#   WEIR_KAFKA_DIR              state directory, default <repo>/.cache/kafka
#   WEIR_KAFKA_PROXY_PORT       when set, a second listener (PROXIED, on
#                               WEIR_KAFKA_PROXIED_PORT, default WEIR_KAFKA_PORT + 2)
#                               advertises 127.0.0.1:WEIR_KAFKA_PROXY_PORT, where a TCP
#                               proxy (Toxiproxy) forwards to it: a client bootstrapping
#                               there keeps every connection on the proxy, while the
#                               PLAINTEXT listener (and the broker's own traffic) stays
#                               direct. Fault tests cut or slow the proxy.
#   WEIR_KAFKA_HEAP_OPTS        broker heap, default "-Xms256m -Xmx512m"
#   WEIR_KAFKA_START_TIMEOUT    seconds to wait for the broker to answer, default 60
#   WEIR_KAFKA_STOP_TIMEOUT     seconds to wait after SIGTERM before SIGKILL, default 30
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KAFKA_TOOLS_DIR="$WEIR_REPO/tools/kafka"
KAFKA_LIB="$KAFKA_TOOLS_DIR/lib"
KAFKA_POM="$KAFKA_TOOLS_DIR/pom.xml"
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM")"
[[ -n "$KAFKA_VERSION" ]] || weir::die "no <kafka.version> in $KAFKA_POM"
KAFKA_JAR="kafka_2.13-$KAFKA_VERSION.jar"

PORT="${WEIR_KAFKA_PORT:-9092}"
CONTROLLER_PORT="${WEIR_KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
PROXY_PORT="${WEIR_KAFKA_PROXY_PORT:-}"
PROXIED_PORT="${WEIR_KAFKA_PROXIED_PORT:-$((PORT + 2))}"
STATE_DIR="${WEIR_KAFKA_DIR:-$WEIR_REPO/.cache/kafka}"
HEAP_OPTS="${WEIR_KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
START_TIMEOUT="${WEIR_KAFKA_START_TIMEOUT:-60}"
STOP_TIMEOUT="${WEIR_KAFKA_STOP_TIMEOUT:-30}"

PID_FILE="$STATE_DIR/kafka.pid"
ADDRESS_FILE="$STATE_DIR/bootstrap"
CONFIG_FILE="$STATE_DIR/server.properties"
CLUSTER_ID_FILE="$STATE_DIR/cluster.id"
DATA_DIR="$STATE_DIR/data"
LOG_DIR="$STATE_DIR/logs"
CONSOLE_LOG="$STATE_DIR/kafka.out"

# Print the broker's pid when it is running: our kafka.Kafka process.
running_pid() { weir::running_pid "$PID_FILE" "kafka.Kafka $CONFIG_FILE"; }

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# ensure_jars [quiet] — resolve the broker jars with Maven, unless tools/kafka/lib
# already holds them for the current pom.xml. Downloads go to a temporary directory that is renamed at the
# end, so an interrupted download is never mistaken for a complete one.
ensure_jars() {
  local quiet="${1:-}" stamp want tmp
  stamp="$KAFKA_LIB/.pom.sha256"
  want="$(sha256sum "$KAFKA_POM" | cut -d' ' -f1)"
  if [[ -f "$KAFKA_LIB/$KAFKA_JAR" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
    [[ -n "$quiet" ]] || weir::log "kafka: jars present in ${KAFKA_LIB#"$WEIR_REPO"/} (Kafka $KAFKA_VERSION)"
    return 0
  fi
  # One resolver at a time (brokers with different WEIR_KAFKA_DIRs share the jars):
  # lock the pom itself, then look again in case another process just finished.
  exec 8<"$KAFKA_POM"
  flock -w 600 8 || weir::die "could not lock $KAFKA_POM within 600 s"
  if [[ -f "$KAFKA_LIB/$KAFKA_JAR" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
    exec 8<&-
    return 0
  fi
  weir::ensure_packages java
  weir::log "kafka: resolving Kafka $KAFKA_VERSION jars from Maven Central into ${KAFKA_LIB#"$WEIR_REPO"/}"
  tmp="$KAFKA_LIB.tmp.$$"
  rm -rf "$tmp"
  # Debian's Maven 3.8.7 prints stray colour resets even in batch mode: strip them,
  # and keep stdout for the bootstrap address alone.
  if ! mvn -B -q -f "$KAFKA_POM" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1 |
      sed -u 's/\x1b\[[0-9;]*m//g' >&2; then
    rm -rf "$tmp"
    weir::die "mvn could not resolve the Kafka jars (see the Maven output above)"
  fi
  [[ -f "$tmp/$KAFKA_JAR" ]] || { rm -rf "$tmp"; weir::die "mvn did not produce $KAFKA_JAR"; }
  printf '%s\n' "$want" >"$tmp/.pom.sha256"
  rm -rf "$KAFKA_LIB"
  mv "$tmp" "$KAFKA_LIB"
  exec 8<&-
  weir::log "kafka: $(find "$KAFKA_LIB" -name '*.jar' | wc -l) jars in ${KAFKA_LIB#"$WEIR_REPO"/}"
}

# tool_command CLASS [ARGS...] — set TOOL_CMD to the command line that runs a Kafka
# command-line tool (warnings and errors go to stderr).
tool_command() {
  local class="$1"
  shift
  [[ "$class" == *.* ]] || class="org.apache.kafka.tools.$class"
  # The tools are short-lived: a small heap and the C1 compiler start fastest.
  TOOL_CMD=(java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
    -Dlog4j2.configurationFile="$KAFKA_TOOLS_DIR/tools-log4j2.properties"
    -cp "$KAFKA_LIB/*" "$class" "$@")
}

run_tool() {
  tool_command "$@"
  "${TOOL_CMD[@]}"
}

print_broker_logs() {
  local f
  for f in "$LOG_DIR/server.log" "$CONSOLE_LOG"; do
    if [[ -s "$f" ]]; then
      printf -- '--- last lines of %s ---\n' "$f" >&2
      tail -n 40 "$f" >&2
    fi
  done
}

# The listeners line of server.properties for the current ports (restart compares it).
listeners_line() {
  local line="listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT"
  [[ -z "$PROXY_PORT" ]] || line+=",PROXIED://127.0.0.1:$PROXIED_PORT"
  printf '%s\n' "$line"
}

write_config() {
  local listeners advertised protocols
  listeners="$(listeners_line)"
  advertised="PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT"
  protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [[ -n "$PROXY_PORT" ]]; then
    advertised+=",PROXIED://127.0.0.1:$PROXY_PORT"
    protocols+=",PROXIED:PLAINTEXT"
  fi
  sed -e "s|@PORT@|$PORT|g" -e "s|@CONTROLLER_PORT@|$CONTROLLER_PORT|g" \
    -e "s|@LOG_DIR@|$DATA_DIR|g" -e "s|^listeners=.*|$listeners|" \
    -e "s|^advertised.listeners=.*|advertised.listeners=$advertised|" \
    -e "s|^listener.security.protocol.map=.*|listener.security.protocol.map=$protocols|" \
    "$KAFKA_TOOLS_DIR/server.properties.in" >"$CONFIG_FILE"
}

format_storage() {
  local cluster_id
  if [[ ! -s "$CLUSTER_ID_FILE" ]]; then
    weir::log "kafka: new state directory: generating a cluster id"
    run_tool kafka.tools.StorageTool random-uuid | tail -n 1 >"$CLUSTER_ID_FILE"
  fi
  cluster_id="$(<"$CLUSTER_ID_FILE")"
  weir::log "kafka: wiping ${DATA_DIR} and formatting it (cluster id $cluster_id)"
  rm -rf "$DATA_DIR" "$LOG_DIR"
  mkdir -p "$DATA_DIR" "$LOG_DIR"
  if ! run_tool kafka.tools.StorageTool format --standalone -t "$cluster_id" \
      -c "$CONFIG_FILE" >"$STATE_DIR/format.out" 2>&1; then
    cat "$STATE_DIR/format.out" >&2
    weir::die "formatting the Kafka log directory failed"
  fi
}

# Wait until the broker answers a metadata request (or dies, or time runs out).
wait_until_ready() {
  local pid="$1" address="$2" deadline=$((SECONDS + START_TIMEOUT))
  weir::log "kafka: waiting up to ${START_TIMEOUT}s for the broker to answer a metadata request on $address"
  tool_command TopicCommand --bootstrap-server "$address" --list
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      print_broker_logs
      rm -f "$PID_FILE"
      weir::die "the Kafka broker exited during startup"
    fi
    if port_open "$PORT" && timeout 30 "${TOOL_CMD[@]}" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.5
  done
  print_broker_logs
  weir::log "kafka: giving up: stopping the broker (pid $pid)"
  kill_broker "$pid"
  rm -f "$PID_FILE"
  weir::die "the Kafka broker did not answer on $address within ${START_TIMEOUT}s (logs: $STATE_DIR)"
}

# Refuse to start on a port another process holds (the broker would fail late and
# obscurely, or a client would talk to the wrong server).
require_free_ports() {
  local p
  for p in "$PORT" "$CONTROLLER_PORT" ${PROXY_PORT:+"$PROXIED_PORT"}; do
    ! port_open "$p" ||
      weir::die "port $p on 127.0.0.1 is taken by another process (set WEIR_KAFKA_PORT)"
  done
}

# launch_broker — start kafka.Kafka on $CONFIG_FILE as it is, wait until it answers,
# record its pid and address, print the address. The caller holds the state lock.
launch_broker() {
  local pid address="127.0.0.1:$PORT"
  weir::log "kafka: starting Kafka $KAFKA_VERSION (KRaft, broker+controller) on $address, controller port $CONTROLLER_PORT"
  # setsid: the broker gets its own session, so a Ctrl-C in the calling terminal does
  # not kill it half-way; whoever started it stops it with `kafka.sh stop`.
  # shellcheck disable=SC2086 # HEAP_OPTS is a list of JVM options
  setsid java $HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" \
    -Dlog4j2.configurationFile="$KAFKA_TOOLS_DIR/log4j2.properties" \
    -cp "$KAFKA_LIB/*" kafka.Kafka "$CONFIG_FILE" \
    </dev/null >"$CONSOLE_LOG" 2>&1 8<&- 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"
  wait_until_ready "$pid" "$address"
  printf '%s\n' "$address" >"$ADDRESS_FILE"
  weir::log "kafka: ready (pid $pid, logs in $STATE_DIR)"
  printf '%s\n' "$address"
}

# Log and print the running broker's address (start and restart are no-ops then).
report_running() {
  local pid="$1" address
  address="$(cat "$ADDRESS_FILE" 2>/dev/null || printf '127.0.0.1:%s' "$PORT")"
  weir::log "kafka: already running (pid $pid) on $address"
  [[ "$address" == "127.0.0.1:$PORT" ]] ||
    weir::log "kafka: note: WEIR_KAFKA_PORT=$PORT differs; stop it first to change ports"
  printf '%s\n' "$address"
}

cmd_start() {
  local pid
  weir::lock_state_dir "$STATE_DIR"
  if pid="$(running_pid)"; then
    report_running "$pid"
    return 0
  fi
  rm -f "$PID_FILE" "$ADDRESS_FILE"
  require_free_ports
  ensure_jars
  weir::log "kafka: state directory $STATE_DIR"
  write_config
  format_storage
  launch_broker
}

# The broker's data and configuration stay as they are: its listeners (in the stored
# server.properties) and the KRaft quorum (in the data) name the ports it was formatted
# with, so a restart on other ports is refused rather than started half-broken.
cmd_restart() {
  local pid
  weir::lock_state_dir "$STATE_DIR"
  if pid="$(running_pid)"; then
    report_running "$pid"
    return 0
  fi
  [[ -f "$DATA_DIR/meta.properties" && -f "$CONFIG_FILE" ]] ||
    weir::die "kafka: no broker data in $DATA_DIR to restart on (run start first)"
  grep -qxF "$(listeners_line)" "$CONFIG_FILE" ||
    weir::die "kafka: $CONFIG_FILE was written for other ports than $(listeners_line) (set WEIR_KAFKA_PORT and WEIR_KAFKA_PROXY_PORT as at start)"
  rm -f "$PID_FILE" "$ADDRESS_FILE"
  require_free_ports
  ensure_jars quiet
  weir::log "kafka: restarting on the existing data in $DATA_DIR (cluster id $(<"$CLUSTER_ID_FILE"))"
  launch_broker
}

# kill_broker PID — SIGTERM (a clean shutdown), then SIGKILL after STOP_TIMEOUT.
kill_broker() {
  local pid="$1" deadline=$((SECONDS + STOP_TIMEOUT))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    weir::log "kafka: still running after ${STOP_TIMEOUT}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}

cmd_stop() {
  local pid
  weir::lock_state_dir "$STATE_DIR"
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE" "$ADDRESS_FILE"
    weir::log "kafka: not running"
    return 0
  fi
  weir::log "kafka: stopping the broker (pid $pid)"
  kill_broker "$pid"
  rm -f "$PID_FILE" "$ADDRESS_FILE"
  weir::log "kafka: stopped"
}

# SIGKILL, as a crash (or the OOM killer) would: no controlled shutdown, no flush;
# the data stays for `restart`, which recovers the logs.
cmd_crash() {
  local pid
  weir::lock_state_dir "$STATE_DIR"
  pid="$(running_pid)" || weir::die "kafka: not running"
  weir::log "kafka: SIGKILL to the broker (pid $pid), keeping its data"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  rm -f "$PID_FILE" "$ADDRESS_FILE"
  weir::log "kafka: killed"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    printf 'running (pid %s) on %s\n' "$pid" "$(cat "$ADDRESS_FILE" 2>/dev/null || echo "127.0.0.1:$PORT")"
    return 0
  fi
  printf 'stopped\n'
  return 1
}

cmd_tool() {
  [[ $# -ge 1 ]] || weir::usage
  ensure_jars quiet
  run_tool "$@"
}

[[ $# -ge 1 ]] || weir::usage
command="$1"
shift
case "$command" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  crash) cmd_crash ;;
  restart) cmd_restart ;;
  tool) cmd_tool "$@" ;;
  -h | --help | help) weir::usage ;;
  *) weir::usage ;;
esac
