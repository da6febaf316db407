// `weir transform`: runs converters and an SMT chain offline over JSON lines, so users
// can test a connector's transforms without Kafka (and so semantics can be checked
// from outside). See docs/transforms.md ("weir transform") for the formats.
#pragma once

#include <iosfwd>
#include <string>

namespace weir::cli {

/// Exit codes of run_offline_transform.
inline constexpr int offline_ok = 0;
inline constexpr int offline_config_error = 1; ///< bad or unreadable config: nothing ran
inline constexpr int offline_record_error = 2; ///< a record failed and errors.tolerance=none

/// Reads the properties file at `config_path` (converters, `transforms`,
/// `predicates`, `errors.tolerance`), then every JSON line of `in`; writes each
/// resulting record as a JSON line to `out` and problems to `err`, each naming the
/// input line. With errors.tolerance=none (the default) the run stops at the first
/// failed record, after writing the records before it.
int run_offline_transform(const std::string& config_path, std::istream& in, std::ostream& out,
                          std::ostream& err);

} // namespace weir::cli
