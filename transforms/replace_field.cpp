#include "transforms/replace_field.hpp"

#include <algorithm>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view purpose = "field replacement";

} // namespace

const ConfigDef& ReplaceField::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("exclude", ConfigType::List, "", Importance::Medium,
             "Fields to exclude. This takes precedence over the fields to include.")
        .define("include", ConfigType::List, "", Importance::Medium,
                "Fields to include. If specified, only these fields will be used.")
        .define("renames", ConfigType::List, "", Importance::Medium, "Field rename mappings.")
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.")
        .define("blacklist", ConfigType::List, "", Importance::Low, "Deprecated. Use exclude instead.")
        .define("whitelist", ConfigType::List, "", Importance::Low, "Deprecated. Use include instead.");
    return d;
  }();
  return def;
}

ReplaceField::ReplaceField(const Config& c, Side side)
    : side_(side), replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  // Deprecated names apply only when the new name is not given (Kafka's
  // ConfigUtils.translateDeprecatedConfigs).
  auto pick = [&](const char* current, const char* deprecated) {
    if (!c.originals().contains(current) && c.originals().contains(deprecated))
      return c.get_list(deprecated);
    return c.get_list(current);
  };
  auto exclude = pick("exclude", "blacklist");
  auto include = pick("include", "whitelist");
  has_include_ = !include.empty();
  for (const auto& mapping : c.get_list("renames")) {
    auto parts = java_split(mapping, ':');
    if (parts.size() != 2)
      config_error("renames", c.originals().at("renames"), "Invalid rename mapping: " + mapping);
    // A later mapping of the same field wins, as in a HashMap.
    auto it = std::find_if(renames_->begin(), renames_->end(), [&](auto& r) { return r.first == parts[0]; });
    if (it != renames_->end())
      it->second = parts[1];
    else
      renames_->emplace_back(parts[0], parts[1]);
  }
  std::vector<std::string> names;
  auto add = [&](const std::string& name, uint8_t flag, int rename = -1) {
    auto it = std::find(names.begin(), names.end(), name);
    size_t i = static_cast<size_t>(it - names.begin());
    if (it == names.end()) {
      names.push_back(name);
      info_.emplace_back();
    }
    info_[i].flags |= flag;
    if (rename >= 0)
      info_[i].rename = rename;
  };
  for (const auto& n : exclude)
    add(n, excluded);
  for (const auto& n : include)
    add(n, included);
  for (size_t i = 0; i < renames_->size(); ++i) {
    add((*renames_)[i].first, renamed_from, static_cast<int>(i));
    add((*renames_)[i].second, rename_target);
  }
  names_ = NameTable(std::move(names));
  for (const auto& r : *renames_)
    rename_keys_.push_back(text_value(r.second));
}

bool ReplaceField::keep(std::string_view field) const noexcept {
  int i = names_.find(field);
  uint8_t f = i < 0 ? 0 : info_[static_cast<size_t>(i)].flags;
  return !(f & excluded) && (!has_include_ || (f & included));
}

bool ReplaceField::merge(std::span<MapEntry> entries, uint32_t out, std::string_view key, uint32_t from) const noexcept {
  for (uint32_t j = 0; j < out; ++j)
    if (entries[j].key.kind() == Kind::String && entries[j].key.as_string() == key) {
      entries[j].value = entries[from].value;
      return true;
    }
  return false;
}

std::string_view ReplaceField::renamed(std::string_view field) const noexcept {
  int i = names_.find(field);
  if (i < 0 || info_[static_cast<size_t>(i)].rename < 0)
    return field;
  return (*renames_)[static_cast<size_t>(info_[static_cast<size_t>(i)].rename)].second;
}

SchemaPtr ReplaceField::derive(const Schema& input) const {
  auto b = SchemaBuilder::copy_basics(input, Type::Struct);
  for (const auto& f : input.fields())
    if (keep(f.name))
      b.field(std::string(renamed(f.name)), f.schema);
  return b.build();
}

// Inlined into apply_from(), the loop over a batch.
[[gnu::always_inline]] inline bool ReplaceField::apply(const RecordView& r) {
  Value& v = r.get(side_);
  if (v.is_null())
    return true;
  Arena& arena = r.arena();
  if (r.schema(side_) == nullptr) {
    // In place: kept entries move to the front, renamed; a rename onto a key that
    // is already kept overwrites it (HashMap.put).
    Value& map = require_map(v, purpose);
    auto entries = map.entries();
    uint32_t out = 0;
    for (uint32_t i = 0, n = static_cast<uint32_t>(entries.size()); i < n; ++i) {
      // Entries are moved and rewritten in place (no MapEntry temporaries).
      bool is_string = entries[i].key.kind() == Kind::String;
      int k = is_string ? names_.find(entries[i].key.as_string()) : -1;
      if (k < 0) [[likely]] { // most keys: not named in the config, kept unless `include` is given
        if (is_string && has_include_)
          continue;
        // Stored even when out == i (a no-op then): cheaper than a branch per entry.
        entries[out++] = entries[i];
        continue;
      }
      const NameInfo info = info_[static_cast<size_t>(k)];
      if (is_string && ((info.flags & excluded) || (has_include_ && !(info.flags & included))))
        continue;
      if (info.rename < 0) {
        if ((info.flags & rename_target) && merge(entries, out, entries[i].key.as_string(), i))
          continue;
        if (out != i)
          entries[out] = entries[i];
        ++out;
        continue;
      }
      // Renamed: the new key views *renames_ (kept alive below). A rename onto a key
      // that is already kept overwrites it, as HashMap.put does.
      std::string_view to = (*renames_)[static_cast<size_t>(info.rename)].second;
      if (merge(entries, out, to, i))
        continue;
      entries[out].value = entries[i].value;
      entries[out].key = rename_keys_[static_cast<size_t>(info.rename)];
      ++out;
    }
    map.truncate(out);
    if (!renames_->empty())
      r.batch().keep_alive(renames_);
    return true;
  }
  Value& in = require_struct(v, purpose);
  const Schema& input_schema = *in.schema();
  const SchemaPtr& out_schema = cache_.get(input_schema, [this](const Schema& s) { return derive(s); });
  Value out = Value::structure(arena, *out_schema);
  uint32_t k = 0;
  for (const auto& f : input_schema.fields())
    if (keep(f.name))
      out.fields()[k++] = field_value(in, f, arena, replace_null_with_default_);
  r.set(side_, out, out_schema);
  return true;
}

void ReplaceField::apply_from(DecodedBatch& batch, uint32_t& i) {
  apply_each(batch, i, [this](const RecordView& r) { return apply(r); });
}

} // namespace weir::transforms
