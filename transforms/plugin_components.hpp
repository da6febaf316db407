// A plugin's transformation or predicate (weir/transform.hpp) as a registry entry:
// its ConfigDef built once, and each instance wrapped as a built-in stage sees it.
// A RecordView is the SDK's Record, so a plugin's apply() gets the record itself:
// no copy, no conversion.
#pragma once

#include <string>

#include "transforms/transform_registry.hpp"
#include "weir/transform.hpp"

namespace weir::transforms {

/// The registry entry for a plugin's transformation, loaded from `path`. Calls
/// `descriptor.define` once (what it throws propagates).
TransformationInfo plugin_transformation(const TransformationDescriptor& descriptor, std::string path);
PredicateInfo plugin_predicate(const PredicateDescriptor& descriptor, std::string path);

} // namespace weir::transforms
