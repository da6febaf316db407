// Which config values are secrets, and how text that may hold one is shown: the
// REST API, status traces, the actor tree and logs show `[hidden]` (Kafka's
// Password.HIDDEN) where a secret would be.
//
// A value made only of config provider references (`${file:/etc/db.properties:pw}`)
// is shown as written, as Kafka Connect's GET /connectors/X/config does: it says
// where the secret is, not what it is.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::runtime {

/// Whether a key names a secret by its name alone (the keys Kafka and librdkafka
/// type PASSWORD, and their prefixed forms such as `consumer.override.X`): a last
/// segment `password` (or ending in it: `sslpassword`), `secret`, `token`, `passwd`
/// or `pwd`; or ending in `sasl.jaas.config`, `ssl.keystore.key`, `ssl.key.pem`.
bool is_secret_name(std::string_view key);

/// Whether `value` is one or more provider references and nothing else.
bool only_references(std::string_view value);

/// `text` with the credentials it carries replaced by `[hidden]`: the password of a
/// URL's user info (`scheme://user:PASSWORD@host`) and the value of a password
/// parameter (`password=`, `pwd=`, `passwd=`, `sslpassword=`..., after `?`, `&`,
/// `;`, a space or at the start, as in JDBC URLs and libpq connection strings;
/// a quoted libpq value whole). A credential that is a provider reference is kept.
std::string redact_credentials(std::string_view text);

/// The same, with every credential replaced by `with` (redact_credentials is
/// `replace_credentials(text, "[hidden]")`).
std::string replace_credentials(std::string_view text, std::string_view with);

/// `text` with each value of `replacements` (value -> what to show instead) of 4 or
/// more characters replaced whole, longest first, and then every run of 8 or more
/// characters that is also part of one of `secrets` (a piece of one quoted, cut
/// or transformed) replaced by `[hidden]`.
std::string hide_values(std::string_view text, std::vector<std::pair<std::string, std::string>> replacements,
                        const std::vector<std::string>& secrets);

/// Remembers a value a config provider gave, with the reference it was written as,
/// for redact_log_line (ConfigProviders::resolve calls it). Process-wide and
/// thread-safe; values of fewer than 4 characters are not remembered.
void remember_provided(const std::string& value, const std::string& reference);

/// A log line (or an error weir prints) as weir writes it: hide_values with the
/// remembered provided values and their references, then redact_credentials.
std::string redact_log_line(std::string_view line);

} // namespace weir::runtime
