#!/usr/bin/env bash
# Instructions per `add` call, baseline and toolwright (whole dispatch, then argument parsing
# alone), counted by callgrind: the difference between N and N/2 iterations, so that set-up
# cancels out.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cargo bench -p toolwright-benches --bench instructions --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*instructions[^"]*"' | tail -n 1 | cut -d'"' -f4)
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$out" | grep "PROGRAM TOTALS" | awk '{print $1}' | tr -d ,
  rm -f "$out"
}
n=${1:-100000}
for which in ${WHICH:-base toolwright value-base value-toolwright parse-base parse-toolwright search-base search-toolwright}; do
  full=$(count "$which" "$n")
  half=$(count "$which" $((n / 2)))
  echo "$which: $(((full - half) / (n / 2))) instructions per call"
done
