// RecordIsTombstone (predicate): true when the record's value is null.
#pragma once

#include "transforms/transformation.hpp"

namespace weir::transforms {

class RecordIsTombstone final : public Predicate {
public:
  static constexpr std::string_view name = "RecordIsTombstone";
  static const ConfigDef& config_def() {
    static const ConfigDef def;
    return def;
  }

  explicit RecordIsTombstone(const Config&) {}
  bool test(const RecordView& r) override { return r.get(Side::Value).is_null(); }
};

} // namespace weir::transforms
