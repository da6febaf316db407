#!/usr/bin/env bash
# Build weir and run every test suite ('unit' and 'integration') against a real,
# freshly started Apache Kafka broker, then stop the broker (always, even on failure).
#
#   scripts/test.sh                    build into build/ with -Dwerror=true, run the tests
#   scripts/test.sh --sanitize         the same with AddressSanitizer and UBSan, in build-asan/
#   scripts/test.sh [...] -- ARGS...   pass ARGS to `meson test` (e.g. -- --suite unit)
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

sanitize=0
meson_test_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
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

weir::log "test: step 1/4: system packages"
weir::ensure_packages build java

weir::log "test: step 2/4: build ($builddir/, ${build_opts[*]})"
weir::build "$builddir" "${build_opts[@]}"

weir::log "test: step 3/4: a fresh Kafka broker"
stop_broker() {
  local rc=$?
  weir::log "test: stopping the Kafka broker"
  "$WEIR_REPO/scripts/kafka.sh" stop || rc=1
  exit "$rc"
}
trap stop_broker EXIT
trap 'exit 130' INT TERM
# A broker left running by someone else would carry old data: restart it empty.
"$WEIR_REPO/scripts/kafka.sh" stop
bootstrap="$("$WEIR_REPO/scripts/kafka.sh" start | tail -n 1)"
export WEIR_KAFKA_BOOTSTRAP="$bootstrap"
weir::log "test: WEIR_KAFKA_BOOTSTRAP=$WEIR_KAFKA_BOOTSTRAP"

weir::log "test: step 4/4: meson test -C $builddir ${meson_test_args[*]}"
meson test -C "$WEIR_REPO/$builddir" --print-errorlogs --num-processes 2 "${meson_test_args[@]}"
weir::log "test: all tests passed"
