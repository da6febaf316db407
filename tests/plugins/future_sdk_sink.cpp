// A test plugin (issue 9, must-show 2) as a plugin built against the next SDK
// version would look: its weir_plugin_sdk_version() answers WEIR_SDK_VERSION + 1.
// weir must refuse it before calling anything else; registering throws, so a
// loader that went on would report that instead of the version mismatch.
#include <stdexcept>

#include <weir/plugin.hpp>

extern "C" __attribute__((visibility("default"))) int weir_plugin_sdk_version() {
  return WEIR_SDK_VERSION + 1;
}

extern "C" __attribute__((visibility("default"))) void weir_plugin_register(weir::PluginRegistrar*) {
  throw std::logic_error("weir_plugin_register of a plugin with another SDK version was called");
}
