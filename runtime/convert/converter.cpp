#include "runtime/convert/converter.hpp"

#include "runtime/convert/avro_converter.hpp"
#include "runtime/convert/byte_array_converter.hpp"
#include "runtime/convert/header_text.hpp"
#include "runtime/convert/json_converter.hpp"
#include "runtime/convert/string_converter.hpp"
#include "runtime/convert/text.hpp"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace weir::runtime::convert {

using namespace runtime::data;

namespace {

template <class T>
ConverterInfo info(std::vector<std::string> aliases) {
  return {std::string(T::class_name_v), std::move(aliases), &T::config_def,
          [](const Config& c, bool is_key) -> std::unique_ptr<Converter> {
            return std::make_unique<T>(c, is_key);
          }};
}

std::deque<ConverterInfo>& table() {
  // Aliases as Kafka Connect's plugin loader derives them: the simple class name and
  // the name without its "Converter" suffix.
  static std::deque<ConverterInfo> all{
      info<JsonConverter>({"JsonConverter", "Json"}),
      info<StringConverter>({"StringConverter", "String"}),
      info<ByteArrayConverter>({"ByteArrayConverter", "ByteArray"}),
      info<AvroConverter>({"AvroConverter", "Avro"}),
  };
  return all;
}

} // namespace

const std::deque<ConverterInfo>& converters() { return table(); }

const ConverterInfo* find_converter(std::string_view name) noexcept {
  name = trim(name);
  for (const auto& c : converters())
    if (c.class_name == name || std::find(c.aliases.begin(), c.aliases.end(), name) != c.aliases.end())
      return &c;
  return nullptr;
}

void add_converter(ConverterInfo info) {
  if (info.class_name.empty())
    throw std::invalid_argument("a converter needs a class name");
  for (std::string_view name : info.aliases)
    if (find_converter(name))
      throw std::invalid_argument("converter class or alias " + std::string(name) + " is already taken");
  if (find_converter(info.class_name))
    throw std::invalid_argument("converter class " + info.class_name + " is already taken");
  table().push_back(std::move(info));
}

Validator converter_class() {
  return [](const ConfigValue& value) -> std::optional<std::string> {
    const auto* name = std::get_if<std::string>(&value);
    if (!name || trim(*name).empty() || find_converter(*name))
      return std::nullopt;
    return "Class " + *name + " could not be found.";
  };
}

namespace {

std::deque<HeaderConverterInfo>& header_table() {
  static std::deque<HeaderConverterInfo> all;
  return all;
}

bool is_simple_header_converter(std::string_view name) {
  return name.empty() || name == simple_header_converter || name == "SimpleHeaderConverter";
}

} // namespace

const std::deque<HeaderConverterInfo>& header_converters() { return header_table(); }

const HeaderConverterInfo* find_header_converter(std::string_view name) noexcept {
  name = trim(name);
  for (const auto& c : header_converters())
    if (c.class_name == name || std::find(c.aliases.begin(), c.aliases.end(), name) != c.aliases.end())
      return &c;
  return nullptr;
}

void add_header_converter(HeaderConverterInfo info) {
  std::vector<std::string> names{info.class_name};
  names.insert(names.end(), info.aliases.begin(), info.aliases.end());
  for (const auto& name : names)
    if (name.empty() || is_simple_header_converter(name) || find_header_converter(name))
      throw std::invalid_argument("header converter class or alias '" + name + "' is already taken");
  header_table().push_back(std::move(info));
}

std::unique_ptr<HeaderConverter> make_header_converter(std::string_view class_name,
                                                       const std::map<std::string, std::string>& config,
                                                       std::string_view key_prefix) {
  if (is_simple_header_converter(trim(class_name)))
    return nullptr;
  const auto* info = find_header_converter(class_name);
  std::string key{key_prefix.substr(0, key_prefix.size() - 1)};
  if (!info)
    throw ConfigError(key, invalid_value_message(key, class_name, "Class " + std::string(class_name) +
                                                                   " could not be found."));
  ConfigDef prefixed;
  for (auto k : info->config_def().keys()) {
    k.name = std::string(key_prefix) + k.name;
    prefixed.define(std::move(k));
  }
  std::map<std::string, std::string> as_given;
  for (const auto& [k, v] : config)
    as_given.emplace(std::string(key_prefix) + k, v);
  prefixed.parse(as_given); // errors name the keys as the user wrote them
  return info->make(info->config_def().parse(config));
}

Validator header_converter_class() {
  return [](const ConfigValue& value) -> std::optional<std::string> {
    const auto* name = std::get_if<std::string>(&value);
    if (!name) return std::nullopt;
    const std::string given{trim(*name)};
    if (is_simple_header_converter(given) || find_header_converter(given)) return std::nullopt;
    if (find_converter(given))
      return "weir writes and reads headers as " + std::string(simple_header_converter) +
             " does (Kafka Connect's default); " + given + " is not supported as a header converter yet.";
    return "Class " + given + " could not be found.";
  };
}

std::unique_ptr<Converter> make_converter(std::string_view class_name,
                                          const std::map<std::string, std::string>& config,
                                          bool is_key, std::string_view key_prefix) {
  const ConverterInfo* info = find_converter(class_name);
  if (!info) {
    std::string key = std::string(key_prefix.empty() ? std::string_view(is_key ? "key.converter" : "value.converter")
                                                     : key_prefix.substr(0, key_prefix.size() - 1));
    throw ConfigError(key, invalid_value_message(key, class_name,
                                                          "Class " + std::string(class_name) + " could not be found."));
  }
  // Validate with the user's key names, so an error names the key as written. A key
  // of another converter is ignored with a warning, as Kafka Connect ignores it
  // (`value.converter.schemas.enable` left behind when a connector moves to
  // StringConverter must not fail its tasks); a key no converter has is a typo, and
  // an error.
  ConfigDef prefixed;
  for (auto key : info->config_def().keys()) {
    key.name = std::string(key_prefix) + key.name;
    prefixed.define(std::move(key));
  }
  auto elsewhere = [&](const std::string& k) {
    return std::any_of(converters().begin(), converters().end(),
                       [&](const ConverterInfo& other) { return other.config_def().find(k) != nullptr; });
  };
  std::map<std::string, std::string> as_given, own;
  for (const auto& [k, v] : config) {
    if (!info->config_def().find(k) && elsewhere(k)) {
      spdlog::warn("{}{} is not a configuration of {} and is ignored", key_prefix, k, info->class_name);
      continue;
    }
    as_given.emplace(std::string(key_prefix) + k, v);
    own.emplace(k, v);
  }
  prefixed.parse(as_given);
  own.insert_or_assign("converter.type", is_key ? "key" : "value");
  return info->make(info->config_def().parse(own), is_key);
}

RecordCodec::RecordCodec(std::unique_ptr<Converter> key, std::unique_ptr<Converter> value,
                         std::unique_ptr<HeaderConverter> header)
    : key_(std::move(key)), value_(std::move(value)), header_(std::move(header)),
      key_topic_(key_->uses_topic()), value_topic_(value_->uses_topic()) {}

void RecordCodec::decode(Batch raw, DecodedBatch& out) {
  out.reset(std::move(raw));
  const Batch& b = out.raw();
  for (uint32_t i = 0; i < out.size(); ++i) {
    auto& rec = out[i];
    const auto& ref = b[rec.raw_index];
    if (i + 2 < out.size()) {
      // The value two records on: its first cache lines (the decoder's first pass
      // reads every byte, and waited on them). A tombstone's data is null, and
      // null + 64 is undefined behaviour: skipped.
      const auto& ahead = b[out[i + 2].raw_index];
      if (const char* p = b.bytes(ahead.value).data(); p != nullptr) {
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
        __builtin_prefetch(p + 128);
      }
    }
    try {
      std::optional<std::string_view> bytes;
      if (!ref.key.is_null())
        bytes = b.bytes(ref.key);
      if (key_topic_)
        key_->set_topic(rec.topic);
      key_->to_connect(bytes, out, rec.key, rec.key_schema);
    } catch (const RetriableError&) {
      throw; // not the record's fault: the batch stops here
    } catch (const std::exception& e) {
      out.fail(i, ErrorStage::KeyConverter, key_->class_name(), e);
      continue;
    }
    try {
      std::optional<std::string_view> bytes;
      if (!ref.value.is_null())
        bytes = b.bytes(ref.value);
      if (value_topic_)
        value_->set_topic(rec.topic);
      value_->to_connect(bytes, out, rec.value, rec.value_schema);
    } catch (const RetriableError&) {
      throw; // not the record's fault: the batch stops here
    } catch (const std::exception& e) {
      out.fail(i, ErrorStage::ValueConverter, value_->class_name(), e);
      continue;
    }
    if (header_)
      decode_headers(out, i);
  }
}

void RecordCodec::decode_headers(DecodedBatch& batch, uint32_t i) {
  auto& rec = batch[i];
  try {
    // DecodedBatch::reset left each raw header as a string viewing its bytes.
    for (auto& h : rec.headers) {
      std::optional<std::string_view> bytes;
      if (!h.value.is_null())
        bytes = h.value.as_string();
      header_->to_connect(rec.topic, h.key, bytes, batch, h.value, h.schema);
    }
  } catch (const RetriableError&) {
    throw;
  } catch (const std::exception& e) {
    batch.fail(i, ErrorStage::HeaderConverter, header_->class_name(), e);
  }
}

bool RecordCodec::encode_headers(DecodedBatch& batch, uint32_t i) {
  auto& rec = batch[i];
  header_buf_.clear();
  header_spans_.clear();
  try {
    for (const auto& h : rec.headers) {
      size_t start = header_buf_.size();
      if (header_->from_connect(rec.topic, h.key, h.value, h.schema, header_buf_))
        header_spans_.emplace_back(std::pair{start, header_buf_.size() - start});
      else
        header_spans_.emplace_back(std::nullopt);
    }
  } catch (const RetriableError&) {
    throw;
  } catch (const std::exception& e) {
    batch.fail(i, ErrorStage::HeaderConverter, header_->class_name(), e);
    return false;
  }
  return true;
}

DecodedBatch RecordCodec::decode(Batch raw) {
  DecodedBatch out;
  decode(std::move(raw), out);
  return out;
}

namespace {

/// A header's bytes as SimpleHeaderConverter (Kafka Connect's default) writes them;
/// false when it writes a null. A schemaless string (a raw header, an InsertHeader
/// literal) is what Connect would have parsed it into, written again.
bool header_bytes(const Header& h, std::string& out) {
  out.clear();
  if (h.value.kind() == Kind::String && h.schema == nullptr)
    return reserialize_header_text(h.value.as_string(), out);
  append_header_text(h.value, h.schema, out);
  return true;
}

} // namespace

void RecordCodec::encode(DecodedBatch& in, Batch& out) {
  for (uint32_t i = 0; i < in.size(); ++i) {
    auto& rec = in[i];
    if (!rec.live())
      continue;
    std::optional<std::string_view> key, value;
    try {
      if (key_topic_)
        key_->set_topic(rec.topic);
      key = key_->serialize(rec.key, rec.key_schema);
    } catch (const RetriableError&) {
      throw;
    } catch (const std::exception& e) {
      in.fail(i, ErrorStage::KeyConverter, key_->class_name(), e);
      continue;
    }
    try {
      if (value_topic_)
        value_->set_topic(rec.topic);
      value = value_->serialize(rec.value, rec.value_schema);
    } catch (const RetriableError&) {
      throw;
    } catch (const std::exception& e) {
      in.fail(i, ErrorStage::ValueConverter, value_->class_name(), e);
      continue;
    }
    if (header_) {
      if (!encode_headers(in, i))
        continue;
      out.append(rec.topic, rec.partition, rec.offset, rec.timestamp, key, value);
      std::string_view buf = header_buf_;
      for (size_t h = 0; h < header_spans_.size(); ++h) {
        const auto& span = header_spans_[h];
        out.add_header(rec.headers[h].key,
                       span ? std::optional(buf.substr(span->first, span->second)) : std::nullopt);
      }
      continue;
    }
    out.append(rec.topic, rec.partition, rec.offset, rec.timestamp, key, value);
    for (const auto& h : rec.headers) {
      if (!h.value.is_null() && header_bytes(h, header_buf_))
        out.add_header(h.key, header_buf_);
      else
        out.add_header(h.key, std::nullopt);
    }
  }
}

} // namespace weir::runtime::convert
