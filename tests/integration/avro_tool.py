#!/usr/bin/env python3
"""Confluent-framed Avro without weir, for the Avro integration tests (issue 27).

The framing is read and written by hand (byte 0: magic 0, bytes 1-4: the schema id,
big-endian, then Avro binary); fastavro does the Avro and the registry is asked over
plain HTTP. Kafka is the test's business: values travel as hex, one per line.

  avro_tool.py decode REGISTRY_URL < hex lines   -> one JSON object per line:
      {"id": N, "value": ...}
  avro_tool.py encode REGISTRY_URL SUBJECT SCHEMA_JSON < JSON lines -> hex lines
      (registers SCHEMA_JSON under SUBJECT first)
  avro_tool.py id REGISTRY_URL SUBJECT           -> the id of SUBJECT's latest version
  avro_tool.py schema REGISTRY_URL SUBJECT       -> its schema, indented, keys sorted
  avro_tool.py same JSON_FILE < decode's output  -> "N equal", or the first difference
      (exit 1): each decoded value against the JSON value on the same line of JSON_FILE

JSON for Avro's logical types: decimals as their exact text, dates as days since the
epoch, times and timestamps as milliseconds, bytes as hex.
"""
import datetime
import decimal
import io
import json
import struct
import sys
import urllib.request

import fastavro

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def registry(url, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url.rstrip("/") + path, data=data,
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def plain(v):
    """A decoded Avro value as JSON can carry it."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        return int((v - EPOCH) / datetime.timedelta(milliseconds=1))
    if isinstance(v, datetime.date):
        return (v - EPOCH.date()).days
    if isinstance(v, datetime.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000
    if isinstance(v, bytes):
        return v.hex()
    return v


def decode(url):
    schemas = {}
    for line in sys.stdin:
        raw = bytes.fromhex(line.strip())
        if len(raw) < 5 or raw[0] != 0:
            raise SystemExit(f"not Confluent-framed Avro: {raw[:8].hex()}")
        (schema_id,) = struct.unpack(">I", raw[1:5])
        if schema_id not in schemas:
            text = registry(url, f"/schemas/ids/{schema_id}")["schema"]
            schemas[schema_id] = fastavro.parse_schema(json.loads(text))
        value = fastavro.schemaless_reader(io.BytesIO(raw[5:]), schemas[schema_id])
        print(json.dumps({"id": schema_id, "value": plain(value)}, sort_keys=True))


def encode(url, subject, schema_text):
    schema_id = registry(url, f"/subjects/{subject}/versions", {"schema": schema_text})["id"]
    schema = fastavro.parse_schema(json.loads(schema_text))
    for line in sys.stdin:
        out = io.BytesIO()
        out.write(struct.pack(">bI", 0, schema_id))
        fastavro.schemaless_writer(out, schema, json.loads(line, parse_float=decimal.Decimal))
        print(out.getvalue().hex())


def same(expected_file):
    with open(expected_file, encoding="utf-8") as f:
        expected = [json.loads(line) for line in f if line.strip()]
    decoded = [json.loads(line)["value"] for line in sys.stdin if line.strip()]
    if len(decoded) != len(expected):
        raise SystemExit(f"{len(decoded)} decoded values, {len(expected)} expected")
    for i, (d, e) in enumerate(zip(decoded, expected)):
        if d != e:
            raise SystemExit(f"value {i}: decoded {json.dumps(d, sort_keys=True)}, "
                             f"expected {json.dumps(e, sort_keys=True)}")
    print(f"{len(decoded)} equal")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "decode":
        decode(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "id":
        print(registry(sys.argv[2], f"/subjects/{sys.argv[3]}/versions/latest")["id"])
    elif len(sys.argv) == 4 and sys.argv[1] == "schema":
        latest = registry(sys.argv[2], f"/subjects/{sys.argv[3]}/versions/latest")
        print(json.dumps(json.loads(latest["schema"]), indent=1, sort_keys=True))
    elif len(sys.argv) == 3 and sys.argv[1] == "same":
        same(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "encode":
        encode(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
