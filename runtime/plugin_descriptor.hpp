// What every kind of plugin class registration shares: its ConfigDef built once from
// the descriptor's `define`, and a check that its factory made an instance. Used by
// the registry adapters of each kind (runtime/convert/plugin_converter.cpp,
// transforms/plugin_components.cpp).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "weir/config.hpp"

namespace weir::runtime {

/// The descriptor's ConfigDef (empty without `define`); throws std::invalid_argument
/// for a descriptor without a factory, naming its kind and class.
template <class Descriptor>
std::shared_ptr<ConfigDef> plugin_definition(const Descriptor& d, std::string_view kind) {
  if (!d.make)
    throw std::invalid_argument(std::string(kind) + " " + d.class_name + " has no make function");
  auto def = std::make_shared<ConfigDef>();
  if (d.define)
    d.define(*def);
  return def;
}

/// `made`, unless a plugin's factory returned nothing.
template <class Made>
Made plugin_made(Made made, const std::string& class_name) {
  if (!made)
    throw std::runtime_error("plugin class " + class_name + " made no instance");
  return made;
}

} // namespace weir::runtime
