// Filter: drops every record it is applied to; use it with a predicate
// (`transforms.x.predicate`, optionally `negate`) to drop only some.
#pragma once

#include "transforms/transformation.hpp"

namespace weir::transforms {

class Filter final : public Transformation {
public:
  static constexpr std::string_view name = "Filter";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def() {
    static const ConfigDef def;
    return def;
  }

  Filter(const Config&, Side) {}
  bool apply(const RecordView&) override { return false; }
};

} // namespace weir::transforms
