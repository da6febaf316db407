// Converters: Kafka Connect's Converter contract (bytes <-> schema + value), decoding
// into a DecodedBatch's arena and encoding back into bytes.
//
// weir's converters follow Kafka Connect's class names and config keys:
//   org.apache.kafka.connect.json.JsonConverter        (JsonConverter, Json)
//   org.apache.kafka.connect.storage.StringConverter   (StringConverter, String)
//   org.apache.kafka.connect.converters.ByteArrayConverter (ByteArrayConverter, ByteArray)
//   io.confluent.connect.avro.AvroConverter             (AvroConverter, Avro)
// and plugins add theirs (weir/converter.hpp, adapted by plugin_converter.hpp).
//
// Threading: a converter keeps per-instance scratch state (parser, buffers, schema
// caches): one instance serves one actor at a time. Make one per stage.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"

namespace weir::runtime::convert {

class Converter {
public:
  virtual ~Converter() = default;

  /// Kafka's full class name, for error records and DLQ headers.
  virtual std::string_view class_name() const noexcept = 0;

  /// Kafka Connect passes the record's topic to every call; most converters ignore
  /// it. A converter that needs it (the AvroConverter names its registry subject
  /// after it) returns true here, and RecordCodec then calls set_topic() with each
  /// record's topic before its to_connect() / serialize(). The others are not called.
  virtual bool uses_topic() const noexcept { return false; }
  virtual void set_topic(std::string_view /*topic*/) {}

  /// Decodes one serialized key or value (std::nullopt: a Kafka null) into `out` and
  /// `schema`. New values live in `batch.arena()` and schemas are retained by
  /// `batch`. `bytes` must stay valid as long as `batch` (RecordCodec passes views
  /// into `batch.raw()`): converters view them instead of copying where they can.
  /// Throws data::DataError for malformed input.
  virtual void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch,
                          data::Value& out, const data::Schema*& schema) = 0;

  /// Serializes `v` (with `schema`, or schemaless when nullptr) by appending to
  /// `out`; returns false when the result is a Kafka null (nothing appended).
  /// Throws data::DataError when the value cannot be serialized.
  virtual bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) = 0;

  /// Like from_connect, into a buffer the converter owns: the view is valid until the
  /// next call on this converter. std::nullopt for a Kafka null. The batch encoder
  /// uses this to copy each record's bytes once (converters may override it to skip
  /// their own intermediate copy).
  virtual std::optional<std::string_view> serialize(const data::Value& v, const data::Schema* schema) {
    scratch_.clear();
    if (!from_connect(v, schema, scratch_))
      return std::nullopt;
    return std::string_view(scratch_);
  }

private:
  std::string scratch_;
};

/// A converter's registry entry.
struct ConverterInfo {
  std::string class_name;
  std::vector<std::string> aliases;
  std::function<const ConfigDef&()> config_def;
  std::function<std::unique_ptr<Converter>(const Config& config, bool is_key)> make;
  /// A plugin's version and file; empty for built-ins (their version is weir's).
  std::string version = {};
  std::string path = {};

  bool plugin() const noexcept { return !path.empty(); }
};

/// Every converter: the built-ins, then the plugins' in load order. Entries never
/// move (a deque): pointers from find_converter stay valid.
const std::deque<ConverterInfo>& converters();
const ConverterInfo* find_converter(std::string_view class_name_or_alias) noexcept;

/// Adds a plugin's converter at start-up (before any connector starts). Throws
/// std::invalid_argument naming a class name or alias that is already taken.
void add_converter(ConverterInfo info);

/// Checks a `key.converter` / `value.converter` value as Kafka Connect loads the
/// class: a name no converter has fails with "Class X could not be found.", so a
/// typo is refused when the config is validated, not when a task starts. Empty
/// passes (a connector then uses the worker's converter).
Validator converter_class();

/// Kafka Connect's default header converter, weir's built-in one: headers are
/// written and read as its text (see header_text.hpp). A codec without a header
/// converter object uses it.
inline constexpr std::string_view simple_header_converter = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

/// A header converter other than SimpleHeaderConverter (only plugins provide them).
class HeaderConverter {
public:
  virtual ~HeaderConverter() = default;
  virtual std::string_view class_name() const noexcept = 0;
  /// Decodes one header's bytes into `out` and `schema`; throws data::DataError.
  virtual void to_connect(std::string_view topic, std::string_view key, const std::optional<std::string_view>& bytes,
                          data::DecodedBatch& batch, data::Value& out, const data::Schema*& schema) = 0;
  /// Appends a header's bytes to `out`; false for a null (nothing appended).
  virtual bool from_connect(std::string_view topic, std::string_view key, const data::Value& v,
                            const data::Schema* schema, std::string& out) = 0;
};

struct HeaderConverterInfo {
  std::string class_name;
  std::vector<std::string> aliases;
  std::function<const ConfigDef&()> config_def;
  std::function<std::unique_ptr<HeaderConverter>(const Config& config)> make;
  std::string version;
  std::string path;
};

/// Plugin header converters, in load order.
const std::deque<HeaderConverterInfo>& header_converters();
const HeaderConverterInfo* find_header_converter(std::string_view class_name_or_alias) noexcept;
/// Adds a plugin's header converter at start-up; throws std::invalid_argument for a
/// name already taken (SimpleHeaderConverter's too).
void add_header_converter(HeaderConverterInfo info);

/// Checks a `header.converter` value: empty, SimpleHeaderConverter (by class or
/// simple name) or a plugin's header converter. A key/value converter class is
/// refused as not supported as a header converter rather than ignored, and a name no
/// class has as "Class X could not be found.".
Validator header_converter_class();

/// The header converter `class_name` names with its own keys (`header.converter.*`
/// stripped; `key_prefix` names them in errors), or nullptr for SimpleHeaderConverter
/// (empty included). Throws weir::ConfigError.
std::unique_ptr<HeaderConverter> make_header_converter(std::string_view class_name,
                                                       const std::map<std::string, std::string>& config,
                                                       std::string_view key_prefix = "header.converter.");

/// Creates a converter from its class name and its own keys (`schemas.enable`, ...,
/// already stripped of `key.converter.` / `value.converter.`). `key_prefix` is
/// prepended to key names in errors, so a ConfigError names the key as the user
/// wrote it (`value.converter.schemas.enable`). Throws weir::ConfigError.
std::unique_ptr<Converter> make_converter(std::string_view class_name,
                                          const std::map<std::string, std::string>& config,
                                          bool is_key, std::string_view key_prefix = {});

/// Decodes and encodes whole batches with a key and a value converter.
///
/// A malformed key or value never throws out of decode()/encode(): the record is
/// marked Failed with a RecordError (stage KEY_CONVERTER / VALUE_CONVERTER, the
/// converter's class name, the exception class and message) for the error policy.
/// A data::RetriableError (a schema registry that cannot be reached) is not the
/// record's: it propagates, and the task fails rather than tolerate an outage.
class RecordCodec {
public:
  /// Without `header`, headers are read and written as SimpleHeaderConverter does.
  RecordCodec(std::unique_ptr<Converter> key, std::unique_ptr<Converter> value,
              std::unique_ptr<HeaderConverter> header = nullptr);

  /// Takes `raw` into `out` (reusing `out`'s memory) and decodes every record.
  void decode(Batch raw, data::DecodedBatch& out);
  data::DecodedBatch decode(Batch raw);

  /// Appends every Live record of `in` to `out`, serialized; a record that fails to
  /// serialize is marked Failed in `in` with a RecordError and is not appended.
  /// Header values: strings and bytes as they are, null as null, other values as
  /// their schemaless JSON text.
  void encode(data::DecodedBatch& in, Batch& out);

  Converter& key_converter() noexcept { return *key_; }
  Converter& value_converter() noexcept { return *value_; }

private:
  /// With a header converter: record `i`'s headers decoded (or the record Failed).
  void decode_headers(data::DecodedBatch& batch, uint32_t i);
  /// Record `i`'s headers into header_buf_ / header_spans_; false (record Failed)
  /// when one cannot be written.
  bool encode_headers(data::DecodedBatch& batch, uint32_t i);

  std::unique_ptr<Converter> key_;
  std::unique_ptr<Converter> value_;
  std::unique_ptr<HeaderConverter> header_;
  bool key_topic_ = false;   ///< key_->uses_topic(), asked once
  bool value_topic_ = false;
  std::string header_buf_;
  std::vector<std::optional<std::pair<size_t, size_t>>> header_spans_; ///< into header_buf_, per header
};

} // namespace weir::runtime::convert
