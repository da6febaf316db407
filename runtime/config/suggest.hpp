// "Did you mean ...?": the nearest of a set of names to a mistyped one, for
// unknown config keys and unknown shell commands alike.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>
#include <type_traits>

namespace weir::runtime {

/// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(std::string_view a, std::string_view b);

/// The item whose name (`name_of(item)`) is nearest `name` within edit distance 2,
/// the first of equals; nullptr when none is that close. Cheap, and it turns a
/// silent typo into a one-line fix ("did you mean ...?").
template <class Items, class NameOf>
auto nearest_name(const Items& items, std::string_view name, NameOf name_of) {
  using Item = std::remove_reference_t<decltype(*std::begin(items))>;
  const Item* best = nullptr;
  size_t best_distance = 3;
  for (const auto& item : items) {
    auto d = edit_distance(name_of(item), name);
    if (d < best_distance) best = &item, best_distance = d;
  }
  return best;
}

} // namespace weir::runtime
