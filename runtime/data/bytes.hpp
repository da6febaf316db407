// Short-string equality lives with the SDK's value model: weir/data/bytes.hpp.
#pragma once

#include "weir/data/bytes.hpp"

namespace weir::runtime::data {
using weir::data::equal_bytes;
} // namespace weir::runtime::data
