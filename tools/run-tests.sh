#!/usr/bin/env bash
# Runs the repository's checks (tools/checks/: co_await shapes g++ 12 miscompiles, documented
# paths that exist), then builds droidlab and runs every test: the unit and end-to-end tests
# (warnings are errors), the same unit tests under AddressSanitizer + UndefinedBehaviorSanitizer,
# each libFuzzer target for a bounded time, and a quick smoke run of each benchmark. Installs what
# it needs first. A few failed tests are run once more, alone; one that then passes is named as
# flaky in the output's last section (with what it printed when it failed) and counted as passed.
#
#   tools/run-tests.sh                 everything
#   DROIDLAB_FUZZ_SECONDS=600 tools/run-tests.sh  longer fuzzing (default 10 s per target)
#   DROIDLAB_SKIP_SANITIZERS=1 / DROIDLAB_SKIP_FUZZ=1    leave a stage out (local iteration only)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc)
# Two tests a core: most of the test time is end-to-end tests waiting on simulated phones (a cold
# launch loop takes as long under ASan as without), not computing. On this 2-core machine the
# main build's tests took 370 s at -j2 and 193 s at -j4, the ASan build's 605–660 s and 410 s.
test_jobs=$((jobs * 2))
# Ten seconds a target after its whole seed corpus: a regression smoke in the test command (28
# targets, one per core); a long fuzzing session is DROIDLAB_FUZZ_SECONDS=600.
fuzz_seconds=${DROIDLAB_FUZZ_SECONDS:-10}

bash deploy/install-deps.sh --test

passed=0
failed=0
# What the failing tests printed, shown again at the very end: a CI record keeps only the tail.
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
# Each stage's wall time, printed at the end beside the totals (CI must stay under 40 minutes).
stages=""
stage_started=$SECONDS
end_stage() {
  if [[ -n ${stage_name:-} ]]; then
    stages+="$(printf '%6d s  %s' $((SECONDS - stage_started)) "$stage_name")"$'\n'
  fi
  stage_name=${1:-}
  stage_started=$SECONDS
}
log() {
  end_stage "$*"
  printf '\n== %s\n' "$*"
}

# Runs ctest in a build dir (with any further ctest arguments) and adds its counts to the totals.
run_ctest() {
  local dir=$1 out
  shift
  set +e
  out=$(cd "$dir" && ctest --output-on-failure --timeout 300 -j"$test_jobs" "$@" 2>&1)
  set -e
  printf '%s\n' "$out" | tail -n 40
  # Each failed test's block (its status line to the next test's), cut to its assertions. ctest
  # marks every failure with "***" (***Failed, ***Timeout, ***Exception) and a skipped test with
  # ***Skipped, which is no failure; a name may say "Failed".
  printf '%s\n' "$out" | awk -v dir="$dir" '
    / Test +#[0-9]+: / { keep = /\*\*\*/ && !/\*\*\*Skipped/ }
    /^ *Start +[0-9]+: |tests passed, [0-9]+ tests? failed out of/ { keep = 0 }
    keep { print dir ": " $0 }' | grep -E -A 14 '(Test +#[0-9]+: |: Failure$|ERROR: AddressSanitizer|runtime error:)' \
    | cut -c1-600 | head -n 300 >>"$failures" || true
  local line
  line=$(printf '%s\n' "$out" | grep -E 'tests passed, [0-9]+ tests? failed out of' | tail -n 1)
  if [[ -z "$line" ]]; then
    echo "ctest in $dir printed no summary" >&2
    failed=$((failed + 1))
    return
  fi
  local f total
  f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
  # A few failures are run once more, alone: one that fails again fails the run; one that then
  # passes is counted as passed but named as flaky at the end, with what it printed when it
  # failed (above), so that it is looked into rather than forgotten. Many failures are a real
  # break: no rerun.
  if (( f > 0 && f <= 3 )); then
    local again again_line again_f
    set +e
    again=$(cd "$dir" && ctest --rerun-failed --output-on-failure --timeout 300 -j1 "$@" 2>&1)
    set -e
    again_line=$(printf '%s\n' "$again" | grep -E 'tests passed, [0-9]+ tests? failed out of' | tail -n 1)
    if [[ -n "$again_line" ]]; then
      again_f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$again_line")
      local first_names again_names
      first_names=$(printf '%s\n' "$out" | sed -n '/The following tests FAILED:/,$p' \
        | sed -nE 's/^\s+[0-9]+ - (\S+).*/\1/p' | sort)
      again_names=$(printf '%s\n' "$again" | sed -n '/The following tests FAILED:/,$p' \
        | sed -nE 's/^\s+[0-9]+ - (\S+).*/\1/p' | sort)
      {
        echo "$dir: the failed tests run again, alone: $again_line"
        comm -23 <(printf '%s\n' "$first_names") <(printf '%s\n' "$again_names") \
          | sed "s|^|$dir: FLAKY (failed, then passed alone; counted as passed): |"
        comm -12 <(printf '%s\n' "$first_names") <(printf '%s\n' "$again_names") \
          | sed "s|^|$dir: FAILED twice: |"
      } >>"$failures"
      f=$again_f
    fi
  fi
  passed=$((passed + total - f))
  failed=$((failed + f))
}

# Each check counts once in the totals; its findings are printed when it fails.
log "checks (tools/checks/)"
for check in co_await_check doc_paths_check; do
  if out=$(python3 "tools/checks/$check.py" 2>&1); then
    passed=$((passed + 1)); echo "ok   $check"
  else
    failed=$((failed + 1)); echo "FAIL $check"; printf '%s\n' "$out"
  fi
done

log "build (RelWithDebInfo with line tables only, -Werror)"
# -g1: line tables only. A failing test's backtrace still names file and line, and g++'s code is
# the same whatever -g says; full -g costs a third to a half of each file's compile time (a
# template-heavy file of ours: 34 s at -O2 -g, 22 s at -O2 -g1) and most of the link's.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' \
  -DDROIDLAB_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
log "tests"
run_ctest build

log "benchmarks, smoke run (--quick; real figures: tools/run-bench.sh)"
for b in build/bench/*_bench; do
  if "$b" --quick >/tmp/droidlab_bench_smoke.log 2>&1; then
    passed=$((passed + 1)); echo "ok   $(basename "$b")"
  else
    failed=$((failed + 1)); echo "FAIL $(basename "$b")"; cat /tmp/droidlab_bench_smoke.log
  fi
done

if [[ -z "${DROIDLAB_SKIP_SANITIZERS:-}" ]]; then
  log "build with ASan + UBSan"
  # -O0 (Debug): at -O1 and above, g++ 12 with the sanitizers reports false -Wmaybe-uninitialized
  # and -Wmismatched-new-delete inside libstdc++'s <regex> and Asio's awaitable frames. -g1: line
  # tables only — a sanitizer's stack still names file and line — for a build that is the test
  # command's longest stage (full -g writes every template instance's types and locals).
  # Unity batches of 16 here (8 in the build above): at -O0 a unit's time is mostly parsing the
  # headers its files share (the API tests: three units of 8 took 111 s, one unit of all 66 s).
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
    -DDROIDLAB_SANITIZER='address;undefined' -DDROIDLAB_BUILD_BENCH=OFF \
    -DDROIDLAB_UNITY_BATCH=16 >/dev/null
  cmake --build build-asan -j"$jobs"
  log "tests under ASan + UBSan"
  # Not the checks (Python on the sources: nothing of ours runs under the sanitizers) nor the
  # dashboard in Chromium (its server paths are the API tests'): both ran in the build above.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest build-asan -LE '^(checks|browser)$'
fi

if [[ -z "${DROIDLAB_SKIP_FUZZ:-}" ]]; then
  log "fuzzers (clang, libFuzzer + ASan + UBSan), ${fuzz_seconds}s each"
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DDROIDLAB_FUZZ=ON \
    -DDROIDLAB_SANITIZER='address;undefined' -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' >/dev/null
  cmake --build build-fuzz -j"$jobs"
  # libFuzzer is single-threaded: run one target per core, each in its own work directory, and
  # count their verdicts after all have ended.
  results=$(mktemp -d)
  fuzz_one() {
    local f=$1 name=${1##*/fuzz_} work
    work=$(mktemp -d)
    cp -r "$root/tests/fuzz/corpus/$name/." "$work/"
    if "$f" -max_total_time="$fuzz_seconds" -print_final_stats=1 -artifact_prefix="$work/" \
        "$work" >"$work.log" 2>&1; then
      echo "ok   fuzz_$name: $(grep -E 'stat::number_of_executed_units' "$work.log" | awk '{print $2}') execs" \
        >"$results/$name.ok"
    else
      { echo "FAIL fuzz_$name"; tail -n 40 "$work.log"; } >"$results/$name.fail"
    fi
    rm -rf "$work" "$work.log"
  }
  for f in build-fuzz/tests/fuzz/fuzz_*; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
    fuzz_one "$f" &
  done
  wait
  for r in "$results"/*; do
    cat "$r"
    if [[ $r == *.ok ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
  expected=$(find build-fuzz/tests/fuzz -maxdepth 1 -name 'fuzz_*' -type f | wc -l)
  if (( $(find "$results" -type f | wc -l) != expected )); then
    failed=$((failed + 1)); echo "FAIL fuzzers: a target left no verdict"
  fi
  rm -rf "$results"
fi

end_stage
printf '\n== time per stage (%d s in all)\n%s' "$SECONDS" "$stages"
if [[ -s $failures ]]; then
  printf '\n== what the failing tests printed\n'
  cat "$failures"
fi
echo
echo "droidlab: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
