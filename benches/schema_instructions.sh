#!/usr/bin/env bash
# Instructions per valid call's argument handling, toolwright and the jsonschema alternative
# (text -> Value -> is_valid -> from_value), counted by callgrind: the difference between N and
# N/2 calls, so that set-up (compiling both validators) cancels out.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cargo bench -p toolwright-benches --bench schema --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*schema-[^"]*"' | tail -n 1 | cut -d'"' -f4)
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" count "$1" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate "$out" | grep "PROGRAM TOTALS" | awk '{print $1}' | tr -d ,
  rm -f "$out"
}
n=${N:-2000}
for tool in ${TOOLS:-add get_weather update_preferences search draw evaluate}; do
  line="$tool:"
  for which in toolwright jsonschema; do
    full=$(count "$tool" "$which" "$n")
    half=$(count "$tool" "$which" $((n / 2)))
    line="$line $which $(((full - half) / (n / 2)))"
  done
  echo "$line instructions per call"
done
