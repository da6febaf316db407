#include "transforms/java_regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace weir::transforms {

namespace {

constexpr size_t npos = std::string_view::npos;

/// Java's POSIX character classes (US-ASCII) and PCRE2's names for them.
std::string_view posix_name(std::string_view java) noexcept {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 13> names{{
      {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
      {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
      {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
      {"Space", "space"},
  }};
  for (auto [j, p] : names)
    if (j == java)
      return p;
  return {};
}

std::string unsupported(std::string_view what, size_t at) {
  return "Java regex syntax " + std::string(what) + " at index " + std::to_string(at) +
         " is not supported by weir";
}

/// Translates \p{..} / \P{..} at `in[i]` (the backslash) into `out`; returns the
/// index after it, or npos with `error` set.
size_t translate_property(std::string_view in, size_t i, bool in_class, std::string& out,
                          std::string& error) {
  bool negated = in[i + 1] == 'P';
  if (i + 2 >= in.size() || in[i + 2] != '{') { // \pL: a one-letter category, as PCRE2 reads it
    out.append(in.substr(i, 2));
    return i + 2;
  }
  size_t close = in.find('}', i + 3);
  if (close == npos) {
    error = "Unclosed character family near index " + std::to_string(i);
    return npos;
  }
  std::string_view name = in.substr(i + 3, close - i - 3);
  auto drop_prefix = [&name](std::string_view prefix) {
    if (!name.starts_with(prefix))
      return false;
    name.remove_prefix(prefix.size());
    return true;
  };
  if (name.starts_with("In") || name.starts_with("block=") || name.starts_with("blk=")) {
    error = unsupported("'\\p{" + std::string(name) + "}' (a Unicode block)", i);
    return npos;
  }
  if (name.starts_with("java")) {
    error = unsupported("'\\p{" + std::string(name) + "}' (a java.lang.Character class)", i);
    return npos;
  }
  if (auto posix = posix_name(name); !posix.empty()) {
    std::string cls = std::string("[:") + (negated && in_class ? "^" : "") + std::string(posix) + ":]";
    out += in_class ? cls : (negated ? "[^" : "[") + cls + "]";
    return close + 1;
  }
  drop_prefix("Is") || drop_prefix("general_category=") || drop_prefix("gc=") || drop_prefix("script=") ||
      drop_prefix("sc=");
  out += negated ? "\\P{" : "\\p{";
  out.append(name);
  out += '}';
  return close + 1;
}

} // namespace

TranslatedPattern translate_java_regex(std::string_view in) {
  TranslatedPattern t;
  std::string& out = t.pcre2;
  out.reserve(in.size() + 8);
  bool in_class = false;
  size_t i = 0;
  while (i < in.size()) {
    char c = in[i];
    if (c == '\\' && i + 1 < in.size()) {
      char e = in[i + 1];
      if (e == 'Q') { // quoted up to \E (or the end), copied as it is: PCRE2 reads it alike
        size_t end = in.find("\\E", i + 2);
        size_t stop = end == npos ? in.size() : end + 2;
        out.append(in.substr(i, stop - i));
        i = stop;
      } else if (e == 'u') {
        std::string_view hex = in.substr(i + 2, 4);
        if (hex.size() != 4 || !std::all_of(hex.begin(), hex.end(), [](char h) { return std::isxdigit(h); })) {
          t.error = "Illegal Unicode escape sequence near index " + std::to_string(i);
          return t;
        }
        out += "\\x{";
        out.append(hex);
        out += '}';
        i += 6;
      } else if (e == 'p' || e == 'P') {
        i = translate_property(in, i, in_class, out, t.error);
        if (i == npos)
          return t;
      } else {
        out.append(in.substr(i, 2));
        i += 2;
      }
      continue;
    }
    if (in_class) {
      if (c == '[') {
        t.error = unsupported("'[' inside a character class (a class union)", i);
        return t;
      }
      if (c == '&' && i + 1 < in.size() && in[i + 1] == '&') {
        t.error = unsupported("'&&' (a character class intersection)", i);
        return t;
      }
      in_class = c != ']';
      out += c;
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      ++i;
      if (i < in.size() && in[i] == '^')
        out += in[i++];
      if (i < in.size() && in[i] == ']') // a leading ']' is a literal in both grammars
        out += in[i++];
      continue;
    }
    if (c == '(' && i + 2 < in.size() && in[i + 1] == '?') {
      // Inline flags, (?idmsuxU-idmsuxU) or (?flags:...): PCRE2 has no d or u, and its
      // U means "ungreedy" where Java's means UNICODE_CHARACTER_CLASS.
      size_t j = i + 2;
      while (j < in.size() && (std::isalpha(static_cast<unsigned char>(in[j])) || in[j] == '-'))
        ++j;
      if (j > i + 2 && j < in.size() && (in[j] == ')' || in[j] == ':'))
        for (size_t k = i + 2; k < j; ++k)
          if (in[k] == 'd' || in[k] == 'u' || in[k] == 'U') {
            t.error = unsupported(std::string("the inline flag '") + in[k] + "'", k);
            return t;
          }
    }
    out += c;
    ++i;
  }
  return t;
}

struct JavaRegex::Impl {
  pcre2_code* full = nullptr;   ///< anchored at both ends: matches()
  pcre2_code* search = nullptr; ///< unanchored: find()
  pcre2_match_data* data = nullptr;

  ~Impl() {
    pcre2_match_data_free(data);
    pcre2_code_free(full);
    pcre2_code_free(search);
  }
};

JavaRegex::JavaRegex() : impl_(std::make_unique<Impl>()) {}
JavaRegex::~JavaRegex() = default;
JavaRegex::JavaRegex(JavaRegex&&) noexcept = default;
JavaRegex& JavaRegex::operator=(JavaRegex&&) noexcept = default;

std::string JavaRegex::compile(std::string_view java) {
  auto translated = translate_java_regex(java);
  if (!translated.error.empty())
    return translated.error;
  impl_ = std::make_unique<Impl>();
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(context, PCRE2_NEWLINE_ANY); // Java's line terminators: \n \r\n \r \u0085 \u2028 \u2029
  // UTF without UCP: \d \w \s \b stay ASCII, as in Java without UNICODE_CHARACTER_CLASS.
  uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  std::string error;
  for (auto [code, extra] : {std::pair{&impl_->full, PCRE2_ANCHORED | PCRE2_ENDANCHORED}, std::pair{&impl_->search, 0u}}) {
    int status = 0;
    PCRE2_SIZE offset = 0;
    *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.pcre2.data()), translated.pcre2.size(),
                          options | extra, &status, &offset, context);
    if (*code == nullptr) {
      std::array<PCRE2_UCHAR, 256> message{};
      pcre2_get_error_message(status, message.data(), message.size());
      error = reinterpret_cast<const char*>(message.data());
      error += " near index " + std::to_string(offset);
      break;
    }
    pcre2_jit_compile(*code, PCRE2_JIT_COMPLETE); // without JIT support, pcre2_match interprets
  }
  pcre2_compile_context_free(context);
  if (!error.empty()) {
    impl_ = std::make_unique<Impl>();
    return error;
  }
  impl_->data = pcre2_match_data_create_from_pattern(impl_->search, nullptr);
  return {};
}

bool JavaRegex::matches(std::string_view subject) const {
  return pcre2_match(impl_->full, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0, impl_->data,
                     nullptr) > 0;
}

bool JavaRegex::find(std::string_view subject, std::vector<std::pair<size_t, size_t>>& groups) const {
  int rc = pcre2_match(impl_->search, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                       impl_->data, nullptr);
  if (rc <= 0)
    return false;
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(impl_->data);
  groups.assign(group_count() + 1, {npos, npos});
  for (int g = 0; g < rc; ++g)
    if (ovector[2 * g] != PCRE2_UNSET)
      groups[static_cast<size_t>(g)] = {ovector[2 * g], ovector[2 * g + 1]};
  return true;
}

uint32_t JavaRegex::group_count() const noexcept {
  uint32_t count = 0;
  if (impl_->search != nullptr)
    pcre2_pattern_info(impl_->search, PCRE2_INFO_CAPTURECOUNT, &count);
  return count;
}

int JavaRegex::group_number(std::string_view name) const {
  if (impl_->search == nullptr)
    return -1;
  std::string terminated(name);
  int n = pcre2_substring_number_from_name(impl_->search, reinterpret_cast<PCRE2_SPTR>(terminated.c_str()));
  return n > 0 ? n : -1;
}

std::string JavaReplacement::parse(std::string_view text, const JavaRegex& regex) {
  parts_.clear();
  const unsigned groups = regex.group_count();
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
        if (close == npos)
          return "named capturing group is missing trailing '}'";
        std::string_view name = text.substr(i + 1, close - i - 1);
        if (name.empty())
          return "named capturing group has 0 length name";
        int number = regex.group_number(name);
        if (number < 0)
          return "No group with name {" + std::string(name) + "}";
        parts_.push_back({{}, number});
        i = close + 1;
        continue;
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

void JavaReplacement::expand(std::string_view subject, const std::vector<std::pair<size_t, size_t>>& groups,
                             std::string& out) const {
  for (const auto& p : parts_) {
    if (p.group < 0) {
      out += p.literal;
      continue;
    }
    auto [begin, end] = groups[static_cast<size_t>(p.group)];
    if (begin != npos)
      out.append(subject.substr(begin, end - begin));
  }
}

} // namespace weir::transforms
