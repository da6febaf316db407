// Avro schema resolution as a compatibility check: whether a reader's schema can read
// what a writer's schema wrote (Avro Java's SchemaCompatibility, which Confluent's
// AvroSchema.isBackwardCompatible calls). Records match fields by name, a reader field
// the writer lacks needs a default; named types match by unqualified name; int ->
// long -> float -> double and string <-> bytes are promotions; a writer union needs
// each branch readable, a reader union one branch that reads the writer.
#pragma once

#include <string>
#include <vector>

#include "runtime/convert/avro_schema.hpp"

namespace weir::runtime::convert::avro {

/// What keeps `reader` from reading data written with `writer`, one entry per
/// incompatibility in Confluent's Difference form ({errorType:'...', description:'...',
/// additionalInfo:'...'}); empty when compatible.
std::vector<std::string> incompatibilities(const Node& reader, const Node& writer);

} // namespace weir::runtime::convert::avro
