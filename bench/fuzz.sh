#!/usr/bin/env bash
# Runs the libFuzzer harnesses of tests/fuzz/ one after the other (one process each)
# and reports, per harness, its executions, coverage (libFuzzer's cov: edges and ft:
# features), corpus size and whether it found a crash, leak, timeout or difference.
#
#   bench/fuzz.sh                        every harness for 600 s, summary in bench/results/fuzz.md
#   bench/fuzz.sh --seconds 60 json_fast_decode http_request
#   bench/fuzz.sh --smoke                what scripts/test.sh runs: each harness for a few
#                                        seconds and at most a fixed number of runs, from the
#                                        committed seeds only (nothing kept), libFuzzer's
#                                        seed fixed at 1, no summary file
#   options: --seconds N  --runs N (0: no limit)  --out FILE  --no-build
#
# The harnesses are built in build-fuzz/ with clang, libFuzzer, ASan and UBSan
# (weir::build_fuzz; the packages come from weir::ensure_packages fuzz). A long run
# starts from the committed seeds (tests/fuzz/corpus/NAME/) plus what earlier runs
# found (.cache/fuzz/corpus/NAME/, where new inputs go; the committed seeds stay
# small). A crashing input is saved under .cache/fuzz/artifacts/NAME/ and the log of
# each run is .cache/fuzz/logs/NAME.log. Exit status 1 when any harness failed.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

seconds=600
runs=0
smoke=0
build=1
out="$WEIR_REPO/bench/results/fuzz.md"
harnesses=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --smoke) smoke=1 ;;
    --out) out="$2"; shift ;;
    --no-build) build=0 ;;
    -h | --help) usage ;;
    -*) printf 'unknown option: %s\n' "$1" >&2; usage ;;
    *) harnesses+=("$1") ;;
  esac
  shift
done
if ((smoke)); then
  [[ "$seconds" != 600 ]] || seconds=5
  ((runs > 0)) || runs=50000
fi
[[ "$seconds" =~ ^[0-9]+$ && "$runs" =~ ^[0-9]+$ ]] || weir::die "--seconds and --runs take a whole number"

builddir="$WEIR_REPO/build-fuzz"
if ((build)); then
  weir::ensure_packages fuzz
  weir::build_fuzz "$builddir"
fi
if [[ ${#harnesses[@]} -eq 0 ]]; then
  for dir in "$WEIR_REPO"/tests/fuzz/corpus/*/; do
    harnesses+=("$(basename "$dir")")
  done
fi

cache="$WEIR_REPO/.cache/fuzz"
mkdir -p "$cache/logs"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Sanitizer reports are fatal, with a stack trace; libFuzzer checks for leaks itself.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

rows=()
failed=0
for name in "${harnesses[@]}"; do
  exe="$builddir/tests/fuzz/fuzz_$name"
  seeds="$WEIR_REPO/tests/fuzz/corpus/$name"
  [[ -x "$exe" && -d "$seeds" ]] || weir::die "no harness '$name' (expected $exe and $seeds)"
  if ((smoke)); then
    corpus="$scratch/$name" # new inputs are thrown away
  else
    corpus="$cache/corpus/$name"
  fi
  artifacts="$cache/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  log="$cache/logs/$name.log"
  args=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
    -artifact_prefix="$artifacts/")
  ((runs == 0)) || args+=(-runs="$runs")
  # The smoke mutates the same way on every run (a failure in CI reproduces with the
  # same command); long runs take libFuzzer's time-based seed, printed in the log.
  ((!smoke)) || args+=(-seed=1)
  weir::log "fuzz: $name for ${seconds}s$( ((runs == 0)) || printf " (at most %s runs)" "$runs")"
  rc=0
  "$exe" "${args[@]}" "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
  # The last status line (`#N DONE cov: C ft: F corp: K/...`) and the final stats.
  status_line="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status_line")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status_line")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$status_line")"
  if ((rc == 0)); then
    result="ok"
  else
    failed=1
    # What went wrong: the sanitizer's or the harness's first line, and the input.
    what="$(grep -m 1 -E '^[a-z_]+( \([^)]*\))?: |^==[0-9]+==ERROR|runtime error:|deadly signal|ALARM|out-of-memory|leak' "$log" || echo "exit $rc")"
    unit="$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)"
    result="FAILED: ${what//|/\\|} (input: ${unit:-none}; log: ${log#"$WEIR_REPO"/})"
  fi
  printf '%-18s execs %-10s (%s/s) cov %-6s ft %-6s corpus %-6s %s\n' "$name" "${execs:-?}" "${speed:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result" >&2
  rows+=("| $name | ${execs:-?} | ${speed:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $result |")
done

if ((!smoke)); then
  mkdir -p "$(dirname "$out")"
  # A "## Findings" section written by hand (what the runs found, and where it was
  # fixed) is kept from the previous summary.
  findings="$( [[ -f "$out" ]] && sed -n '/^## Findings/,$p' "$out" || true)"
  {
    printf '# Fuzzing (bench/fuzz.sh)\n\n'
    printf 'Run %s, %s s per harness%s, one process each (-jobs=1), on %s cores (%s),\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "$seconds" "$( ((runs == 0)) || printf ', at most %s runs' "$runs")" \
      "$(nproc)" "$(uname -m)"
    printf 'clang %s with libFuzzer, ASan and UBSan at -O1; commit %s. Corpus: the committed seeds\n' \
      "$(clang++ -dumpversion 2>/dev/null || echo '?')" "$(git -C "$WEIR_REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
    printf 'plus what earlier runs on this machine kept (.cache/fuzz/corpus/). cov: edges covered;\n'
    printf 'ft: features (edges with hit counts, compared values); corpus: inputs kept.\n\n'
    printf '| harness | executions | exec/s | cov | ft | corpus | result |\n'
    printf '| --- | --- | --- | --- | --- | --- | --- |\n'
    printf '%s\n' "${rows[@]}"
    [[ -z "$findings" ]] || printf '\n%s\n' "$findings"
  } >"$out"
  weir::log "fuzz: summary in ${out#"$WEIR_REPO"/}"
fi
exit "$failed"
