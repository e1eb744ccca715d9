#!/usr/bin/env bash
# Runs argus's fuzz targets (tests/fuzz: cargo-fuzz and libFuzzer) for a while each.
#
#   scripts/fuzz.sh TARGET SECONDS    one target for SECONDS
#   scripts/fuzz.sh all SECONDS       every target in turn, SECONDS each
#
# Targets: epd_record, time_control, move_reader, journal, referee (docs/fuzzing.md).
# Installs cargo-fuzz when it is missing. cargo-fuzz passes nightly flags (-Z, sanitizer
# coverage) to rustc; on the stable toolchain RUSTC_BOOTSTRAP=1 lets it. The committed
# seeds in tests/fuzz/corpus/TARGET are only read: what a run learns goes to
# tests/fuzz/work/TARGET, findings to tests/fuzz/artifacts/TARGET (both ignored by git).
#
# Prints the executions of each run, and exits non-zero on any finding (a panic, a
# failed check, an input slower than FUZZ_TIMEOUT seconds, running out of memory).
# FUZZ_SANITIZER (default none) picks cargo-fuzz's sanitizer: the code fuzzed is safe
# Rust, and without AddressSanitizer a run makes about twice the executions. Overflow
# checks and debug assertions are on either way.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: $0 TARGET|all SECONDS" >&2
  exit 2
}
[ $# -eq 2 ] || usage
which=$1
seconds=$2
case $seconds in '' | *[!0-9]*) usage ;; esac

export RUSTC_BOOTSTRAP=1
fuzz_dir=tests/fuzz
sanitizer=${FUZZ_SANITIZER:-none}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --version 0.13.2 --locked
fi

all=$(cargo fuzz list --fuzz-dir "$fuzz_dir")
if [ "$which" = all ]; then
  targets=$all
elif grep -qx "$which" <<<"$all"; then
  targets=$which
else
  echo "unknown target $which; the targets are: $(tr '\n' ' ' <<<"$all")" >&2
  exit 2
fi

# Build first, so that SECONDS is all fuzzing.
build_args=(--fuzz-dir "$fuzz_dir" --sanitizer "$sanitizer")
if [ "$which" = all ]; then
  cargo fuzz build "${build_args[@]}"
else
  cargo fuzz build "${build_args[@]}" "$which"
fi

failed=""
passed=0
for target in $targets; do
  work=$fuzz_dir/work/$target
  artifacts=$fuzz_dir/artifacts/$target
  mkdir -p "$work" "$artifacts"
  before=$(find "$artifacts" -type f | wc -l)
  args=(-max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1)
  if [ -f "$fuzz_dir/dict/$target.dict" ]; then
    args+=(-dict="$PWD/$fuzz_dir/dict/$target.dict")
  fi
  echo "fuzzing $target for $seconds s"
  log=$work.log
  set +e
  cargo fuzz run "${build_args[@]}" "$target" "$work" "$fuzz_dir/corpus/$target" -- "${args[@]}" \
    >"$log" 2>&1
  status=$?
  set -e
  after=$(find "$artifacts" -type f | wc -l)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
    failed="$failed $target"
    # The panic, the check that failed, or libFuzzer's reason, and where the input is.
    grep -E -A 30 "panicked at|ERROR: libFuzzer|deadly signal|timeout after|out-of-memory" "$log" |
      head -n 60 || tail -n 40 "$log"
    grep -E "Test unit written to|artifact_prefix" "$log" || true
    echo "$target: FAILED after ${runs:-?} executions (exit $status; log $log)"
  else
    passed=$((passed + 1))
    echo "$target: ${runs:-?} executions in $seconds s (${rate:-?}/s), no findings"
  fi
done

echo "fuzz targets: $passed passed, $(wc -w <<<"$failed") failed"
if [ -n "$failed" ]; then
  echo "fuzzing found problems in:$failed" >&2
  exit 1
fi
