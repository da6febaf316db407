// Kafka Connect's values are part of the plugin SDK: weir/data/value.hpp. The runtime
// names them in its own namespace.
#pragma once

#include "runtime/data/arena.hpp"
#include "runtime/data/bytes.hpp"
#include "weir/data/value.hpp"

namespace weir::runtime::data {
using weir::data::ArenaVector;
using weir::data::java_class_name;
using weir::data::Kind;
using weir::data::MapEntry;
using weir::data::to_debug_string;
using weir::data::to_string;
using weir::data::Value;
} // namespace weir::runtime::data
