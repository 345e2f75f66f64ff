#!/usr/bin/env bash
# Writes what the line drivers print for the demo toolbox and the recorded streams into a folder,
# one file per case (stdout, and stderr with the exit code), so that a refactoring can be shown
# to change no byte: run it before and after, then `diff -r before after`.
#
#   bash tests/driver_outputs.sh <folder>
#
# `providers`: every form, alone and with every tool choice (plain, one call at a time, narrowed);
# `assemble`: every recorded stream of the manifest and of tests/data/providers/turns.
set -uo pipefail
out=${1:?usage: driver_outputs.sh <folder>}
mkdir -p "$out"
cd "$(dirname "$0")/.."
cargo build --quiet --example providers --example assemble
ex=target/debug/examples
for form in openai openai-strict openai-responses anthropic anthropic-strict gemini gemini-json-schema mcp cohere bedrock; do
  "$ex/providers" "$form" > "$out/providers.$form.out" 2> "$out/providers.$form.err"
  echo "exit $?" >> "$out/providers.$form.err"
  for choice in auto none required tool:add tool:nope allowed:add,search required:add,divide; do
    for extra in "" "--parallel-calls false" "--narrow-tools"; do
      file="$out/providers.$form.$choice.${extra// /_}"
      # shellcheck disable=SC2086 # $extra is two words or none
      "$ex/providers" "$form" --tool-choice "$choice" $extra > "$file.out" 2> "$file.err"
      echo "exit $?" >> "$file.err"
    done
  done
done
python3 - > "$out/streams.txt" <<'PY'
import json
formats = {"openai_chat_stream": "openai", "openai_responses_stream": "openai-responses",
           "anthropic_stream": "anthropic", "gemini_stream": "gemini",
           "cohere_v2_stream": "cohere", "bedrock_converse_stream": "bedrock"}
for line in open("tests/data/providers/manifest.jsonl"):
    row = json.loads(line)
    if row["format"] in formats:
        print(formats[row["format"]], "tests/data/providers/" + row["file"])
PY
for file in tests/data/providers/turns/*.jsonl; do
  name=$(basename "$file")
  case "$name" in
    responses__*) echo "openai-responses $file" ;;
    openai_chat__*) echo "openai $file" ;;
    *) echo "${name%%__*} $file" ;;
  esac
done >> "$out/streams.txt"
while read -r provider file; do
  name=$(basename "$file")
  "$ex/assemble" "$provider" < "$file" > "$out/assemble.$name.out" 2> "$out/assemble.$name.err"
  echo "exit $?" >> "$out/assemble.$name.err"
done < "$out/streams.txt"
