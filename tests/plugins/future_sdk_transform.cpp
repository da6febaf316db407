// A test plugin (issue 25, must-show 5) as a plugin of a transformation, a predicate,
// a converter and a header converter built against the next SDK version would look: its weir_plugin_sdk_version() answers
// WEIR_SDK_VERSION + 1. weir must refuse it before registering anything; the
// registration throws, so a loader that went on would report that instead.
#include <stdexcept>

#include <weir/plugin.hpp>

namespace {

class Identity final : public weir::Transformation {
public:
  static void define(weir::ConfigDef&) {}
  explicit Identity(const weir::Config&) {}
  bool apply(const weir::Record&) override { return true; }
};

class Always final : public weir::Predicate {
public:
  static void define(weir::ConfigDef&) {}
  explicit Always(const weir::Config&) {}
  bool test(const weir::Record&) override { return true; }
};

class Nothing final : public weir::Converter {
public:
  static void define(weir::ConfigDef&) {}
  Nothing(const weir::Config&, bool) {}
  void to_connect(std::string_view, const std::optional<std::string_view>&, weir::RecordBatch&, weir::data::Value& v,
                  const weir::data::Schema*& s) override {
    v = {};
    s = nullptr;
  }
  bool from_connect(std::string_view, const weir::data::Value&, const weir::data::Schema*, std::string&) override {
    return false;
  }
};

class NoHeaders final : public weir::HeaderConverter {
public:
  static void define(weir::ConfigDef&) {}
  explicit NoHeaders(const weir::Config&) {}
  void to_connect(std::string_view, std::string_view, const std::optional<std::string_view>&, weir::RecordBatch&,
                  weir::data::Value& v, const weir::data::Schema*& s) override {
    v = {};
    s = nullptr;
  }
  bool from_connect(std::string_view, std::string_view, const weir::data::Value&, const weir::data::Schema*,
                    std::string&) override {
    return false;
  }
};

} // namespace

extern "C" __attribute__((visibility("default"))) int weir_plugin_sdk_version() {
  return WEIR_SDK_VERSION + 1;
}

extern "C" __attribute__((visibility("default"))) void weir_plugin_register(weir::PluginRegistrar* registrar) {
  registrar->add_transformation<Identity>("com.example.FutureIdentity", {}, "9.9.9");
  registrar->add_predicate<Always>("com.example.FutureAlways", {}, "9.9.9");
  registrar->add_converter<Nothing>("com.example.FutureNothing", {}, "9.9.9");
  registrar->add_header_converter<NoHeaders>("com.example.FutureNoHeaders", {}, "9.9.9");
  throw std::logic_error("weir_plugin_register of a plugin with another SDK version was called");
}
