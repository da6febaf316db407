// Log lines without secrets: every line weir logs through spdlog's default logger
// passes runtime::redact_log_line (values config providers gave, passwords in URLs)
// before any sink writes it, so no component has to remember to redact.
#pragma once

namespace weir::engine::worker {

/// Wraps the default logger's sinks in one that redacts each message. Idempotent;
/// call once at start, before connectors are planned.
void redact_logs();

} // namespace weir::engine::worker
