#!/usr/bin/env bash
# The test command (README and .ci/run): install what the tests need, then run them.
# System packages (Mosquitto: the embedded broker when installed, and the external-broker
# tests; iproute2 for the network namespaces of the LAN tests; tmux for the terminal
# tests; nftables for the NAT routers of the internet tests) come from apt when we are
# root and they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1 || missing+=(mosquitto)
  command -v ip >/dev/null 2>&1 || missing+=(iproute2)
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  command -v nft >/dev/null 2>&1 || missing+=(nftables)  # NAT routers of the internet tests
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
ruff check trutnet tests
lint-imports  # the layering contracts of pyproject.toml ([tool.importlinter])
# 4 workers (pytest-xdist; an idle worker takes tests queued for a busy one, so a slow test
# at the end does not hold the run); `bash scripts/test.sh -n 0 ...` runs in one process.
# The 25 slowest tests are listed at the end: where the run's 15 minutes go.
python3 -m pytest -q -n 4 --dist worksteal --durations=25 "$@"
