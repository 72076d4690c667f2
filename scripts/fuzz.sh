#!/usr/bin/env bash
# Run every fuzz harness in tests/fuzz/ for a bounded time each and summarise.
#
#   scripts/fuzz.sh SECONDS [HARNESS...]
#
# SECONDS per harness (default 60); HARNESS names (envelope replica crypto lobby
# runtime discovery transcript; default all). Findings are printed as FINDING lines
# and saved, shrunk, under tests/fuzz/crashes/ ($TRUTNET_FUZZ_CRASHES); corpora grow
# under $TRUTNET_FUZZ_CACHE (default /tmp/trutnet-fuzz). Exit status 1 if any
# harness reported a finding or stopped on its own.
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
seconds="${1:-60}"
shift || true
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=(envelope replica crypto lobby runtime discovery transcript)
fi
crashes="${TRUTNET_FUZZ_CRASHES:-$PWD/tests/fuzz/crashes}"
mkdir -p "$crashes"
logs="$(mktemp -d)"
status=0
printf '%-11s %10s %8s  %s\n' harness execs findings "exit"
for h in "${harnesses[@]}"; do
    log="$logs/$h.log"
    # a hard bound on top of libFuzzer's own: instrumenting and seeding take a while
    timeout --kill-after=10 $((seconds + 180)) python3 "tests/fuzz/fuzz_$h.py" \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 \
        -artifact_prefix="$crashes/$h-libfuzzer-" >"$log" 2>&1
    rc=$?
    execs=$(grep -Eo '^Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -1)
    findings=$(grep -c '^FINDING' "$log")
    printf '%-11s %10s %8s  %s\n' "$h" "${execs:-?}" "$findings" "$rc"
    grep '^FINDING' "$log" | sed 's/^/    /'
    if [ "$rc" -ne 0 ]; then
        tail -5 "$log" | sed 's/^/    | /'
    fi
    if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
        status=1
    fi
done
echo "logs: $logs"
exit $status
