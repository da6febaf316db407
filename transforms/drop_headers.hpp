// DropHeaders: removes every header whose key is listed in `headers` (all of a
// key's occurrences); other headers keep their order.
#pragma once

#include <string>
#include <vector>

#include "transforms/transformation.hpp"

namespace weir::transforms {

class DropHeaders final : public Transformation {
public:
  static constexpr std::string_view name = "DropHeaders";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def();

  DropHeaders(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  std::vector<std::string> headers_;
};

} // namespace weir::transforms
