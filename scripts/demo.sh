#!/usr/bin/env bash
# Build weir and run its quickstart demo. The demo needs no external service: it
# uses the embedded broker (bootstrap.servers=embedded, librdkafka's in-process mock
# cluster). Arguments are passed to `weir demo`.
#
#   scripts/demo.sh             the demo: loads its records, reports, ends by itself
#   scripts/demo.sh --console   the demo's pipeline in `weir standalone`, kept running at
#                               a steady rate until Ctrl-C, with the web console at
#                               http://127.0.0.1:${WEIR_CONSOLE_PORT:-8083}/ui (its files
#                               in ${WEIR_DEMO_DIR:-.cache/demo-console})
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

weir::log "demo: step 1/3: system packages (no Java needed)"
weir::ensure_packages build

weir::log "demo: step 2/3: build (build/)"
weir::build build

if [[ "${1:-}" != --console ]]; then
  weir::log "demo: step 3/3: build/weir demo $*"
  exec "$WEIR_REPO/build/weir" demo "$@"
fi

# The console demo: the same connectors as `weir demo` (DatagenConnector -> topic ->
# consumer -> InsertField -> MaskField -> JDBC sink on SQLite), as files that
# `weir standalone` reads, with the source throttled to a steady few hundred records/s.
port="${WEIR_CONSOLE_PORT:-8083}"
dir="${WEIR_DEMO_DIR:-$WEIR_REPO/.cache/demo-console}" # ignored by git
mkdir -p "$dir"
rm -f "$dir"/state.db* "$dir"/console-demo.db*
cat >"$dir/worker.properties" <<PROPS
bootstrap.servers=embedded
listeners=http://127.0.0.1:$port
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
offset.storage.file.filename=$dir/state.db
PROPS
cat >"$dir/demo-datagen.properties" <<'PROPS'
name=demo-datagen
connector.class=DatagenConnector
kafka.topic=user-events
quickstart=user-events
# forever, waiting 0..4 ms before each record: a steady ~500 records/s
iterations=-1
max.interval=4
topic.creation.default.partitions=4
topic.creation.default.replication.factor=1
PROPS
cat >"$dir/demo-sink.properties" <<PROPS
name=demo-sink
connector.class=JdbcSinkConnector
topics=user-events
connection.url=jdbc:sqlite:$dir/console-demo.db
table.name.format=user_events
auto.create=true
# one row per user, so the table stays small however long the demo runs
insert.mode=upsert
pk.mode=record_value
pk.fields=user_id
transforms=addsrc,mask
transforms.addsrc.type=org.apache.kafka.connect.transforms.InsertField\$Value
transforms.addsrc.static.field=pipeline
transforms.addsrc.static.value=weir-demo
transforms.mask.type=org.apache.kafka.connect.transforms.MaskField\$Value
transforms.mask.fields=email
PROPS

weir::log "demo: step 3/3: build/weir standalone with the console at http://127.0.0.1:$port/ui (Ctrl-C to stop)"
printf '\n  weir console: http://127.0.0.1:%s/ui\n\n' "$port"
exec "$WEIR_REPO/build/weir" standalone "$dir/worker.properties" "$dir/demo-datagen.properties" \
  "$dir/demo-sink.properties"
