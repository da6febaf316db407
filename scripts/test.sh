#!/usr/bin/env bash
# Build weir and run every test suite ('unit' and 'integration') against a real,
# freshly started Apache Kafka broker, PostgreSQL server (scripts/postgres.sh, its
# URL in WEIR_POSTGRES_URL) and Schema Registry (scripts/schema-registry.sh, its URL
# in WEIR_SCHEMA_REGISTRY_URL), then a smoke run of every fuzz harness (bench/fuzz.sh
# --smoke: a few seconds each, from the committed seeds; a crash fails the run), then
# a small smoke run of the benchmark harness (bench/run.sh, 10,000 records, failover
# and PostgreSQL included, the many-connectors step with 5 connectors of 1,000
# records, on its own broker and PostgreSQL server), then stop both
# brokers, both PostgreSQL servers and the registry (always, even on failure).
# Toxiproxy, the TCP proxy of the network fault suites, is built once with `go install`
# into .cache/; the Python packages the tests import (fastavro) come from PyPI.
#
#   scripts/test.sh                    build into build/ with -Dwerror=true, run the tests
#   scripts/test.sh --sanitize         the same with AddressSanitizer and UBSan, in build-asan/
#   scripts/test.sh --no-fuzz          skip the fuzz smoke run (and its clang build, build-fuzz/)
#   scripts/test.sh --no-bench         skip the bench smoke run
#   scripts/test.sh [...] -- ARGS...   pass ARGS to `meson test` (e.g. -- --suite unit)
#
# The smoke run checks that every subject of the harness delivers (bench/run.sh
# --check), never a time. Its report goes to .cache/bench-smoke/latest.md; its broker
# listens on WEIR_BENCH_KAFKA_PORT (default 29092, the controller on the next port),
# its PostgreSQL server on WEIR_BENCH_POSTGRES_PORT (default 29432), its Schema
# Registry (the Avro pair, ~15 s) on WEIR_BENCH_SCHEMA_REGISTRY_PORT (default 58082).
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

sanitize=0
fuzz=1
bench=1
meson_test_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --no-fuzz) fuzz=0 ;;
    --no-bench) bench=0 ;;
    --) shift; meson_test_args=("$@"); break ;;
    -h | --help) usage ;;
    *) printf 'unknown argument: %s\n' "$1" >&2; usage ;;
  esac
  shift
done

builddir=build
build_opts=(-Dwerror=true)
if ((sanitize)); then
  builddir=build-asan
  build_opts+=('-Db_sanitize=address,undefined' -Db_lundef=false)
  # UBSan only prints by default: make any report fail the test, with a stack trace.
  # (ASan already stops at the first error and reports leaks at exit.)
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi

# The smoke run's broker and PostgreSQL server: never the test ones' ports or state
# directories.
bench_env=(env -u WEIR_KAFKA_CONTROLLER_PORT WEIR_KAFKA_PORT="${WEIR_BENCH_KAFKA_PORT:-29092}"
  WEIR_KAFKA_DIR="$WEIR_REPO/.cache/bench-smoke-kafka" WEIR_POSTGRES_PORT="${WEIR_BENCH_POSTGRES_PORT:-29432}"
  WEIR_POSTGRES_DIR="$WEIR_REPO/.cache/bench-smoke-postgres"
  WEIR_SCHEMA_REGISTRY_PORT="${WEIR_BENCH_SCHEMA_REGISTRY_PORT:-58082}"
  WEIR_SCHEMA_REGISTRY_DIR="$WEIR_REPO/.cache/bench-smoke-schema-registry")

weir::log "test: step 1/6: system packages"
weir::ensure_packages build java browser
((!fuzz)) || weir::ensure_packages fuzz
weir::ensure_python_packages
# The network fault suites' TCP proxy; they find it again with weir::ensure_toxiproxy.
weir::log "test: toxiproxy-server at $(weir::ensure_toxiproxy)"

weir::log "test: step 2/6: build ($builddir/, ${build_opts[*]})"
weir::build "$builddir" "${build_opts[@]}"
((!fuzz)) || weir::build_fuzz build-fuzz

weir::log "test: step 3/6: a fresh Kafka broker, PostgreSQL server and Schema Registry"
stop_broker() {
  local rc=$?
  weir::log "test: stopping the Kafka broker"
  "$WEIR_REPO/scripts/kafka.sh" stop || rc=1
  weir::log "test: stopping the PostgreSQL server"
  "$WEIR_REPO/scripts/postgres.sh" stop || rc=1
  weir::log "test: stopping the Schema Registry"
  "$WEIR_REPO/scripts/schema-registry.sh" stop || rc=1
  # bench/run.sh stops its own broker and server; this covers run.sh being killed outright.
  ((!bench)) || "${bench_env[@]}" "$WEIR_REPO/scripts/kafka.sh" stop >/dev/null 2>&1 || true
  ((!bench)) || "${bench_env[@]}" "$WEIR_REPO/scripts/postgres.sh" stop >/dev/null 2>&1 || true
  ((!bench)) || "${bench_env[@]}" "$WEIR_REPO/scripts/schema-registry.sh" stop >/dev/null 2>&1 || true
  exit "$rc"
}
trap stop_broker EXIT
trap 'exit 130' INT TERM
# A broker left running by someone else would carry old data: restart it empty.
"$WEIR_REPO/scripts/kafka.sh" stop
bootstrap="$("$WEIR_REPO/scripts/kafka.sh" start | tail -n 1)"
export WEIR_KAFKA_BOOTSTRAP="$bootstrap"
weir::log "test: WEIR_KAFKA_BOOTSTRAP=$WEIR_KAFKA_BOOTSTRAP"
# The same for PostgreSQL: start wipes its data, so each run starts empty.
"$WEIR_REPO/scripts/postgres.sh" stop
WEIR_POSTGRES_URL="$("$WEIR_REPO/scripts/postgres.sh" start | tail -n 1)"
export WEIR_POSTGRES_URL
weir::log "test: WEIR_POSTGRES_URL=$WEIR_POSTGRES_URL"
# The registry keeps its schemas in memory: a restart starts it empty.
"$WEIR_REPO/scripts/schema-registry.sh" stop
WEIR_SCHEMA_REGISTRY_URL="$("$WEIR_REPO/scripts/schema-registry.sh" start | tail -n 1)"
export WEIR_SCHEMA_REGISTRY_URL
weir::log "test: WEIR_SCHEMA_REGISTRY_URL=$WEIR_SCHEMA_REGISTRY_URL"

weir::log "test: step 4/6: meson test -C $builddir ${meson_test_args[*]}"
meson test -C "$WEIR_REPO/$builddir" --print-errorlogs --num-processes 2 "${meson_test_args[@]}"

if ((fuzz)); then
  # Every harness for at most 5 s and 50,000 inputs: well under two minutes in all.
  weir::log "test: step 5/6: fuzz smoke run (bench/fuzz.sh --smoke; logs in .cache/fuzz/logs/)"
  "$WEIR_REPO/bench/fuzz.sh" --smoke --no-build --seconds 5 --runs 50000
else
  weir::log "test: step 5/6: fuzz smoke run skipped (--no-fuzz)"
fi

if ((bench)); then
  # The harness only: 10,000 records, tasks.max=1, the failover runs, this build
  # (no release build). It fails when a subject does not deliver, never on a time.
  weir::log "test: step 6/6: bench/run.sh smoke run (report in .cache/bench-smoke/latest.md)"
  "${bench_env[@]}" WEIR_BENCH_BUILD="$builddir" WEIR_BENCH_DIR="$WEIR_REPO/.cache/bench-smoke" \
    WEIR_BENCH_TIMEOUT=150 "$WEIR_REPO/bench/run.sh" --no-build --check --records 10000 --tasks 1 --connect-tasks 1 --rounds 1 --no-cdc \
    --connectors 5 --many-records 1000 --sweep --sweep-records "5000 10000" --out "$WEIR_REPO/.cache/bench-smoke/latest.md"
else
  weir::log "test: step 6/6: bench smoke run skipped (--no-bench)"
fi
weir::log "test: all tests passed"
