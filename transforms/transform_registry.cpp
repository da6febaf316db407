// The registration list: add one line here for a new SMT or predicate.
#include "transforms/transform_registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "runtime/convert/text.hpp"
#include "transforms/cast.hpp"
#include "transforms/drop_headers.hpp"
#include "transforms/extract_field.hpp"
#include "transforms/filter.hpp"
#include "transforms/flatten.hpp"
#include "transforms/has_header_key.hpp"
#include "transforms/header_from.hpp"
#include "transforms/hoist_field.hpp"
#include "transforms/insert_field.hpp"
#include "transforms/insert_header.hpp"
#include "transforms/mask_field.hpp"
#include "transforms/record_is_tombstone.hpp"
#include "transforms/regex_router.hpp"
#include "transforms/replace_field.hpp"
#include "transforms/set_schema_metadata.hpp"
#include "transforms/timestamp_converter.hpp"
#include "transforms/timestamp_router.hpp"
#include "transforms/topic_name_matches.hpp"
#include "transforms/value_to_key.hpp"

namespace weir::transforms {

namespace {

std::deque<TransformationInfo>& transformation_table() {
  static std::deque<TransformationInfo> all{
      transformation_info<InsertField>(),
      transformation_info<ReplaceField>(),
      transformation_info<MaskField>(),
      transformation_info<ValueToKey>(),
      transformation_info<Cast>(),
      transformation_info<Filter>(),
      transformation_info<ExtractField>(),
      transformation_info<HoistField>(),
      transformation_info<TimestampConverter>(),
      transformation_info<TimestampRouter>(),
      transformation_info<RegexRouter>(),
      transformation_info<Flatten>(),
      transformation_info<SetSchemaMetadata>(),
      transformation_info<HeaderFrom>(),
      transformation_info<InsertHeader>(),
      transformation_info<DropHeaders>(),
  };
  return all;
}

std::deque<PredicateInfo>& predicate_table() {
  static std::deque<PredicateInfo> all{
      predicate_info<TopicNameMatches>(),
      predicate_info<HasHeaderKey>(),
      predicate_info<RecordIsTombstone>(),
  };
  return all;
}

/// A plugin class under `name`: its full name or one of its aliases, exactly.
template <class Info>
const Info* find_plugin(const std::deque<Info>& table, std::string_view name) {
  for (const auto& info : table)
    if (info.plugin() && (info.name == name || std::ranges::find(info.aliases, name) != info.aliases.end()))
      return &info;
  return nullptr;
}

} // namespace

const std::deque<TransformationInfo>& transformations() { return transformation_table(); }
const std::deque<PredicateInfo>& predicates() { return predicate_table(); }

namespace {

/// Appends a plugin's entry unless its class name or an alias already resolves.
template <class Info, class Find>
void add_plugin(std::deque<Info>& table, Info info, std::string_view kind, Find find) {
  std::vector<std::string> names{info.name};
  names.insert(names.end(), info.aliases.begin(), info.aliases.end());
  for (const auto& name : names) {
    if (name.empty())
      throw std::invalid_argument("a " + std::string(kind) + " with an empty class name or alias");
    if (find(name))
      throw std::invalid_argument(std::string(kind) + " class or alias '" + name + "' is already taken");
  }
  table.push_back(std::move(info));
}

} // namespace

void add_transformation(TransformationInfo info) {
  add_plugin(transformation_table(), std::move(info), "transformation",
             [](std::string_view n) { return find_transformation(n).has_value(); });
}

void add_predicate(PredicateInfo info) {
  add_plugin(predicate_table(), std::move(info), "predicate",
             [](std::string_view n) { return find_predicate(n).has_value(); });
}

std::optional<ResolvedTransformation> find_transformation(std::string_view name) {
  name = runtime::convert::trim(name);
  if (const auto* plugin = find_plugin(transformations(), name))
    return ResolvedTransformation{plugin, Side::Value, plugin->name};
  if (name.starts_with(transforms_package))
    name.remove_prefix(transforms_package.size());
  std::string_view base = name, variant;
  if (auto dollar = name.find('$'); dollar != std::string_view::npos) {
    base = name.substr(0, dollar);
    variant = name.substr(dollar + 1);
  }
  for (const auto& info : transformations()) {
    if (info.plugin() || info.name != base)
      continue;
    std::string full = std::string(transforms_package) + std::string(base);
    if (info.variants == Variants::None) {
      if (!variant.empty())
        return std::nullopt;
      return ResolvedTransformation{&info, Side::Value, full};
    }
    if (variant == "Key")
      return ResolvedTransformation{&info, Side::Key, full + "$Key"};
    if (variant == "Value")
      return ResolvedTransformation{&info, Side::Value, full + "$Value"};
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ResolvedPredicate> find_predicate(std::string_view name) {
  name = runtime::convert::trim(name);
  if (const auto* plugin = find_plugin(predicates(), name))
    return ResolvedPredicate{plugin, plugin->name};
  if (name.starts_with(predicates_package))
    name.remove_prefix(predicates_package.size());
  for (const auto& info : predicates())
    if (!info.plugin() && info.name == name)
      return ResolvedPredicate{&info, std::string(predicates_package) + std::string(name)};
  return std::nullopt;
}

} // namespace weir::transforms
