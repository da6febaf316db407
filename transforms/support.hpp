// Helpers every SMT uses: Kafka's Requirements checks (with Kafka's messages) and
// config access for keys whose Kafka default is null.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"

namespace weir::transforms {

/// A String key declared with Kafka's `null` default (weir declares "" as default):
/// std::nullopt when the user did not set it.
std::optional<std::string> optional_string(const Config& config, std::string_view key);

/// Java's String.split(sep) for a one-character separator: trailing empty parts are
/// dropped (`"a:"` -> {"a"}), leading and inner ones kept.
std::vector<std::string> java_split(std::string_view s, char sep);

/// Throws ConfigError(key, "Invalid value VALUE for configuration KEY: REASON").
[[noreturn]] void config_error(const std::string& key, std::string_view value, std::string_view reason);

/// Requirements.requireMap: the value must be a map (schemaless records).
runtime::data::Value& require_map(runtime::data::Value& v, std::string_view purpose);
/// Requirements.requireStruct: the value must be a struct (schema'd records).
runtime::data::Value& require_struct(runtime::data::Value& v, std::string_view purpose);
/// Requirements.requireSchema.
const runtime::data::Schema& require_schema(const runtime::data::Schema* s, std::string_view purpose);
/// Requirements.requireSinkRecord: weir treats a record with a Kafka offset (>= 0) as
/// a sink record.
void require_sink_record(const runtime::data::RecordView& r, std::string_view purpose);

} // namespace weir::transforms
