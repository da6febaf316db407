// A source plugin as one built against the next SDK version would look: a complete
// source whose weir_plugin_sdk_version() answers WEIR_SDK_VERSION + 1. weir must
// refuse it by version before its registration runs: registering would add a
// source named like the built-in FileStreamSource, so a loader that went on would
// report that clash instead of the version mismatch.
#include <weir/plugin.hpp>

namespace {

class FutureConnector : public weir::SourceConnector {
public:
  static void define(weir::ConfigDef&) {}
  std::vector<weir::TaskConfig> task_configs(const weir::Config&, int) override { return {{}}; }
};

class FutureTask : public weir::SourceTask {
public:
  void start(const weir::Config&, const weir::SourceContext&, const weir::OffsetReader&) override {}
  Poll poll(weir::SourceOutput&) override { return Poll::End; }
};

} // namespace

extern "C" __attribute__((visibility("default"))) int weir_plugin_sdk_version() {
  return WEIR_SDK_VERSION + 1;
}

extern "C" __attribute__((visibility("default"))) void weir_plugin_register(weir::PluginRegistrar* r) {
  r->add_source<FutureConnector, FutureTask>("FileStreamSource", {}, "9.9.9");
}
