// io.confluent.connect.avro.AvroConverter: Avro with its schema in a Confluent Schema
// Registry, in Confluent's wire format: byte 0 = magic 0, bytes 1-4 = the schema id
// (big-endian), then the Avro binary of the value.
//
// Decoding reads the id, fetches the writer's schema once per id (GET
// /schemas/ids/{id}) and its version under the subject once per id and subject (POST
// /subjects/{subject}: the Connect version where the schema has no connect.version),
// maps it to a Connect schema (avro_schema.hpp) and decodes the binary straight into
// the batch arena (avro_binary.hpp). Encoding maps the record's
// Connect schema to Avro as Confluent's AvroData does, registers it under the subject
// its strategy names (or looks it up), caches schema -> id and writes the framing.
//
// Keys (Confluent's): schema.registry.url (required, a comma-separated list),
// auto.register.schemas (true), use.latest.version (false; with auto.register.schemas
// false, the value is written in the subject's latest schema), latest.compatibility.strict
// (true: that latest must read the record's schema), key.subject.name.strategy /
// value.subject.name.strategy
// (TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy),
// basic.auth.credentials.source (URL | USER_INFO), basic.auth.user.info,
// enhanced.avro.schema.support (false; true: enums written back as Avro enums, Union
// fields of named types by full name), connect.meta.data
// (true), schemas.cache.config (1000), scrub.invalid.names (false: names Avro refuses
// fail the record; true: rewritten as AvroData's scrubName).
// See docs/transforms.md, "AvroConverter".
//
// Needs the record's topic (subjects are named after it): uses_topic() is true.
#pragma once

#include <memory>

#include "runtime/convert/converter.hpp"

namespace weir::runtime::convert {

class AvroConverter final : public Converter {
public:
  static constexpr std::string_view class_name_v = "io.confluent.connect.avro.AvroConverter";

  static const ConfigDef& config_def();

  AvroConverter(const Config& config, bool is_key);
  ~AvroConverter() override;

  std::string_view class_name() const noexcept override { return class_name_v; }
  bool uses_topic() const noexcept override { return true; }
  void set_topic(std::string_view topic) override { topic_.assign(topic); }
  void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch,
                  data::Value& out, const data::Schema*& schema) override;
  bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string topic_;
};

} // namespace weir::runtime::convert
