// Kafka Connect's config entities (ConfigKeyInfo, ConfigInfos) from weir's declared
// configuration, so a worker answers GET /connector-plugins/{p}/config and
// PUT .../config/validate from the same ConfigDef that parses the config.
#pragma once

#include <string>
#include <vector>

#include "runtime/rest/connect_herder.hpp"
#include "weir/config.hpp"

namespace weir::runtime::rest {

/// Every declared key, in declaration order. weir declares no display name, width
/// or dependents: the name, NONE and [] stand in, as in Kafka for keys without them.
/// `order` is the key's 1-based position in its group (-1 without a group).
std::vector<ConfigKeyInfo> config_key_infos(const ConfigDef& def);

/// The validate answer for `raw` against `def`: one entry per declared key (its
/// value as given, `[hidden]` for passwords, and its errors), then one per unknown
/// key that `issues` reports (weir rejects unknown keys; Kafka Connect ignores
/// them), so error_count counts every error that would stop the connector.
/// `issues` is def.validate(raw, ...) plus any cross-key checks of the connector.
ConfigInfos config_infos(std::string name, const ConfigDef& def, const ConfigMap& raw,
                         const std::vector<ConfigIssue>& issues);

/// Throws Kafka Connect's 400 for a config with errors: "Connector configuration is
/// invalid and contains the following N error(s):" then each error on its own line,
/// then where to find them (the validate endpoint). Returns if there are none.
void throw_if_invalid(const ConfigInfos& infos);

} // namespace weir::runtime::rest
