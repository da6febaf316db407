#!/usr/bin/env bash
# Build weir and run its quickstart demo. The demo needs no external service: it
# uses the embedded broker (bootstrap.servers=embedded, librdkafka's in-process mock
# cluster). Arguments are passed to `weir demo`.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

weir::log "demo: step 1/3: system packages (no Java needed)"
weir::ensure_packages build

weir::log "demo: step 2/3: build (build/)"
weir::build build

weir::log "demo: step 3/3: build/weir demo $*"
exec "$WEIR_REPO/build/weir" demo "$@"
