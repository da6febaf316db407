// A plugin's converter or header converter (weir/converter.hpp) as a registry entry: its ConfigDef built
// once (with Kafka's `converter.type`, which weir sets from the direction), and each
// instance wrapped as the codec calls built-in converters. The plugin gets the
// batch itself (a DecodedBatch is the SDK's RecordBatch): no copy in between.
#pragma once

#include <string>

#include "runtime/convert/converter.hpp"
#include "weir/converter.hpp"

namespace weir::runtime::convert {

/// The registry entry for a plugin's converter loaded from `path`. Calls
/// `descriptor.define` once (what it throws propagates).
ConverterInfo plugin_converter(const ConverterDescriptor& descriptor, std::string path);
HeaderConverterInfo plugin_header_converter(const HeaderConverterDescriptor& descriptor, std::string path);

} // namespace weir::runtime::convert
