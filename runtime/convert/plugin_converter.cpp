#include "runtime/convert/plugin_converter.hpp"

#include "runtime/plugin_descriptor.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

namespace weir::runtime::convert {

namespace {

class PluginConverter final : public Converter {
public:
  PluginConverter(std::string class_name, std::unique_ptr<weir::Converter> impl)
      : class_name_(std::move(class_name)), impl_(std::move(impl)) {}

  std::string_view class_name() const noexcept override { return class_name_; }
  // Kafka passes the topic to every call; the codec sets it before each one.
  bool uses_topic() const noexcept override { return true; }
  void set_topic(std::string_view topic) override { topic_ = topic; }

  void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch, data::Value& out,
                  const data::Schema*& schema) override {
    out = data::Value();
    schema = nullptr;
    impl_->to_connect(topic_, bytes, batch, out, schema);
  }

  bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) override {
    return impl_->from_connect(topic_, v, schema, out);
  }

private:
  std::string class_name_;
  std::unique_ptr<weir::Converter> impl_;
  std::string_view topic_; ///< the record's, valid for the call that follows set_topic
};

class PluginHeaderConverter final : public HeaderConverter {
public:
  PluginHeaderConverter(std::string class_name, std::unique_ptr<weir::HeaderConverter> impl)
      : class_name_(std::move(class_name)), impl_(std::move(impl)) {}

  std::string_view class_name() const noexcept override { return class_name_; }
  void to_connect(std::string_view topic, std::string_view key, const std::optional<std::string_view>& bytes,
                  data::DecodedBatch& batch, data::Value& out, const data::Schema*& schema) override {
    out = data::Value();
    schema = nullptr;
    impl_->to_connect(topic, key, bytes, batch, out, schema);
  }
  bool from_connect(std::string_view topic, std::string_view key, const data::Value& v, const data::Schema* schema,
                    std::string& out) override {
    return impl_->from_connect(topic, key, v, schema, out);
  }

private:
  std::string class_name_;
  std::unique_ptr<weir::HeaderConverter> impl_;
};

} // namespace

ConverterInfo plugin_converter(const ConverterDescriptor& d, std::string path) {
  auto def = runtime::plugin_definition(d, "converter");
  if (!def->find("converter.type"))
    def->define("converter.type", ConfigType::String, "value", Importance::Low,
                "Whether this converter is used for keys or values (set by weir).");
  return ConverterInfo{
      .class_name = d.class_name,
      .aliases = d.aliases,
      .config_def = [def]() -> const ConfigDef& { return *def; },
      .make = [make = d.make, name = d.class_name](const Config& c, bool is_key) -> std::unique_ptr<Converter> {
        return std::make_unique<PluginConverter>(name, runtime::plugin_made(make(c, is_key), name));
      },
      .version = d.version,
      .path = std::move(path)};
}

HeaderConverterInfo plugin_header_converter(const HeaderConverterDescriptor& d, std::string path) {
  auto def = runtime::plugin_definition(d, "header converter");
  return HeaderConverterInfo{
      .class_name = d.class_name,
      .aliases = d.aliases,
      .config_def = [def]() -> const ConfigDef& { return *def; },
      .make = [make = d.make, name = d.class_name](const Config& c) -> std::unique_ptr<HeaderConverter> {
        return std::make_unique<PluginHeaderConverter>(name, runtime::plugin_made(make(c), name));
      },
      .version = d.version,
      .path = std::move(path)};
}

} // namespace weir::runtime::convert
