// What this build of weir is, for GET / (Kafka Connect's ServerInfo `commit`).
#pragma once

#include <string_view>
#include "engine/runtime_names.hpp"

namespace weir::engine::worker {

/// The git commit weir was built from (16 hex digits, as Kafka's commitId), or
/// "unknown" when it was built outside a git checkout. Meson's vcs_tag writes it
/// at every build (engine/worker/meson.build).
std::string_view build_commit() noexcept;

} // namespace weir::engine::worker
