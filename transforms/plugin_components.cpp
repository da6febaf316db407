#include "transforms/plugin_components.hpp"

#include "runtime/plugin_descriptor.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

namespace weir::transforms {

namespace {

class PluginTransformation final : public Transformation {
public:
  explicit PluginTransformation(std::unique_ptr<weir::Transformation> impl) : impl_(std::move(impl)) {}

  bool apply(const RecordView& record) override { return impl_->apply(record); }
  void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) override {
    apply_each(batch, i, [this](const RecordView& r) { return impl_->apply(r); });
  }

private:
  std::unique_ptr<weir::Transformation> impl_;
};

class PluginPredicate final : public Predicate {
public:
  explicit PluginPredicate(std::unique_ptr<weir::Predicate> impl) : impl_(std::move(impl)) {}
  bool test(const RecordView& record) override { return impl_->test(record); }

private:
  std::unique_ptr<weir::Predicate> impl_;
};

} // namespace

TransformationInfo plugin_transformation(const TransformationDescriptor& d, std::string path) {
  auto def = runtime::plugin_definition(d, "transformation");
  return TransformationInfo{
      .name = d.class_name,
      .variants = Variants::None,
      .config_def = [def]() -> const ConfigDef& { return *def; },
      .make = [make = d.make, name = d.class_name](const Config& c, Side) -> std::unique_ptr<Transformation> {
        return std::make_unique<PluginTransformation>(runtime::plugin_made(make(c), name));
      },
      .aliases = d.aliases,
      .version = d.version,
      .path = std::move(path)};
}

PredicateInfo plugin_predicate(const PredicateDescriptor& d, std::string path) {
  auto def = runtime::plugin_definition(d, "predicate");
  return PredicateInfo{
      .name = d.class_name,
      .config_def = [def]() -> const ConfigDef& { return *def; },
      .make = [make = d.make, name = d.class_name](const Config& c) -> std::unique_ptr<Predicate> {
        return std::make_unique<PluginPredicate>(runtime::plugin_made(make(c), name));
      },
      .aliases = d.aliases,
      .version = d.version,
      .path = std::move(path)};
}

} // namespace weir::transforms
