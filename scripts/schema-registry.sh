#!/usr/bin/env bash
# Run a Confluent-compatible Schema Registry for weir's integration tests: Apicurio
# Registry (its Confluent API under /apis/ccompat/v7), built once with Maven from
# tools/schema-registry/pom.xml into tools/schema-registry/target/, one JVM listening
# on 127.0.0.1 only, its storage in memory (every start begins empty), the global
# compatibility set to BACKWARD as Confluent's registry defaults to.
#
#   scripts/schema-registry.sh start    build it when target/ has no jar yet, start it;
#                                       the last line of the output is its URL, under
#                                       which /subjects, /schemas/ids/N ... answer
#                                       (http://127.0.0.1:PORT/apis/ccompat/v7)
#   scripts/schema-registry.sh stop     stop it (no-op when it is not running)
#   scripts/schema-registry.sh status   print running/stopped; exit 0 when running, 1 when not
#
# Environment:
#   WEIR_SCHEMA_REGISTRY_PORT           HTTP port, default 58081 (not Confluent's 8081,
#                                       so that a developer's own registry is left alone)
#   WEIR_SCHEMA_REGISTRY_DIR            state directory, default <repo>/.cache/schema-registry
#   WEIR_SCHEMA_REGISTRY_HEAP_OPTS      heap, default "-Xms64m -Xmx256m"
#   WEIR_SCHEMA_REGISTRY_START_TIMEOUT  seconds to wait for the API to answer, default 60
#   WEIR_SCHEMA_REGISTRY_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL, default 30
#
# Where it differs from Confluent's registry: a 409 (incompatible schema) carries
# error_code 0 rather than 409, and there is no /mode.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REGISTRY_TOOLS_DIR="$WEIR_REPO/tools/schema-registry"
REGISTRY_POM="$REGISTRY_TOOLS_DIR/pom.xml"
REGISTRY_TARGET="$REGISTRY_TOOLS_DIR/target"
# Quarkus's legacy-jar layout (what the app asks for): the runner finds its
# dependencies in the lib/ beside it.
REGISTRY_JAR="$REGISTRY_TARGET/weir-schema-registry-0-runner.jar"

PORT="${WEIR_SCHEMA_REGISTRY_PORT:-58081}"
STATE_DIR="${WEIR_SCHEMA_REGISTRY_DIR:-$WEIR_REPO/.cache/schema-registry}"
HEAP_OPTS="${WEIR_SCHEMA_REGISTRY_HEAP_OPTS:--Xms64m -Xmx256m}"
START_TIMEOUT="${WEIR_SCHEMA_REGISTRY_START_TIMEOUT:-60}"
STOP_TIMEOUT="${WEIR_SCHEMA_REGISTRY_STOP_TIMEOUT:-30}"

PID_FILE="$STATE_DIR/registry.pid"
URL_FILE="$STATE_DIR/url"
CONSOLE_LOG="$STATE_DIR/registry.out"

# Print the registry's pid when it is running: ours, of this state directory.
running_pid() { weir::running_pid "$PID_FILE" "-Dweir.schema-registry.dir=$STATE_DIR -jar $REGISTRY_JAR"; }

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A hash of everything the build reads: a change to any of them rebuilds.
build_inputs_hash() {
  cat "$REGISTRY_POM" "$REGISTRY_TOOLS_DIR/settings.xml" \
    "$REGISTRY_TOOLS_DIR/src/main/resources/application.properties" | sha256sum | cut -d' ' -f1
}

# ensure_built — package the registry with Maven, unless target/ already holds the
# jar built from the current inputs. The stamp is written last, so an interrupted
# build is never taken for a complete one.
ensure_built() {
  local stamp="$REGISTRY_TARGET/.inputs.sha256" want
  want="$(build_inputs_hash)"
  if [[ -f "$REGISTRY_JAR" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
    return 0
  fi
  # One build at a time (registries with different state directories share target/):
  # lock the pom itself, then look again in case another process just finished.
  exec 8<"$REGISTRY_POM"
  flock -w 600 8 || weir::die "could not lock $REGISTRY_POM within 600 s"
  if [[ -f "$REGISTRY_JAR" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
    exec 8<&-
    return 0
  fi
  weir::ensure_packages java
  weir::log "schema-registry: building it with Maven into ${REGISTRY_TARGET#"$WEIR_REPO"/} (first use: downloads from Maven Central)"
  rm -rf "$REGISTRY_TARGET"
  # Debian's Maven 3.8.7 prints stray colour resets even in batch mode: strip them,
  # and keep stdout for the URL alone.
  if ! mvn -B -q -s "$REGISTRY_TOOLS_DIR/settings.xml" -f "$REGISTRY_POM" package 2>&1 |
      sed -u 's/\x1b\[[0-9;]*m//g' >&2; then
    weir::die "mvn could not build the schema registry (see the Maven output above)"
  fi
  [[ -f "$REGISTRY_JAR" ]] || weir::die "mvn did not produce $REGISTRY_JAR"
  printf '%s\n' "$want" >"$stamp"
  exec 8<&-
  weir::log "schema-registry: built ${REGISTRY_JAR#"$WEIR_REPO"/}"
}

print_log_tail() {
  if [[ -s "$CONSOLE_LOG" ]]; then
    printf -- '--- last lines of %s ---\n' "$CONSOLE_LOG" >&2
    tail -n 40 "$CONSOLE_LOG" >&2
  fi
}

# kill_registry PID — SIGTERM (a clean shutdown), then SIGKILL after STOP_TIMEOUT.
kill_registry() {
  local pid="$1" deadline=$((SECONDS + STOP_TIMEOUT))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    weir::log "schema-registry: still running after ${STOP_TIMEOUT}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}

# Give up on a registry that did not come up: show why, stop it, fail.
fail_start() {
  local pid="$1" reason="$2"
  print_log_tail
  if kill -0 "$pid" 2>/dev/null; then
    weir::log "schema-registry: giving up: stopping it (pid $pid)"
    kill_registry "$pid"
  fi
  rm -f "$PID_FILE"
  weir::die "$reason (log: $CONSOLE_LOG)"
}

# Wait until the Confluent API answers (or the JVM dies, or time runs out).
wait_until_ready() {
  local pid="$1" url="$2" deadline=$((SECONDS + START_TIMEOUT))
  weir::log "schema-registry: waiting up to ${START_TIMEOUT}s for $url/subjects to answer"
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || fail_start "$pid" "the schema registry exited during startup"
    if curl -fsS --max-time 5 -o /dev/null "$url/subjects" 2>/dev/null; then
      return 0
    fi
    sleep 0.3
  done
  fail_start "$pid" "the schema registry did not answer on $url within ${START_TIMEOUT}s"
}

# Apicurio's global compatibility defaults to NONE; Confluent's is BACKWARD.
set_backward_compatibility() {
  local pid="$1" url="$2" answer
  answer="$(curl -fsS --max-time 10 -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
    --data '{"compatibility":"BACKWARD"}' "$url/config" 2>&1)" ||
    fail_start "$pid" "PUT $url/config failed: $answer"
  answer="$(curl -fsS --max-time 10 "$url/config" 2>&1)" || fail_start "$pid" "GET $url/config failed: $answer"
  [[ "$answer" == *'"BACKWARD"'* ]] ||
    fail_start "$pid" "the global compatibility is not BACKWARD after setting it: $answer"
}

cmd_start() {
  local pid url="http://127.0.0.1:$PORT/apis/ccompat/v7"
  weir::lock_state_dir "$STATE_DIR"
  if pid="$(running_pid)"; then
    url="$(cat "$URL_FILE" 2>/dev/null || printf '%s' "$url")"
    weir::log "schema-registry: already running (pid $pid) on $url"
    printf '%s\n' "$url"
    return 0
  fi
  rm -f "$PID_FILE" "$URL_FILE"
  command -v curl >/dev/null 2>&1 || weir::die "schema-registry: curl is needed (apt-get install curl)"
  ! port_open "$PORT" ||
    weir::die "port $PORT on 127.0.0.1 is taken by another process (set WEIR_SCHEMA_REGISTRY_PORT)"
  ensure_built
  weir::log "schema-registry: starting Apicurio Registry on 127.0.0.1:$PORT (storage in memory, state in $STATE_DIR)"
  # setsid: its own session, so a Ctrl-C in the calling terminal does not kill it
  # half-way; whoever started it stops it with `schema-registry.sh stop`. The
  # -Dweir.schema-registry.dir marker lets running_pid recognise it. The transaction
  # manager (Narayana) takes a UUID as its process id rather than binding a spare
  # TCP port for one, so the registry's port is the only one it listens on.
  # shellcheck disable=SC2086 # HEAP_OPTS is a list of JVM options
  setsid java $HEAP_OPTS -XX:+UseSerialGC -Djava.awt.headless=true \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" \
    -DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId \
    -Dweir.schema-registry.dir="$STATE_DIR" -jar "$REGISTRY_JAR" \
    </dev/null >"$CONSOLE_LOG" 2>&1 8<&- 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"
  wait_until_ready "$pid" "$url"
  set_backward_compatibility "$pid" "$url"
  printf '%s\n' "$url" >"$URL_FILE"
  weir::log "schema-registry: ready (pid $pid, global compatibility BACKWARD, log $CONSOLE_LOG)"
  printf '%s\n' "$url"
}

cmd_stop() {
  local pid
  weir::lock_state_dir "$STATE_DIR"
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE" "$URL_FILE"
    weir::log "schema-registry: not running"
    return 0
  fi
  weir::log "schema-registry: stopping it (pid $pid)"
  kill_registry "$pid"
  rm -f "$PID_FILE" "$URL_FILE"
  weir::log "schema-registry: stopped"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    printf 'running (pid %s) on %s\n' "$pid" \
      "$(cat "$URL_FILE" 2>/dev/null || echo "http://127.0.0.1:$PORT/apis/ccompat/v7")"
    return 0
  fi
  printf 'stopped\n'
  return 1
}

[[ $# -ge 1 ]] || weir::usage
command="$1"
shift
case "$command" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h | --help | help) weir::usage ;;
  *) weir::usage ;;
esac
