// Kafka Connect's schemas are part of the plugin SDK: weir/data/schema.hpp. The
// runtime names them in its own namespace.
#pragma once

#include "runtime/data/value.hpp"
#include "weir/data/schema.hpp"

namespace weir::runtime::data {
namespace logical_names = weir::data::logical_names;
namespace schemas = weir::data::schemas;
using weir::data::Field;
using weir::data::field_value;
using weir::data::json_name;
using weir::data::kind_of;
using weir::data::Logical;
using weir::data::Schema;
using weir::data::SchemaBuilder;
using weir::data::SchemaCache;
using weir::data::SchemaPtr;
using weir::data::Type;
using weir::data::type_from_json_name;
using weir::data::validate_value;
} // namespace weir::runtime::data
