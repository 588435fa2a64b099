#!/usr/bin/env bash
# Runs `tether hooks check` on every agent file (*.yaml, *.yml) under the given directories and
# prints a pass/fail count, then each failing file with the first line of its error.
# Usage: scripts/check-examples.sh DIR...   (TETHER=path/to/tether to pick the binary)
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 DIR..." >&2
  exit 2
fi

tether="${TETHER:-}"
if [ -z "$tether" ]; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  tether="${CARGO_TARGET_DIR:-$root/target}/debug/tether"
fi
if [ ! -x "$tether" ]; then
  echo "no tether binary at $tether (build it with \`cargo build -p tether-cli --bin tether\`)" >&2
  exit 2
fi

pass=0
fail=0
failures=""
for dir in "$@"; do
  while IFS= read -r -d '' file; do
    # Only agent files: a YAML file with a top-level `agents:` key.
    grep -q '^agents:' "$file" || continue
    if out="$("$tether" hooks check "$file" 2>&1 >/dev/null)"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      # The first line is a generic `error: invalid agent file`: the diagnostic follows it.
      first="$(printf '%s\n' "$out" | grep -v -e '^[[:space:]]*$' -e '^error: invalid agent file$' | head -n 1)"
      case "$first" in
        "$file"*) failures+="$first"$'\n' ;;
        *) failures+="$file: $first"$'\n' ;;
      esac
    fi
  done < <(find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
done

echo "passed: $pass, failed: $fail, total: $((pass + fail))"
if [ -n "$failures" ]; then
  printf '%s' "$failures"
fi
[ "$fail" -eq 0 ]
