// HasHeaderKey (predicate): true when the record has at least one header `name`.
#pragma once

#include <string>

#include "transforms/transformation.hpp"

namespace weir::transforms {

class HasHeaderKey final : public Predicate {
public:
  static constexpr std::string_view name = "HasHeaderKey";
  static const ConfigDef& config_def();

  explicit HasHeaderKey(const Config& config);
  bool test(const RecordView& record) override;

private:
  std::string header_;
};

} // namespace weir::transforms
