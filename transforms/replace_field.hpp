// ReplaceField$Key / ReplaceField$Value: keeps (`include`), drops (`exclude`, which
// wins over include) and renames (`renames=old:new,...`) top-level fields.
// `whitelist` / `blacklist` are the deprecated names of `include` / `exclude`.
//
// Kafka semantics kept: nulls pass through; schemaless values must be maps, schema'd
// ones structs; the derived schema (name/version/doc/parameters copied, fields
// filtered and renamed, field schemas shared) is cached per input schema; a rename
// that collides with a kept field is a record error for schema'd records.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data/schema.hpp"
#include "transforms/support.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class ReplaceField final : public Transformation {
public:
  static constexpr std::string_view name = "ReplaceField";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  ReplaceField(const Config& config, Side side);
  bool apply(const RecordView& record) override;
  void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) override;

private:
  bool keep(std::string_view field) const noexcept;
  std::string_view renamed(std::string_view field) const noexcept;
  /// Overwrites an already kept entry named `key` with entries[from]'s value.
  bool merge(std::span<runtime::data::MapEntry> entries, uint32_t out, std::string_view key,
             uint32_t from) const noexcept;
  runtime::data::SchemaPtr derive(const runtime::data::Schema& input) const;

  // Every name the SMT cares about, with what it means; a key not in the table is
  // kept unchanged (unless `include` is given). One probe per key.
  enum : uint8_t { excluded = 1, included = 2, renamed_from = 4, rename_target = 8 };
  struct NameInfo {
    uint8_t flags = 0;
    int rename = -1; ///< index into *renames_ when renamed_from
  };
  Side side_;
  NameTable names_;
  std::vector<NameInfo> info_; ///< parallel to names_
  bool has_include_ = false;
  using Renames = std::vector<std::pair<std::string, std::string>>;
  std::shared_ptr<Renames> renames_ = std::make_shared<Renames>(); ///< records view the new names
  std::vector<runtime::data::Value> rename_keys_; ///< the new names as map keys (views *renames_)
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
