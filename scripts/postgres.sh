#!/usr/bin/env bash
# Run a throwaway PostgreSQL server for weir's integration tests and benchmarks:
# Debian's `postgresql` package (installed when missing), a fresh cluster made by
# initdb, listening on 127.0.0.1 only, with a role and a database named weir.
#
#   scripts/postgres.sh start    start the server (its data is wiped first); the last
#                                line of the output is a libpq URL for user weir
#   scripts/postgres.sh stop     stop it (no-op when it is not running)
#   scripts/postgres.sh status   print running/stopped; exit 0 when running, 1 when not
#   scripts/postgres.sh crash    stop it as a crash would (pg_ctl -m immediate: no
#                                checkpoint, connections cut), for fault tests
#   scripts/postgres.sh resume   start it again on its existing data (crash recovery)
#
# Environment:
#   WEIR_POSTGRES_PORT           port, default 55432
#   WEIR_POSTGRES_DIR            state directory, default <repo>/.cache/postgres
#   WEIR_POSTGRES_START_TIMEOUT  seconds to wait for the server to accept, default 60
#
# PostgreSQL refuses to run as root, so initdb and pg_ctl run as the `postgres` system
# user (which the package creates). That user must be able to reach the state
# directory: when the script runs as root it gives the directories above it search
# permission (o+x), which lets others traverse them but not list or read them.
# The server is started with wal_level=logical and room for replication slots, for the
# PostgreSQL CDC source.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${WEIR_POSTGRES_PORT:-55432}"
STATE_DIR="${WEIR_POSTGRES_DIR:-$WEIR_REPO/.cache/postgres}"
START_TIMEOUT="${WEIR_POSTGRES_START_TIMEOUT:-60}"
DATA_DIR="$STATE_DIR/data"
LOG_FILE="$STATE_DIR/server.log"
URL_FILE="$STATE_DIR/url"
# A test server's password: it only ever listens on loopback.
PASSWORD="weir-test"
SERVER_USER=postgres

# The newest installed server's bin directory (Debian keeps them versioned).
pg_bin() {
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)"
  [[ -n "$dir" && -x "$dir/pg_ctl" ]] || return 1
  printf '%s\n' "$dir"
}

ensure_server() {
  pg_bin >/dev/null && return 0
  weir::log "postgres: the server is not installed: installing Debian's postgresql"
  weir::_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql ||
    { weir::_as_root apt-get update -q &&
      weir::_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql; }
  pg_bin >/dev/null || weir::die "postgresql installed but no pg_ctl under /usr/lib/postgresql"
}

# as_server CMD... — run CMD as the server's system user (directly when we are it).
as_server() {
  if [[ "$(id -un)" == "$SERVER_USER" ]]; then
    "$@"
  elif [[ "$(id -u)" -eq 0 ]]; then
    runuser -u "$SERVER_USER" -- "$@"
  else
    # Not root: run the cluster as ourselves (PostgreSQL only refuses root).
    "$@"
  fi
}

# Give the server's user a way to the state directory: search permission on every
# parent up to / (only when we are root and the server runs as another user).
open_path() {
  [[ "$(id -u)" -eq 0 ]] || return 0
  local dir="$STATE_DIR"
  while [[ "$dir" != / ]]; do
    dir="$(dirname "$dir")"
    if ! runuser -u "$SERVER_USER" -- test -x "$dir"; then
      weir::log "postgres: chmod o+x $dir (so user $SERVER_USER can reach $STATE_DIR)"
      chmod o+x "$dir"
    fi
  done
  chown "$SERVER_USER": "$STATE_DIR"
}

pg_ctl_cmd() {
  local bin
  bin="$(pg_bin)" || weir::die "PostgreSQL is not installed"
  as_server "$bin/pg_ctl" -D "$DATA_DIR" "$@"
}

is_running() {
  [[ -f "$DATA_DIR/postmaster.pid" ]] || return 1
  pg_ctl_cmd status >/dev/null 2>&1
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

cmd_start() {
  local bin url
  weir::lock_state_dir "$STATE_DIR"
  if is_running; then
    url="$(cat "$URL_FILE" 2>/dev/null || true)"
    weir::log "postgres: already running ($DATA_DIR)"
    printf '%s\n' "$url"
    return 0
  fi
  ! port_open "$PORT" || weir::die "port $PORT on 127.0.0.1 is taken by another process (set WEIR_POSTGRES_PORT)"
  ensure_server
  bin="$(pg_bin)"
  open_path
  weir::log "postgres: wiping $DATA_DIR and running initdb"
  rm -rf "$DATA_DIR" "$LOG_FILE" "$URL_FILE"
  as_server mkdir -p "$DATA_DIR"
  as_server sh -c "printf '%s\n' '$PASSWORD' >'$STATE_DIR/pwfile'"
  if ! as_server "$bin/initdb" -D "$DATA_DIR" -U "$SERVER_USER" --auth-local=trust --auth-host=scram-sha-256 \
      --pwfile="$STATE_DIR/pwfile" -E UTF8 --locale=C.UTF-8 >"$STATE_DIR/initdb.out" 2>&1; then
    cat "$STATE_DIR/initdb.out" >&2
    weir::die "initdb failed"
  fi
  # Loopback only, the socket in the state directory (never /var/run/postgresql),
  # and what logical replication needs.
  as_server sh -c "cat >>'$DATA_DIR/postgresql.conf'" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$STATE_DIR'
wal_level = logical
max_replication_slots = 16
max_wal_senders = 16
max_connections = 200
fsync = on
EOF
  weir::log "postgres: starting on 127.0.0.1:$PORT"
  # 9>&-: the server must not inherit the state directory's lock.
  if ! pg_ctl_cmd -l "$LOG_FILE" -w -t "$START_TIMEOUT" start >/dev/null 9>&-; then
    tail -n 40 "$LOG_FILE" >&2 || true
    weir::die "the PostgreSQL server did not start (log: $LOG_FILE)"
  fi
  as_server "$bin/psql" -X -q -h "$STATE_DIR" -p "$PORT" -U "$SERVER_USER" -d postgres -v ON_ERROR_STOP=1 <<EOF
CREATE ROLE weir LOGIN PASSWORD '$PASSWORD' REPLICATION;
CREATE DATABASE weir OWNER weir;
EOF
  url="postgresql://weir:$PASSWORD@127.0.0.1:$PORT/weir"
  printf '%s\n' "$url" >"$URL_FILE"
  weir::log "postgres: ready (log $LOG_FILE)"
  printf '%s\n' "$url"
}

cmd_stop() {
  weir::lock_state_dir "$STATE_DIR"
  if ! is_running; then
    weir::log "postgres: not running"
    return 0
  fi
  weir::log "postgres: stopping the server"
  pg_ctl_cmd -m fast -w -t 60 stop >/dev/null
  weir::log "postgres: stopped"
}

cmd_crash() {
  weir::lock_state_dir "$STATE_DIR"
  is_running || weir::die "postgres: not running"
  weir::log "postgres: immediate stop (a crash: no checkpoint)"
  pg_ctl_cmd -m immediate -w -t 60 stop >/dev/null
}

cmd_resume() {
  weir::lock_state_dir "$STATE_DIR"
  if is_running; then
    weir::log "postgres: already running"
    return 0
  fi
  [[ -f "$DATA_DIR/PG_VERSION" ]] || weir::die "postgres: no cluster in $DATA_DIR (run start first)"
  weir::log "postgres: starting on its existing data"
  if ! pg_ctl_cmd -l "$LOG_FILE" -w -t "$START_TIMEOUT" start >/dev/null 9>&-; then
    tail -n 40 "$LOG_FILE" >&2 || true
    weir::die "the PostgreSQL server did not start (log: $LOG_FILE)"
  fi
  weir::log "postgres: ready"
}

cmd_status() {
  if is_running; then
    printf 'running on 127.0.0.1:%s (%s)\n' "$PORT" "$DATA_DIR"
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
  crash) cmd_crash ;;
  resume) cmd_resume ;;
  -h | --help | help) weir::usage ;;
  *) weir::usage ;;
esac
