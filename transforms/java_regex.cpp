#include "transforms/java_regex.hpp"

namespace weir::transforms {

std::string compile_java_regex(std::string_view text, std::regex& out) {
  auto flags = std::regex::ECMAScript;
  if (text.starts_with("(?i)")) {
    flags |= std::regex::icase;
    text.remove_prefix(4);
  }
  for (std::string_view java_only : {"(?<=", "(?<!", "(?>", "(?<", "(?i", "(?s", "(?m", "(?x", "(?u", "(?d", "(?U",
                                     "(?-", "\\p{", "\\P{", "*+", "++", "?+", "}+", "\\A", "\\Z", "\\z", "\\G",
                                     "\\Q", "\\E", "&&", "\\h", "\\H", "\\R", "\\X", "\\k<"})
    if (text.find(java_only) != std::string_view::npos)
      return "Java regex syntax '" + std::string(java_only) + "' is not supported by weir";
  try {
    out = std::regex(text.begin(), text.end(), flags);
  } catch (const std::regex_error& e) {
    return e.what();
  }
  return {};
}

std::string JavaReplacement::parse(std::string_view text, unsigned groups) {
  parts_.clear();
  auto literal = [&](char c) {
    if (parts_.empty() || parts_.back().group >= 0)
      parts_.push_back({});
    parts_.back().literal += c;
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\\') {
      if (++i == text.size())
        return "character to be escaped is missing";
      literal(text[i++]);
    } else if (c == '$') {
      if (++i == text.size())
        return "Illegal group reference: group index is missing";
      if (text[i] == '{') {
        size_t close = text.find('}', i);
        if (close == std::string_view::npos)
          return "named capturing group is missing trailing '}'";
        return "No group with name {" + std::string(text.substr(i + 1, close - i - 1)) + "}";
      }
      if (text[i] < '0' || text[i] > '9')
        return "Illegal group reference";
      unsigned ref = static_cast<unsigned>(text[i++] - '0');
      // Java takes more digits only while they still name an existing group.
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        unsigned next = ref * 10 + static_cast<unsigned>(text[i] - '0');
        if (next > groups)
          break;
        ref = next;
        ++i;
      }
      if (ref > groups)
        return "No group " + std::to_string(ref);
      parts_.push_back({{}, static_cast<int>(ref)});
    } else {
      literal(c);
      ++i;
    }
  }
  return {};
}

void JavaReplacement::expand(const std::match_results<std::string_view::const_iterator>& m, std::string& out) const {
  for (const auto& p : parts_) {
    if (p.group < 0)
      out += p.literal;
    else if (m[static_cast<size_t>(p.group)].matched)
      out.append(m[static_cast<size_t>(p.group)].first, m[static_cast<size_t>(p.group)].second);
  }
}

} // namespace weir::transforms
