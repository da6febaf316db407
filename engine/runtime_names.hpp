// The engine is built on the runtime (the README's "Layout"). Its code names the
// runtime's types and modules as the runtime's own code does: `kafka::Consumer`,
// `DecodedBatch`, `SinkWriter` (runtime/connector_api, what a connector implements).
#pragma once

namespace weir::runtime {
namespace connector_api {}
namespace data {}
} // namespace weir::runtime

namespace weir::engine {
using namespace runtime;
using namespace runtime::connector_api;
namespace data = runtime::data; // not the SDK's weir::data, which it extends
} // namespace weir::engine
