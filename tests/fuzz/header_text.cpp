// Fuzzing of header text as Kafka Connect's SimpleHeaderConverter reads and writes it
// (runtime/convert/header_text.hpp). parse_header_text reads any text (what it cannot
// read is a string), so every exception is a finding; a parsed value has the kind its
// schema says; and reserialize_header_text is what Connect does to a header passing
// through, so doing it twice changes nothing more than doing it once.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/convert/header_text.hpp"
#include "tests/fuzz/report.hpp"

using namespace weir::runtime::convert;
using namespace weir::runtime::data;


constexpr std::string_view harness = "header_text";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Arena arena(4096);
  ParsedHeader parsed = parse_header_text(input, arena);
  if (!parsed.value.is_null() && parsed.schema != nullptr && kind_of(parsed.schema->type()) != parsed.value.kind())
    weir::fuzz::finding(harness, "a value of another kind than its schema", input,
         to_debug_string(parsed.value) + " with " + parsed.schema->describe());

  std::string once, twice;
  if (!reserialize_header_text(input, once))
    return 0; // Connect reads it as a null header
  if (!reserialize_header_text(once, twice))
    weir::fuzz::finding(harness, "its re-written text reads as null", input, "once: " + once);
  if (once != twice)
    weir::fuzz::finding(harness, "re-writing is not stable", input, "once:  " + once + "\n  twice: " + twice);
  return 0;
}
