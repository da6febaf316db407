// The batch arena is part of the plugin SDK's data model: weir/data/arena.hpp.
#pragma once

#include "weir/data/arena.hpp"

namespace weir::runtime::data {
using weir::data::Arena;
} // namespace weir::runtime::data
