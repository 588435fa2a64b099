#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ for MINUTES each (default 2), one after the other, one
# libFuzzer process at a time, and reports what each found. Not part of CI: it is slow.
#
#   scripts/fuzz.sh [MINUTES] [TARGET...]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Each target starts
# from its committed seeds (fuzz/seeds/TARGET, see fuzz/make_seeds.py) plus the corpus earlier
# runs grew (fuzz/corpus/TARGET, not committed). Crashes, hangs (> 10 s per input) and OOMs
# (> 2 GiB) are written to fuzz/artifacts/TARGET/; reproduce one with
# `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/FILE` from fuzz/.
# Exit status: 0 when no target found anything, 1 otherwise.
set -uo pipefail

minutes=${1:-2}
shift || true
case $minutes in
  '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [MINUTES] [TARGET...]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/../fuzz" || exit 2
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is missing: cargo install cargo-fuzz (and rustup toolchain install nightly)" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

echo "building ${#targets[@]} fuzz targets (nightly, address sanitizer)…"
mkdir -p artifacts
if ! cargo +nightly fuzz build >artifacts/build.log 2>&1; then
  tail -n 40 artifacts/build.log >&2
  exit 2
fi

findings=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t/last-run.log"
  before=$(ls "artifacts/$t" | grep -v '\.log$' | sort)
  echo "fuzzing $t for $minutes min…"
  start=$(date +%s)
  cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(find "corpus/$t" -type f | wc -l)
  after=$(ls "artifacts/$t" | grep -v '\.log$' | sort)
  new=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')
  if [ $rc -eq 0 ] && [ -z "$new" ]; then
    result="ok"
  else
    findings=1
    why=$(grep -m1 -A1 'panicked at' "$log" | tr '\n' ' ')
    [ -n "$why" ] || why=$(grep -m1 -E '==[0-9]+== ?ERROR|^SUMMARY' "$log")
    result="FOUND (exit $rc): ${why:-see $log}"
    [ -n "$new" ] && result="$result; new in artifacts/$t: $(echo "$new" | tr '\n' ' ')"
  fi
  summary+=("| $t | $((secs / 60))m$((secs % 60))s | ${execs:-?} | $corpus | $result |")
done

echo
echo "| target | time | executions | corpus | result |"
echo "|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
exit $findings
