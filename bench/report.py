#!/usr/bin/env python3
"""Turns bench/run.sh's measurements into the markdown report (bench/results/latest.md).

    report.py RESULTS.tsv

RESULTS.tsv has one line per run: `kind<TAB>subject<TAB>key=value key=value ...`
(the subject's bench_run line plus run.sh's own keys), and `meta<TAB>key<TAB>value`
lines for the header. The report goes to stdout.
"""
import sys


def parse(path):
    meta, runs = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            if parts[0] == "meta":
                meta[parts[1]] = parts[2]
                continue
            fields = dict(kv.split("=", 1) for kv in parts[2].split() if "=" in kv)
            runs.append({"kind": parts[0], "subject": parts[1], **fields})
    return meta, runs


def num(run, key):
    try:
        return float(run.get(key, ""))
    except ValueError:
        return 0.0


def ok(run):
    return run is not None and run.get("status") == "ok"


def best(runs, kind):
    """The fastest successful run of a kind, or None."""
    good = [r for r in runs if r["kind"] == kind and ok(r)]
    return max(good, key=lambda r: num(r, "rate")) if good else None


def first(runs, kind):
    found = [r for r in runs if r["kind"] == kind]
    return found[0] if found else None


def fmt_rate(r):
    return f"{num(r, 'rate'):,.0f}" if ok(r) else "—"


def fmt(x, digits=2):
    return f"{x:,.{digits}f}"


def cpu_per_m(r, records):
    return num(r, "cpu_s") / (records / 1e6) if records else 0.0


def row(name, r, records, note=""):
    if r is None:
        return f"| {name} | not run | | | | | | {note} |"
    if not ok(r):
        why = r.get("why", "").replace("_", " ") or f"status {r.get('status', '?')}, {r.get('records', '0')} records"
        return f"| {name} | {why} | | | | | | {note} |"
    return (f"| {name} | {fmt_rate(r)} | {fmt(num(r, 'wall_s'))} | {fmt(num(r, 'first_s'), 3)} | "
            f"{fmt(num(r, 'cpu_s'))} | {fmt(cpu_per_m(r, records))} | {fmt(num(r, 'rss_mb'), 0)} | {note} |")


def run_rows(w, rows, records, unit="record"):
    """The common table of bench_run's measurements, one row per run; a run that carries
    its own input size (`n=`, step 14's) is counted by it."""
    w(f"| run | {unit}s/s | s to last {unit} | s to first {unit} | CPU s | CPU s / M {unit}s | peak RSS MB | notes |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        w(row(r["subject"], r, int(num(r, "n")) or records))


def step_table(w, runs, kinds, title, text, records):
    """A step's own section: its title, what it runs, its runs' table; nothing when it did not run."""
    rows = [r for r in runs if r["kind"] in kinds]
    if not rows:
        return
    w("")
    w(f"### {title}")
    w("")
    w(text)
    w("")
    run_rows(w, rows, records)


def percent_target(w, name, a, b, goal):
    """A target row: the best run `a` against the best run `b`, met when a/b >= goal."""
    x = ratio(num(a, "rate"), num(b, "rate")) if ok(a) and ok(b) else 0.0
    w(f"| {name} | {fmt_rate(a)} | {fmt_rate(b)} | {f'{100 * x:.0f}%' if x else '—'} | ≥ {100 * goal:.0f}% | "
      f"{'yes' if x >= goal else 'NO'} |")


FAILOVER_KINDS = ("weir_failover", "kc_failover")
JDBC_KINDS = ("weir_jdbc", "raw_sqlite")
PG_KINDS = ("weir_pg", "kc_pg", "pg_copy")
TIMING_KINDS = ("weir_timing_on", "weir_timing_off")
CDC_KINDS = ("weir_cdc", "kc_cdc")
PGSOURCE_KINDS = ("weir_pgsource", "pgsource_copy")
AVRO_KINDS = ("weir_json_values", "weir_avro_values")
MANY_KINDS = ("weir_many", "kc_many")
PARTITIONS_KINDS = ("weir_partitions_few", "weir_partitions_many")
SWEEP_KINDS = ("weir_sweep",)


def pg_row(r):
    """One PostgreSQL run: the client's CPU (weir, the JVM, psql) and the server's apart."""
    if not ok(r):
        why = r.get("why", "").replace("_", " ") or f"status {r.get('status', '?').replace('_', ' ')}"
        counted = f"{int(num(r, 'rows')):,} rows, {int(num(r, 'distinct')):,} distinct" if "rows" in r else ""
        return f"| {r['subject']} | {why} | | | | | | {counted} |"
    first = fmt(num(r, "first_s"), 3) if num(r, "first_s") else "—"  # COPY has no first row to see
    return (f"| {r['subject']} | {fmt_rate(r)} | {fmt(num(r, 'wall_s'))} | {first} | "
            f"{fmt(num(r, 'cpu_s'))} | {fmt(num(r, 'server_cpu_s'))} | {fmt(num(r, 'rss_mb'), 0)} | "
            f"{int(num(r, 'rows')):,} |")


def postgres_table(w, meta, runs):
    """Step 7: weir's and Debezium's JDBC sinks on PostgreSQL, and COPY (the ceiling)."""
    records = int(meta.get("records", "0"))
    rows = [r for r in runs if r["kind"] in PG_KINDS]
    if not rows:
        return
    w("")
    w(f"PostgreSQL {meta.get('postgres', '?')} (scripts/postgres.sh, on this machine): {records:,} JSON user events "
      "with schemas (`value.converter.schemas.enable=true`, one `user_id` each) on 8 partitions, upserted by "
      "`user_id` into a table the sink creates (weir: `insert.mode=upsert pk.mode=record_value pk.fields=user_id "
      f"auto.create=true consumer.override.max.poll.records=2000`, the consumer setting Debezium's run has; Debezium {meta.get('debezium', '?')} on Kafka Connect {meta.get('connect', '?')}: "
      "`insert.mode=upsert primary.key.mode=record_value primary.key.fields=user_id schema.evolution=basic "
      "batch.size=2000 consumer.override.max.poll.records=2000`). A run is done when its progress reaches "
      "N (weir: the offsets it stores in the rows' transaction; Kafka Connect: its consumer group's commits, "
      "`offset.flush.interval.ms=1000`, so up to 1 s late) and counts only if the table then holds exactly N "
      "rows of N distinct keys. COPY: `psql \\copy` of the same rows from a CSV file into an empty table of "
      f"the shape {meta.get('copy_shape', 'the first sink')} made, over one connection, and over as many as "
      "weir's largest `tasks.max` (the file split into that many, copied at once); the target takes the faster. "
      "Client CPU is the "
      "subject's process (weir, the JVM, psql); server CPU is PostgreSQL's (the postmaster and every "
      "backend and helper process), both from the start to the last row.")
    w("")
    w("| run | rows/s | s to last row | s to first row | client CPU s | server CPU s | peak RSS MB | rows in table |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        w(pg_row(r))
    wpg, kpg = best(runs, "weir_pg"), best(runs, "kc_pg")
    w("")
    w(f"Best `tasks.max` on PostgreSQL: weir {wpg.get('tasks', '?') if wpg else '—'}, "
      f"Debezium {kpg.get('tasks', '?') if kpg else '—'}.")


def postgres_targets(w, runs):
    """The PostgreSQL targets: against Debezium's sink, the COPY ceiling, Kafka Connect's RSS."""
    wpg, kpg, copy = best(runs, "weir_pg"), best(runs, "kc_pg"), best(runs, "pg_copy")
    if not any(r["kind"] in PG_KINDS for r in runs):
        return
    for name, ref, goal, met_at, as_pct in (
            ("PostgreSQL upsert rows/s vs Debezium's JDBC sink", kpg, "≥ 5×", 5, False),
            ("PostgreSQL upsert rows/s vs COPY of the same rows (the faster COPY)", copy, "≥ 70%", 0.7, True)):
        if ok(wpg) and ok(ref):
            x = ratio(num(wpg, "rate"), num(ref, "rate"))
            shown = f"{100 * x:.0f}%" if as_pct else f"{x:.1f}×"
            w(f"| {name} | {fmt_rate(wpg)} | {fmt_rate(ref)} | {shown} | {goal} | {'yes' if x >= met_at else 'NO'} |")
        else:
            w(f"| {name} | {fmt_rate(wpg)} | {fmt_rate(ref)} | — | {goal} | NO |")
    if ok(wpg) and ok(kpg):
        a, b = num(wpg, "rss_mb"), num(kpg, "rss_mb")
        x = ratio(a, b)
        w(f"| peak RSS (MB), PostgreSQL runs, vs Kafka Connect + Debezium | {fmt(a, 0)} | {fmt(b, 0)} | "
          f"{'1/' + format(1 / x, '.1f') if x else '—'} | ≤ 1/10 | {'yes' if 0 < x <= 0.1 else 'NO'} |")


def cdc_row(r):
    """One CDC run: events/s and latency from the topic (cdc_probe), CPU and RSS (bench_run)."""
    if not ok(r):
        why = r.get("why", "").replace("_", " ") or f"status {r.get('status', '?').replace('_', ' ')}"
        got = f"{int(num(r, 'events')):,} events ({int(num(r, 'distinct_ids')):,} distinct)" if "events" in r else ""
        return f"| {r['subject']} | {why} | | | | | | | | {got} |"
    events = num(r, "events")
    return (f"| {r['subject']} | {num(r, 'events_per_s'):,.0f} | {num(r, 'commit_rate'):,.0f} | "
            f"{fmt(num(r, 'latency_p50_ms'), 0)} | {fmt(num(r, 'latency_p99_ms'), 0)} | "
            f"{fmt(num(r, 'latency_max_ms'), 0)} | {fmt(num(r, 'streaming_s'))} | {fmt(num(r, 'stream_cpu_s'))} "
            f"({fmt(num(r, 'stream_cpu_s') / (events / 1e6) if events else 0)}/M) | {fmt(num(r, 'rss_mb'), 0)} | "
            f"{int(events):,} |")


def cdc_table(w, meta, runs):
    """The CDC runs: weir's PostgresConnector and Debezium's, N inserts streamed to Kafka."""
    rows = [r for r in runs if r["kind"] in CDC_KINDS]
    if not rows:
        return
    records = int(meta.get("cdc_records", meta.get("records", "0")))
    w("")
    w(f"CDC: {records:,} inserts into one table (pgbench, `-f` a script of one `INSERT … SELECT … "
      f"generate_series(1, 100)`: transactions of 100 rows, {rows[0].get('clients', '?')} pgbench clients, "
      "`synchronous_commit` on) on PostgreSQL "
      f"{meta.get('postgres', '?')} (scripts/postgres.sh, `wal_level=logical`), streamed to Kafka by weir's "
      f"`PostgresConnector`, then by Debezium's {meta.get('debezium_pg', '?')} on Kafka Connect "
      f"{meta.get('connect', '?')} standalone, with one connector config (`plugin.name=pgoutput`, "
      "`publication.autocreate.mode=filtered`, `snapshot.mode=initial`, a fresh slot, publication, table and "
      "topic each run; every other key at its default) and JsonConverter for keys and values, "
      + ("with schemas (`schemas.enable=true`, its default: ~3 KB a change event). "
         if meta.get("cdc_schemas", "true") == "true" else
         "without schemas (`schemas.enable=false`, `WEIR_BENCH_CDC_SCHEMAS=false`: ~0.6 KB a change event). ") +
      "Each run's workload starts once the connector streams (after its snapshot of the empty table: a marker "
      "row inserted every 0.5 s has reached Kafka as a streamed insert). Events/s is over the first → last "
      "event's broker append time; the commit rate is the workload's own pace over the same events' commit "
      "times (the ceiling of events/s: an engine that keeps up streams at the workload's pace). Latency is commit → record in Kafka: the record's timestamp "
      "(the topic has `message.timestamp.type=LogAppendTime`, so it is the broker's clock when it appended "
      "the record) minus the event's `source.ts_ms` (the transaction's commit time, from pgoutput's Begin "
      "message); both in ms, on one machine's clock. Stream CPU is the engine process's user+sys from the "
      "workload's start to the N-th event in Kafka; peak RSS is VmHWM over the whole run. A run counts only "
      "if the topic holds exactly N events of N distinct rows.")
    w("")
    w("| run | events/s | commit rate (workload) | latency p50 ms | p99 ms | max ms | s to streaming | "
      "stream CPU s (per M events) | peak RSS MB | events |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        w(cdc_row(r))


def cdc_targets(w, runs):
    """The CDC targets against Debezium: events/s, peak RSS, p99 latency (best run of each side)."""
    if not any(r["kind"] in CDC_KINDS for r in runs):
        return
    good = {k: [r for r in runs if r["kind"] == k and ok(r)] for k in CDC_KINDS}
    name = "CDC {} vs Debezium's PostgresConnector"
    if not (good["weir_cdc"] and good["kc_cdc"]):
        for what, goal in (("events/s", "≥ 5×"), ("peak RSS (MB)", "≤ 1/10"), ("p99 latency (ms)", "≤ 1/5")):
            w(f"| {name.format(what)} | {'—' if not good['weir_cdc'] else ''} | "
              f"{'—' if not good['kc_cdc'] else ''} | — | {goal} | NO |")
        return
    for what, key, pick, goal, met in (
            ("events/s", "events_per_s", max, "≥ 5×", lambda x: x >= 5),
            ("peak RSS (MB)", "rss_mb", min, "≤ 1/10", lambda x: 0 < x <= 0.1),
            ("p99 latency commit → Kafka (ms)", "latency_p99_ms", min, "≤ 1/5", lambda x: 0 < x <= 0.2)):
        a = num(pick(good["weir_cdc"], key=lambda r: num(r, key)), key)
        b = num(pick(good["kc_cdc"], key=lambda r: num(r, key)), key)
        x = ratio(a, b)
        shown = f"{x:.1f}×" if key == "events_per_s" else (f"1/{1 / x:.1f}" if x else "—")
        verdict = "yes" if met(x) else "NO"
        best_weir = pick(good["weir_cdc"], key=lambda r: num(r, key))
        if key == "events_per_s" and not met(x) and a >= 0.95 * num(best_weir, "commit_rate"):
            # An engine that keeps up streams at the workload's pace, whatever it could do.
            verdict = "NO (weir kept up with the workload: a lower bound)"
        w(f"| {name.format(what)} | {fmt(a, 0)} | {fmt(b, 0)} | {shown} | {goal} | {verdict} |")


def jdbc_baselines(w, raw, records, rounds):
    """The paragraph on jdbc_bench's raw SQLite insert rates (run.sh step 6)."""
    if raw is None:
        return
    w("")
    if not ok(raw):
        w(f"Raw SQLite insert rate: `jdbc_bench` failed (status {raw.get('status', '?')}), see jdbc_bench.err.")
        return
    if "synthetic_rate" not in raw:  # results.tsv of a run before the same-rows baseline
        w(f"Raw SQLite insert rate, measured in the same run by `jdbc_bench --records {records} --rounds {rounds}` "
          f"(prepared INSERT loop from C++ values, one transaction): {fmt_rate(raw)} rows/s; "
          f"JdbcSinkWriter upsert in-process on pre-decoded records: {num(raw, 'upsert_rate'):,.0f} rows/s.")
        return
    w(f"Raw SQLite insert rates, measured in the same run by `jdbc_bench --records {records} --rounds {rounds} "
      "--bootstrap-servers … --topic …` (one prepared INSERT, bind + step + reset per row from C++ values, one "
      "transaction, the sink's pragmas: WAL, synchronous=NORMAL; reading and decoding are not timed):")
    w("")
    w(f"- the same rows (the target's reference): the topic's {records:,} records read by a plain consumer, in "
      "the order it delivered them, into the table the sink's `auto.create` makes (8 columns, `event_id` "
      f"INTEGER PRIMARY KEY): {fmt_rate(raw)} rows/s; the same rows sorted by key: "
      f"{num(raw, 'sorted_rate'):,.0f} rows/s; in consumer order committing every 2,000 rows (the sink's "
      f"batch, and so transaction, size): {num(raw, 'polled_rate'):,.0f} rows/s;")
    w(f"- synthetic rows (jdbc_bench's own 6 columns, keys in order; the reference before): "
      f"{num(raw, 'synthetic_rate'):,.0f} rows/s;")
    w(f"- JdbcSinkWriter upsert in-process, no pipeline: on the same rows as polled (≤ 2,000 per transaction) "
      f"{num(raw, 'topic_upsert_rate'):,.0f} rows/s; on the synthetic rows in one transaction "
      f"{num(raw, 'upsert_rate'):,.0f} rows/s.")


def failover_target(w, runs):
    """The target line: weir's failover time against Kafka Connect's."""
    wf, kf = first(runs, "weir_failover"), first(runs, "kc_failover")
    if ok(wf) and ok(kf):
        a, b = num(wf, "failover_s"), num(kf, "failover_s")
        x = ratio(b, a)
        w(f"| failover after kill -9 (3 nodes), s | {fmt(a)} | {fmt(b)} | {x:.1f}× | ≥ 5× faster | "
          f"{'yes' if x >= 5 else 'NO'} |")
    elif wf or kf:
        w(f"| failover after kill -9 (3 nodes), s | {failover_cell(wf)} | {failover_cell(kf)} | — | ≥ 5× faster | NO |")


def failover_cell(r):
    if r is None:
        return "not run"
    return fmt(num(r, "failover_s")) if ok(r) else f"status {r.get('status', '?').replace('_', ' ')}"


def failover_table(w, meta, runs):
    """The failover runs (bench/failover_probe.cpp): one row per engine."""
    rows = [r for r in runs if r["kind"] in FAILOVER_KINDS]
    if not rows:
        return
    w("")
    extra = " ".join(f"`{kv}`" for kv in meta.get("failover_props", "").split())
    w("Failover: three workers (`weir node`, or Kafka Connect's `ConnectDistributed`) with their defaults "
      f"except `scheduled.rebalance.max.delay.ms=0`{' and ' + extra if extra else ''}, one FileStreamSink with `tasks.max=6` over a topic of "
      "6 partitions, each worker writing its own file. `failover_probe` produces 2,000 records/s, each "
      "carrying its production time; once every partition has flowed for 5 s it sends SIGKILL to the "
      "last-started worker that runs a task. The failover time is from the kill until every partition "
      "has a record written that was produced after the kill (lines redelivered from before the kill do "
      "not count). The partitions back in less than half that time were the survivors' own; their longest stall "
      "(no newer record written, from the kill until every partition flows again: written within 1 s of "
      "production) shows whether the takeover stopped or slowed them too.")
    w("")
    w("| run | failover s (every partition) | survivors' partitions: longest stall s | per partition s | "
      "records produced | "
      "killed worker (0 = first started) |")
    w("| --- | ---: | ---: | --- | ---: | :---: |")
    for r in rows:
        victim = r.get("victim", "?") if r.get("victim") != "-1" else "none"
        if ok(r):
            w(f"| {r['subject']} | {fmt(num(r, 'failover_s'))} | {fmt(num(r, 'others_stall_s'))} | "
              f"{r.get('partitions_s', '').replace(',', ', ')} | {num(r, 'produced'):,.0f} | "
              f"{victim} |")
        else:
            w(f"| {r['subject']} | {failover_cell(r)} | | | | {victim} |")


def timing_table(w, meta, runs):
    """Step 3b: the same sink with the per-stage timing on and off, and what it costs."""
    rows = [r for r in runs if r["kind"] in TIMING_KINDS]
    if not rows:
        return
    n = int(meta.get("records", "0"))
    w("")
    w("### What measuring costs (step 3b)")
    w("")
    w("weir's sink (tasks.max=1) with `metrics.stage.timing.enabled` true and false, in the same run, the "
      "order swapped each round. The machine is shared: single runs move by 20% and more, so only a "
      "difference beyond that says anything.")
    w("")
    run_rows(w, rows, n)
    on, off = best(runs, "weir_timing_on"), best(runs, "weir_timing_off")
    if ok(on) and ok(off):
        x = ratio(num(on, "rate"), num(off, "rate"))
        w("")
        w(f"Best with timing on: {fmt_rate(on)} records/s; off: {fmt_rate(off)} records/s; on ÷ off = {100 * x:.0f}%.")


def pgsource_table(w, meta, runs):
    """Step 10: the JDBC source on PostgreSQL against COPY ... TO of the same rows."""
    records = int(meta.get("records", "0"))
    rows = [r for r in runs if r["kind"] in PGSOURCE_KINDS]
    if not rows:
        return
    w("")
    w(f"JDBC source on PostgreSQL {meta.get('postgres', '?')} (scripts/postgres.sh, on this machine): "
      f"{records:,} rows of a table (`id bigint` primary key, user id, name, e-mail, `numeric(10,2)`, boolean, "
      "`timestamptz`) read by weir's JdbcSourceConnector (`mode=incrementing incrementing.column.name=id "
      "tasks.max=1`, `batch.max.rows` at its default of 100, schemaless JSON) into a topic of 8 partitions, done when the topic's "
      "end offsets sum to N; the ceiling is PostgreSQL's own `COPY bench_source TO STDOUT` over psql "
      "(output discarded). CPU is the subject's process (weir, psql), not the server's.")
    w("")
    run_rows(w, rows, records, "row")


def pgsource_targets(w, runs):
    """The JDBC source's target: at least 60% of COPY ... TO's rows/s."""
    source, copy = best(runs, "weir_pgsource"), best(runs, "pgsource_copy")
    if not any(r["kind"] in PGSOURCE_KINDS for r in runs):
        return
    percent_target(w, "JDBC source rows/s vs COPY ... TO of the same rows", source, copy, 0.6)


def avro_table(w, meta, runs):
    """Step 11: weir's sink pipeline over JSON values and over the same events as Avro."""
    records = int(meta.get("records", "0"))
    step_table(w, runs, AVRO_KINDS, "Avro values beside JSON values (step 11)",
               "weir's sink of step 3 (FileStreamSink with InsertField, ReplaceField and MaskField, "
               f"`tasks.max=1`) over {records:,} user events in 8 partitions, keyed by user (StringConverter): once "
               "as schemaless JSON (JsonConverter, `schemas.enable=false`), once as Confluent Avro "
               "(`io.confluent.connect.avro.AvroConverter`, "
               f"`value.converter.schema.registry.url={meta.get('schema_registry', '?')}`, the bench's own Apicurio "
               "registry from scripts/schema-registry.sh), the same keys and field values, written by `preload "
               "--avro` with its own encoder under a schema it registered (`email` an optional union). The order "
               "swapped each round.",
               records)


def avro_targets(w, runs):
    """Issue 27's target: Avro values at >= 80% of JSON values' records/s (best run of each)."""
    if not any(r["kind"] in AVRO_KINDS for r in runs):
        return
    percent_target(w, "sink pipeline records/s, Avro values vs JSON values", best(runs, "weir_avro_values"),
                   best(runs, "weir_json_values"), 0.8)


def many_time(r):
    """Seconds from the first POST (bench_run's mark) to the last connector's last record."""
    return num(r, "wall_s") - num(r, "mark_s")


def many_table(w, meta, runs):
    """Step 12: many FileStreamSink connectors, created through the REST API, in one process."""
    rows = [r for r in runs if r["kind"] in MANY_KINDS]
    if not rows:
        return
    k, n = meta.get("many_connectors", "?"), int(meta.get("many_records", "0"))
    w("")
    w("### Many connectors (step 12)")
    w("")
    w(f"{k} FileStreamSink connectors (`tasks.max=1`, each its own file and consumer group `connect-<name>`, no "
      f"transforms, schemaless JSON) over one topic of {n:,} JSON user events on 4 partitions, POSTed one after "
      "the other (one curl, one connection) to `/connectors` of one standalone worker started with no connector "
      "file (weir standalone, then Kafka Connect standalone). Time is from the first POST to the moment every "
      "file holds all its records; CPU (user+sys of the whole process) and the thread count then are from the "
      "process start; peak RSS is VmHWM; peak threads is the most seen in `/proc/PID/status` (polled every "
      "25 ms)." + (f" weir's worker has `{meta['many_props']}` (WEIR_BENCH_MANY_PROPS)." if meta.get("many_props")
                   else ""))
    w("")
    w("| run | delivered | s from first POST to last record | s to REST up | CPU s | peak RSS MB | peak threads |")
    w("| --- | :---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        delivered = "all" if ok(r) else f"{int(num(r, 'records')):,} of {k}×{n:,} ({r.get('status', '?')})"
        w(f"| {r['subject']} | {delivered} | {fmt(many_time(r)) if ok(r) else '—'} | {fmt(num(r, 'mark_s'))} | "
          f"{fmt(num(r, 'cpu_s'))} | {fmt(num(r, 'rss_mb'), 0)} | {int(num(r, 'threads_max')):,} |")
    names = {r["kind"]: r.get("thread_names", "") for r in rows}
    if any(names.values()):
        w("")
        w("Threads by name when the last record landed (trailing digits cut): "
          + "; ".join(f"{'weir' if kind == 'weir_many' else 'Kafka Connect'}: {v.replace(',', ', ')}"
                      for kind, v in names.items() if v) + ".")


def many_targets(w, runs):
    """Issue 26's many-connectors targets: all delivered, RSS <= 1/10 and time <= 1/5 of Kafka Connect's."""
    if not any(r["kind"] in MANY_KINDS for r in runs):
        return
    wm, km = first(runs, "weir_many"), first(runs, "kc_many")
    w(f"| many connectors: all delivered | {'yes' if ok(wm) else 'NO'} | {'yes' if ok(km) else 'NO'} | — | "
      f"weir all | {'yes' if ok(wm) else 'NO'} |")
    for name, key, goal, limit in (("many connectors: peak RSS (MB)", "rss_mb", "≤ 1/10", 0.1),
                                   ("many connectors: s from first POST to last record", None, "≤ 1/5", 0.2)):
        if ok(wm) and ok(km):
            a, b = (num(wm, key), num(km, key)) if key else (many_time(wm), many_time(km))
            x = ratio(a, b)
            w(f"| {name} | {fmt(a, 0 if key else 2)} | {fmt(b, 0 if key else 2)} | "
              f"{'1/' + format(1 / x, '.1f') if x else '—'} | {goal} | {'yes' if 0 < x <= limit else 'NO'} |")
        else:
            w(f"| {name} | — | — | — | {goal} | NO |")


def partitions_table(w, meta, runs):
    """Step 13: weir's sink pipeline at tasks.max=8 over 8 partitions and over many."""
    records = int(meta.get("records", "0"))
    step_table(w, runs, PARTITIONS_KINDS, "Many partitions (step 13)",
               "weir's sink of step 3 (FileStreamSink with InsertField, ReplaceField and MaskField, "
               f"`tasks.max=8`) over {records:,} user events keyed by user: once on step 3's topic of 8 "
               f"partitions, once on a topic of {int(meta.get('many_partitions', '0')):,} partitions holding the same "
               "events (`preload --partitions`: the producer's partitioner spreads the 50,000 users' keys over all of "
               "them). The order swapped each round."
               + (f" Both sides' workers have `{meta['partitions_props']}` (WEIR_BENCH_PARTITIONS_PROPS)."
                  if meta.get("partitions_props") else ""), records)


def partitions_targets(w, runs):
    """Issue 26: throughput at many partitions >= 80% of 8 partitions', and peak RSS bounded
    by the credit settings, not the partition count: the highest of the many-partition runs
    at most 1.5× the highest of the 8-partition runs."""
    if not any(r["kind"] in PARTITIONS_KINDS for r in runs):
        return
    many = first(runs, "weir_partitions_many")
    p = f"{int(num(many, 'partitions')):,}" if many else "many"
    percent_target(w, f"sink records/s, {p} partitions vs 8 (tasks.max=8)", best(runs, "weir_partitions_many"),
                   best(runs, "weir_partitions_few"), 0.8)
    highest = {k: max((num(r, "rss_mb") for r in runs if r["kind"] == k and ok(r)), default=0.0)
               for k in PARTITIONS_KINDS}
    a, b = highest["weir_partitions_many"], highest["weir_partitions_few"]
    x = ratio(a, b)
    w(f"| peak RSS (MB), {p} partitions vs 8 (the highest run of each) | {fmt(a, 0) if a else '—'} | "
      f"{fmt(b, 0) if b else '—'} | {f'{x:.2f}×' if x else '—'} | ≤ 1.5× | {'yes' if 0 < x <= 1.5 else 'NO'} |")


def sweep_cpu(r):
    """CPU seconds per million records of a step-14 run, by its own input size."""
    return cpu_per_m(r, int(num(r, "n")))


def sweep_steady_cpu(r):
    """The same from the first record on: start-up's CPU (bench_run's first_cpu_s) left out."""
    rest = num(r, "n") - num(r, "first_records")
    return (num(r, "cpu_s") - num(r, "first_cpu_s")) / (rest / 1e6) if "first_cpu_s" in r and rest > 0 else 0.0


def sweep_table(w, meta, runs):
    """Step 14: weir's sink pipeline at tasks.max=1 over inputs of several sizes."""
    step_table(w, runs, SWEEP_KINDS, "CPU per record against the input's size (step 14)",
               "weir's sink of step 3 (FileStreamSink with InsertField, ReplaceField and MaskField, "
               "`tasks.max=1`: one consumer thread, no rebalance) over a fresh topic of 8 partitions of each size: "
               f"{', '.join(f'{int(n):,}' for n in meta.get('sweep_records', '').split())} JSON user events. CPU "
               "is the whole process's from its start (start-up included) to the last record.", 0)
    rows = [r for r in runs if r["kind"] in SWEEP_KINDS and ok(r) and "first_cpu_s" in r]
    if rows:
        w("")
        w("Start-up apart: the CPU the process had spent when `bench_run` first saw a record in the file "
          "(polled every 5 ms until then), and the CPU per million records after that moment.")
        w("")
        w("| run | CPU s to the first record | records by then | CPU s / M records after it |")
        w("| --- | ---: | ---: | ---: |")
        for r in rows:
            w(f"| {r['subject']} | {fmt(num(r, 'first_cpu_s'))} | {int(num(r, 'first_records')):,} | "
              f"{fmt(sweep_steady_cpu(r))} |")


def lowest_by_size(runs, sizes, value):
    """Each size's lowest `value(run)` over its delivered step-14 runs; 0 for a size with none."""
    return {n: min((value(r) for r in runs if r["kind"] == "weir_sweep" and ok(r) and int(num(r, "n")) == n),
                   default=0.0) for n in sizes}


def sweep_targets(w, runs):
    """Issue 26: CPU s per million records the same at every size, max/min <= 1.10 (the lowest
    of each size's runs)."""
    if not any(r["kind"] in SWEEP_KINDS for r in runs):
        return
    sizes = sorted({int(num(r, "n")) for r in runs if r["kind"] == "weir_sweep"})
    lowest = lowest_by_size(runs, sizes, sweep_cpu)
    name = f"CPU s per million records, highest vs lowest of {', '.join(f'{n:,}' for n in sizes)} records"
    if len(sizes) < 2 or not all(lowest.values()):
        w(f"| {name} | — | — | — | ≤ 1.10× | NO |")
        return
    hi, lo = max(lowest.values()), min(lowest.values())
    x = ratio(hi, lo)
    w(f"| {name} | {fmt(hi)} | {fmt(lo)} | {x:.2f}× | ≤ 1.10× | {'yes' if x <= 1.1 else 'NO'} |")
    steady = lowest_by_size(runs, sizes, sweep_steady_cpu)
    if all(steady.values()):
        hi, lo = max(steady.values()), min(steady.values())
        w(f"| the same from the first record on (start-up left out) | {fmt(hi)} | {fmt(lo)} | "
          f"{ratio(hi, lo):.2f}× | (for comparison) | |")


def ratio(a, b):
    return a / b if a and b else 0.0


def main():
    meta, runs = parse(sys.argv[1])
    n = int(meta.get("records", "0"))
    out = []
    w = out.append
    only_timing = all(r["kind"] in TIMING_KINDS for r in runs)
    only_avro = all(r["kind"] in AVRO_KINDS for r in runs)
    only_partitions = all(r["kind"] in PARTITIONS_KINDS for r in runs)
    only_sweep = all(r["kind"] in SWEEP_KINDS for r in runs)
    w("# weir: what measuring costs, bench/run.sh --only timing" if only_timing
      else "# weir: Avro values beside JSON values, bench/run.sh --only avro" if only_avro
      else "# weir: many partitions, bench/run.sh --only partitions" if only_partitions
      else "# weir: CPU per record against the input's size, bench/run.sh --only sweep" if only_sweep
      else "# weir vs Apache Kafka Connect: bench/run.sh")
    w("")
    only_failover = all(r["kind"] in FAILOVER_KINDS for r in runs)
    only_jdbc = all(r["kind"] in JDBC_KINDS for r in runs)
    only_postgres = all(r["kind"] in PG_KINDS for r in runs)
    only_cdc = all(r["kind"] in CDC_KINDS for r in runs)
    only_pgsource = all(r["kind"] in PGSOURCE_KINDS for r in runs)
    only_many = all(r["kind"] in MANY_KINDS for r in runs)
    if only_timing:
        w(f"- the cost-of-measuring pair only: `bench/run.sh --only timing --records {n}`; {n:,} JSON user "
          "events (~180 bytes), topic of 8 partitions")
    elif only_cdc:
        w(f"- the CDC runs only: `bench/run.sh --only cdc --records {n}`")
    elif only_pgsource:
        w(f"- the JDBC source on PostgreSQL only: `bench/run.sh --only pgsource --records {n}`")
    elif only_avro:
        w(f"- the Avro pair only: `bench/run.sh --only avro --records {n}`; {meta.get('rounds', '1')} round(s)")
    elif only_partitions:
        w(f"- the many-partitions step only: `bench/run.sh --only partitions --records {n} --many-partitions "
          f"{meta.get('many_partitions', '?')} --rounds {meta.get('rounds', '1')}`")
    elif only_sweep:
        w(f"- the records sweep only: `bench/run.sh --only sweep --sweep-records \"{meta.get('sweep_records', '?')}\" "
          f"--rounds {meta.get('rounds', '1')}`")
    elif only_many:
        w(f"- the many-connectors step only: `bench/run.sh --only many --connectors {meta.get('many_connectors', '?')} "
          f"--many-records {meta.get('many_records', '?')}`")
    elif only_postgres:
        w(f"- the PostgreSQL step only: `bench/run.sh --only postgres --records {n}`")
    elif only_failover:
        w("- the failover runs only: `bench/run.sh --only failover`")
    elif only_jdbc:
        w(f"- the JDBC step only: `bench/run.sh --only jdbc --records {n}`; {n:,} JSON user events (~180 bytes), "
          "topic of 8 partitions")
    else:
        w(f"- records: {n:,} JSON user events (~180 bytes), topic of 8 partitions; `bench/run.sh --records {n}`")
    w(f"- machine: {meta.get('cores', '?')} cores ({meta.get('cpu', '?')}), {meta.get('memory', '?')} memory; "
      f"load average before: {meta.get('load_before', '?')}, after: {meta.get('load_after', '?')}")
    w(f"- date: {meta.get('date', '?')}; weir {meta.get('weir', '?')} ({meta.get('buildtype', 'release')} build); "
      f"scheduling priority of the whole run (broker included): nice {meta.get('nice', '0')}")
    w(f"- versions: Kafka broker {meta.get('kafka', '?')}, Kafka Connect {meta.get('connect', '?')} on "
      f"{meta.get('java', '?')}, librdkafka {meta.get('librdkafka', '?')}, SQLite {meta.get('sqlite', '?')}")
    if not (only_timing or only_avro or only_partitions or only_sweep):
        w(f"- Kafka Connect JVM: `{meta.get('connect_jvm', '?')}` (connect-standalone.sh's defaults)")
    if only_timing:
        timing_table(w, meta, runs)
        notes = meta.get("notes", "")
        if notes:
            w("")
            w(notes)
        print("\n".join(out))
        return
    # A step run alone (--only): its own table and its own targets.
    for alone, table, targets in ((only_partitions, partitions_table, partitions_targets),
                                  (only_sweep, sweep_table, sweep_targets),
                                  (only_many, many_table, many_targets),
                                  (only_avro, avro_table, avro_targets),
                                  (only_cdc, cdc_table, cdc_targets),
                                  (only_pgsource, pgsource_table, pgsource_targets),
                                  (only_postgres, postgres_table, postgres_targets),
                                  (only_failover, failover_table, failover_target)):
        if alone:
            table(w, meta, runs)
            w("")
            w("| target | weir | reference | ratio | goal | met |")
            w("| --- | ---: | ---: | ---: | ---: | :---: |")
            targets(w, runs)
            print("\n".join(out))
            return
    w("")
    w("Each figure is measured from the process start (fork) to the last record written (sink file lines, "
      "table rows, topic end offsets); CPU is user+sys of the whole process up to that moment; peak RSS is "
      f"VmHWM. In this order, on the same broker; {meta.get('rounds', '1')} round(s) of each compared subject, "
      "and each target compares the best run of each side.")
    w("")
    w("| run | records/s | s to last record | s to first record | CPU s | CPU s / M records | peak RSS MB | notes |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in runs:
        if r["kind"] in ("weir_sink", "kc_sink"):
            extra = int(num(r, "records")) - n
            # bench_run stops at the N-th line: lines re-delivered after a rebalance
            # (at-least-once) count too, so such a run looks slightly faster.
            note = f"≥ {extra:,} lines re-delivered after a rebalance" if extra > 0 else ""
            w(row(r["subject"], r, n, note))
    ceiling = best(runs, "ceiling") or first(runs, "ceiling")
    if not only_jdbc:
        for r in runs:
            if r["kind"] == "ceiling":
                w(row(r["subject"] + " (ceiling)", r, n))
            elif r["kind"] == "ceiling_one_per_call":
                w(row(r["subject"], r, n, "what weir's consumer must do on librdkafka < 2.1.0; not the ceiling"))
    jdbc = best(runs, "weir_jdbc") or first(runs, "weir_jdbc")
    jdbc_runs = [r for r in runs if r["kind"] == "weir_jdbc"] or [None]
    for r in jdbc_runs:
        w(row(r["subject"] if r else "weir JDBC sink (SQLite upsert)", r, n))
    for r in runs:
        if r["kind"] in ("weir_source", "kc_source"):
            w(row(r["subject"], r, n))
        elif r["kind"] == "source_ceiling":
            w(row(r["subject"] + " (source ceiling)", r, n))
    timing_table(w, meta, runs)
    failover_table(w, meta, runs)
    raw = first(runs, "raw_sqlite")
    jdbc_baselines(w, raw, n, meta.get('rounds', '1'))
    postgres_table(w, meta, runs)
    cdc_table(w, meta, runs)
    pgsource_table(w, meta, runs)
    avro_table(w, meta, runs)
    many_table(w, meta, runs)
    partitions_table(w, meta, runs)
    sweep_table(w, meta, runs)
    wsink, ksink = best(runs, "weir_sink"), best(runs, "kc_sink")
    if not only_jdbc:
        w("")
        w(f"Best `tasks.max`: weir {wsink.get('tasks', '?') if wsink else '—'}, "
          f"Kafka Connect {ksink.get('tasks', '?') if ksink else '—'} (the targets below compare the best of each).")
    w("")
    w("## Targets")
    w("")
    w("| target | weir | reference | ratio | goal | met |")
    w("| --- | ---: | ---: | ---: | ---: | :---: |")

    def target(name, a, b, r, goal, met, unit=""):
        w(f"| {name} | {a}{unit} | {b}{unit} | {r} | {goal} | {'yes' if met else 'NO'} |")

    if ok(wsink) and ok(ksink):
        x = ratio(num(wsink, "rate"), num(ksink, "rate"))
        target("sink records/s vs Kafka Connect", fmt_rate(wsink), fmt_rate(ksink), f"{x:.1f}×", "≥ 12×", x >= 12)
    if ok(wsink) and ok(ceiling):
        x = ratio(num(wsink, "rate"), num(ceiling, "rate"))
        target("sink records/s vs bare consumer", fmt_rate(wsink), fmt_rate(ceiling), f"{100 * x:.0f}%", "≥ 85%",
               x >= 0.85)
    if ok(wsink) and ok(ksink):
        a, b = cpu_per_m(wsink, n), cpu_per_m(ksink, n)
        x = ratio(a, b)
        target("CPU s per million records", fmt(a), fmt(b), f"1/{1 / x:.1f}" if x else "—", "≤ 1/5", 0 < x <= 0.2)
        a, b = num(wsink, "rss_mb"), num(ksink, "rss_mb")
        x = ratio(a, b)
        target("peak RSS (MB)", fmt(a, 0), fmt(b, 0), f"1/{1 / x:.1f}" if x else "—", "≤ 1/10", 0 < x <= 0.1)
    # Startup is compared at tasks.max=1 for both: with more tasks the first record
    # also waits for the consumer group to settle, which is not the process starting.
    def quickest_start(kind, fallback):
        ones = [r for r in runs if r["kind"] == kind and r.get("tasks") == "1" and ok(r)]
        return min(ones, key=lambda r: num(r, "first_s")) if ones else fallback

    w1, k1 = quickest_start("weir_sink", wsink), quickest_start("kc_sink", ksink)
    if ok(w1) and ok(k1):
        a, b = num(w1, "first_s"), num(k1, "first_s")
        x = ratio(b, a)
        target(f"startup to first record, s (tasks.max={w1.get('tasks')} both)", fmt(a, 3), fmt(b, 3),
               f"{x:.1f}× faster", "≥ 20×", x >= 20)
    if ok(jdbc) and ok(raw):
        x = ratio(num(jdbc, "rate"), num(raw, "rate"))
        target("JDBC sink vs raw SQLite insert of the same rows (rows/s)", fmt_rate(jdbc), fmt_rate(raw),
               f"{100 * x:.0f}%", "≥ 85%", x >= 0.85)
        synthetic = num(raw, "synthetic_rate")
        if synthetic:
            x = ratio(num(jdbc, "rate"), synthetic)
            w(f"| JDBC sink vs raw SQLite insert of synthetic rows (the earlier reference) | {fmt_rate(jdbc)} | "
              f"{synthetic:,.0f} | {100 * x:.0f}% | (for comparison) | |")
    wsrc, ksrc = first(runs, "weir_source"), first(runs, "kc_source")
    if ok(wsrc) and ok(ksrc):
        x = ratio(num(wsrc, "rate"), num(ksrc, "rate"))
        target("source records/s vs Kafka Connect", fmt_rate(wsrc), fmt_rate(ksrc), f"{x:.1f}×", "≥ 5×", x >= 5)
    elif not only_jdbc:
        w(f"| source records/s vs Kafka Connect | {fmt_rate(wsrc) if ok(wsrc) else 'not available yet'} | "
          f"{fmt_rate(ksrc)} | — | ≥ 5× | NO |")
    if any(r["kind"] == "source_ceiling" for r in runs):
        percent_target(w, "source records/s vs a bare librdkafka producer of the same lines", wsrc,
                       first(runs, "source_ceiling"), 0.6)
    failover_target(w, runs)
    postgres_targets(w, runs)
    cdc_targets(w, runs)
    pgsource_targets(w, runs)
    avro_targets(w, runs)
    many_targets(w, runs)
    partitions_targets(w, runs)
    sweep_targets(w, runs)
    if ok(jdbc) and ok(raw) and num(raw, "synthetic_rate"):
        w("")
        w("The JDBC target compares the sink with SQLite inserting the rows the sink wrote, in the order the "
          "consumer delivered them (8 partitions interleaved: inserts all over the rowid B-tree); the synthetic "
          "reference inserts 6-column rows with keys in order (appends), which is cheaper work for SQLite.")
    w("")
    w("Profile, and why the missed targets are missed: [profile.md](profile.md).")
    notes = meta.get("notes", "")
    if notes:
        w("")
        w(notes)
    print("\n".join(out))


if __name__ == "__main__":
    main()
