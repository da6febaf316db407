// Converters a plugin provides: Kafka Connect's Converter (bytes <-> a value with its
// schema) and HeaderConverter (the same for one header), over weir's data model
// (weir/data/value.hpp).
//
// A connector or the worker names one in `key.converter` / `value.converter` by its
// class name or an alias; the keys under `key.converter.` / `value.converter.` (prefix
// taken off) are parsed by the converter's `define` and given to its constructor, with
// whether it converts keys or values — as Kafka's `configure(configs, isKey)`. A
// header converter is named in `header.converter` and configured from
// `header.converter.*`; it replaces SimpleHeaderConverter, Kafka Connect's default,
// for every header of the connector's records.
//
// Memory: to_connect() builds the value in the batch's arena (`batch.arena()`) and
// keeps its schema alive with `batch.retain(schema)`, which returns the pointer to
// store. The input bytes stay valid as long as the batch: a string value may view them
// instead of copying (`Value::string(bytes->substr(...))`).
//
// Errors: malformed input or a value that cannot be serialized is bad data: throw
// data::DataError. The record is reported with stage KEY_CONVERTER / VALUE_CONVERTER
// and the converter's class name, and the connector's errors.tolerance decides. A
// service the converter needs being down (a registry) is not the record's fault:
// throw data::RetriableError, which fails the task rather than skip records.
//
// Threading: each task (and each direction) has its own instance, called from one
// thread at a time.
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weir/config.hpp"
#include "weir/data/error.hpp"
#include "weir/record.hpp"

namespace weir {

class Converter {
public:
  virtual ~Converter() = default;

  /// Kafka's toConnectData: decodes `bytes` (std::nullopt: a Kafka null) of a record
  /// of `topic` into `value` and `schema` (nullptr: schemaless).
  virtual void to_connect(std::string_view topic, const std::optional<std::string_view>& bytes,
                          RecordBatch& batch, data::Value& value, const data::Schema*& schema) = 0;

  /// Kafka's fromConnectData: appends the serialized `value` (with `schema`, or
  /// schemaless when nullptr) to `out`; returns false for a Kafka null (nothing
  /// appended).
  virtual bool from_connect(std::string_view topic, const data::Value& value, const data::Schema* schema,
                            std::string& out) = 0;
};

/// A converter class a plugin provides.
struct ConverterDescriptor {
  /// Full class name (`value.converter=`), unique in the worker.
  std::string class_name;
  std::vector<std::string> aliases;
  /// The plugin's own version, listed by `GET /connector-plugins?connectorsOnly=false`.
  std::string version;
  /// Declares the converter's keys (without the `key.converter.` prefix).
  std::function<void(ConfigDef&)> define;
  /// A new instance; `is_key` says whether it converts keys or values.
  std::function<std::unique_ptr<Converter>(const Config&, bool is_key)> make;
};

class HeaderConverter {
public:
  virtual ~HeaderConverter() = default;

  /// Kafka's toConnectHeader: decodes header `key`'s bytes (std::nullopt: null) of a
  /// record of `topic` into `value` and `schema` (nullptr: schemaless).
  virtual void to_connect(std::string_view topic, std::string_view key, const std::optional<std::string_view>& bytes,
                          RecordBatch& batch, data::Value& value, const data::Schema*& schema) = 0;

  /// Kafka's fromConnectHeader: appends the header's bytes to `out`; returns false
  /// for a null header value (nothing appended).
  virtual bool from_connect(std::string_view topic, std::string_view key, const data::Value& value,
                            const data::Schema* schema, std::string& out) = 0;
};

struct HeaderConverterDescriptor {
  std::string class_name;
  std::vector<std::string> aliases;
  std::string version;
  /// Declares the converter's keys (without the `header.converter.` prefix).
  std::function<void(ConfigDef&)> define;
  std::function<std::unique_ptr<HeaderConverter>(const Config&)> make;
};

template <class T>
concept ConverterClass = std::derived_from<T, Converter> && std::constructible_from<T, const Config&, bool>
                         && requires(ConfigDef& def) { T::define(def); };

template <class T>
concept HeaderConverterClass = std::derived_from<T, HeaderConverter> && std::constructible_from<T, const Config&>
                               && requires(ConfigDef& def) { T::define(def); };

} // namespace weir
