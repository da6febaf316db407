// What `weir shell`'s tap shows: records passing a stage, each as one JSON line in
// `weir transform`'s output form {"topic","partition","offset","timestamp","key",
// "value","headers"}, with keys, values and headers as schemaless JSON (what the
// JsonConverter with schemas.enable=false would write). CAF-free; a stage actor
// owns one while someone taps it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/convert/converter.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

class TapRenderer {
public:
  TapRenderer();
  /// The live records of `batch` (at most `max`), one JSON object each. A value
  /// the converter cannot write shows as {"error": why}.
  std::vector<std::string> render(const data::DecodedBatch& batch, size_t max);

private:
  void append(const data::Value& v, const data::Schema* schema, std::string& out);
  std::unique_ptr<convert::Converter> json_;
};

} // namespace weir::engine::pipeline
