// What a harness does on a finding: print what went wrong with the input (cut at 2,000
// bytes) and abort, which libFuzzer reports as a crash and saves the input for.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace weir::fuzz {

[[noreturn]] inline void finding(std::string_view harness, std::string_view what, std::string_view input,
                                 std::string_view detail = {}) {
  auto shown = static_cast<int>(std::min<size_t>(input.size(), 2000));
  std::fprintf(stderr, "%.*s: %.*s\n  input: %.*s\n  %.*s\n", static_cast<int>(harness.size()), harness.data(),
               static_cast<int>(what.size()), what.data(), shown, input.data(), static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

} // namespace weir::fuzz
