#!/usr/bin/env bash
# Builds the packing core's own tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (outside native/build, so the addon is never disturbed) and runs the randomized driver.
#   bash native/scripts/test.sh            long run (20000 randomized cases)
#   bash native/scripts/test.sh --short    short run (300 cases), as npm test runs it
#   MIDPACK_FUZZ_ITERS=N MIDPACK_FUZZ_SEED=S override the count and the seed
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
iters="${MIDPACK_FUZZ_ITERS:-20000}"
if [[ "${1:-}" == "--short" ]]; then iters="${MIDPACK_FUZZ_ITERS:-300}"; fi
seed="${MIDPACK_FUZZ_SEED:-12345}"
out="$(mktemp -d "${TMPDIR:-/tmp}/midpack-native-test.XXXXXX")"
trap 'rm -rf "$out"' EXIT
# The test programs compile side by side (the compile is most of a short run's time).
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/packer.cpp" "$here/test/test_packer.cpp" -o "$out/test_packer" &
packer_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/packer.cpp" "$here/src/planner.cpp" "$here/test/test_planner.cpp" -o "$out/test_planner" &
planner_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/segments.cpp" "$here/src/count_table.cpp" "$here/src/json_text.cpp" "$here/test/test_segments.cpp" -o "$out/test_segments" &
segments_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/bpe_tokenizer.cpp" "$here/src/splitters.cpp" "$here/test/test_bpe_tokenizer.cpp" -o "$out/test_bpe_tokenizer" &
tokenizer_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/bpe_tokenizer.cpp" "$here/src/splitters.cpp" "$here/test/test_splitters.cpp" -o "$out/test_splitters" &
splitters_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/header_lines.cpp" "$here/src/segments.cpp" "$here/test/test_header_lines.cpp" -o "$out/test_header_lines" &
header_lines_build=$!
"${CXX:-g++}" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
  -fno-sanitize-recover=all -Wall -Wextra -Werror \
  -I"$here/include" "$here/src/spawn_process.cpp" "$here/test/test_spawn_process.cpp" -o "$out/test_spawn_process" &
spawn_process_build=$!
built=0
wait "$packer_build" || built=1
wait "$planner_build" || built=1
wait "$segments_build" || built=1
wait "$tokenizer_build" || built=1
wait "$splitters_build" || built=1
wait "$header_lines_build" || built=1
wait "$spawn_process_build" || built=1
[[ $built == 0 ]] || { echo "native/scripts/test.sh: a test program did not compile" >&2; exit 1; }
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_packer" "$iters" "$seed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_planner" "$((iters / 10 + 1))" "$seed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_segments" "$((iters * 10))" "$seed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_bpe_tokenizer" "$((iters / 10 + 1))" "$seed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_splitters"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_header_lines" "$((iters * 10))" "$seed"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$out/test_spawn_process"
