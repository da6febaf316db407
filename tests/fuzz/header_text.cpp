// Fuzzing of header text as Kafka Connect's SimpleHeaderConverter reads and writes it
// (runtime/convert/header_text.hpp). parse_header_text reads any text (what it cannot
// read is a string), so every exception is a finding; a parsed value has the kind its
// schema says; and reserialize_header_text, what Connect does to a header passing
// through, settles: a third pass changes nothing. (Not the second: as in Kafka, a
// float may print as an integer's text, `230000000000000.0071` -> float32 `2.3E14`,
// which then reads as the int64 230000000000000. And not for text with a backslash:
// Kafka's Values.Parser keeps escapes in a quoted string inside an array or map while
// convertToString escapes it again, so every pass doubles its backslashes.)
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

  std::string once, twice, thrice;
  if (!reserialize_header_text(input, once))
    return 0; // Connect reads it as a null header
  if (!reserialize_header_text(once, twice) || !reserialize_header_text(twice, thrice))
    weir::fuzz::finding(harness, "its re-written text reads as null", input, "once: " + once + "\n  twice: " + twice);
  if (twice != thrice && once.find('\\') == std::string::npos)
    weir::fuzz::finding(harness, "re-writing does not settle", input,
                        "once:   " + once + "\n  twice:  " + twice + "\n  thrice: " + thrice);
  return 0;
}
