#include "connectors/jdbc/postgres_url.hpp"

#include <algorithm>
#include <charconv>

#include "weir/config.hpp"

namespace weir::connectors::jdbc {

namespace {

constexpr std::string_view prefix = "jdbc:postgresql:";
constexpr std::string_view key = "connection.url";

[[noreturn]] void malformed(const std::string& why) {
  throw ConfigError(std::string(key), "Invalid value for configuration " + std::string(key) +
                                          ": the PostgreSQL URL " + why +
                                          " (expected jdbc:postgresql://host[:port][,host2[:port2]...]"
                                          "[/database][?key=value&...])");
}

int hex(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// URL decoding as java.net.URLDecoder (which PgJDBC uses): %XX and '+' for a space.
// `what` names the part for messages: never the value itself (it may be a password).
std::string decode(std::string_view s, std::string_view what) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      int hi = i + 2 < s.size() ? hex(s[i + 1]) : -1;
      int lo = hi >= 0 ? hex(s[i + 2]) : -1;
      if (lo < 0) malformed("has a bad percent escape in " + std::string(what));
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// `options` holds command-line switches separated by spaces: escape spaces and
// backslashes in a value with a backslash (libpq's rule).
std::string escape_option(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == ' ' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

struct Builder {
  PostgresConnection conn;

  void set(std::string_view k, std::string v) {
    for (auto& [name, value] : conn.keywords)
      if (name == k) {
        value = std::move(v);
        return;
      }
    conn.keywords.emplace_back(std::string(k), std::move(v));
  }

  void parameter(std::string_view name, std::string value) {
    static constexpr std::string_view same[] = {"user", "password", "sslmode", "sslrootcert", "sslcert", "sslkey"};
    if (std::find(std::begin(same), std::end(same), name) != std::end(same)) return set(name, std::move(value));
    if (name == "connectTimeout") return set("connect_timeout", std::move(value));
    if (name == "ApplicationName") return set("application_name", std::move(value));
    if (name == "currentSchema") return set("options", "-c search_path=" + escape_option(value));
    if (name == "tcpKeepAlive") return set("keepalives", value == "true" ? "1" : "0");
    if (name == "targetServerType") {
      if (value == "primary" || value == "master") return set("target_session_attrs", "read-write");
      if (value == "secondary" || value == "slave" || value == "standby") return set("target_session_attrs", "standby");
      if (value == "preferSecondary" || value == "preferSlave" || value == "preferStandby")
        return set("target_session_attrs", "prefer-standby");
      if (value == "any") return set("target_session_attrs", "any");
      malformed("has targetServerType=" + value + ", which is none of any, primary, secondary, preferSecondary");
    }
    conn.ignored.emplace_back(name);
  }
};

void parse_port(std::string_view text, std::string& out) {
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || port < 1 || port > 65535)
    malformed("has a bad port '" + std::string(text) + "'");
  out = std::string(text);
}

} // namespace

std::string_view PostgresConnection::get(std::string_view keyword) const noexcept {
  for (const auto& [k, v] : keywords)
    if (k == keyword) return v;
  return {};
}

std::vector<std::pair<std::string, std::string>> PostgresConnection::client_keywords() const {
  auto kw = keywords;
  auto fallback = [&](std::string_view k, std::string v) {
    if (get(k).empty())
      kw.emplace_back(std::string(k), std::move(v));
  };
  fallback("connect_timeout", "10");
  fallback("keepalives_idle", "30");
  fallback("keepalives_interval", "10");
  fallback("keepalives_count", "3");
  fallback("fallback_application_name", "weir");
  kw.emplace_back("client_encoding", "UTF8");
  return kw;
}

std::string PostgresConnection::describe() const {
  std::string out;
  for (std::string_view k : {"host", "port", "dbname", "user"}) {
    if (get(k).empty()) continue;
    if (!out.empty()) out += ' ';
    out.append(k).append("=").append(get(k));
  }
  return out;
}

bool is_postgres_url(std::string_view url) noexcept { return url.starts_with(prefix); }

PostgresConnection parse_postgres_url(std::string_view url, std::string_view user, std::string_view password) {
  if (!is_postgres_url(url)) malformed("does not start with " + std::string(prefix));
  std::string_view rest = url.substr(prefix.size());
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  Builder b;
  std::string hosts, ports, dbname;
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    dbname = slash == std::string_view::npos ? "" : decode(rest.substr(slash + 1), "the database name");
    if (authority.empty()) authority = "localhost";
    while (true) {
      auto comma = authority.find(',');
      std::string_view entry = authority.substr(0, comma);
      std::string host, port = "5432";
      if (entry.starts_with('[')) { // [IPv6]:port
        auto close = entry.find(']');
        if (close == std::string_view::npos) malformed("has an IPv6 address without ']'");
        host = std::string(entry.substr(1, close - 1));
        std::string_view after = entry.substr(close + 1);
        if (!after.empty()) {
          if (after[0] != ':') malformed("has text after an IPv6 address");
          parse_port(after.substr(1), port);
        }
      } else {
        auto colon = entry.rfind(':');
        host = std::string(entry.substr(0, colon));
        if (colon != std::string_view::npos) parse_port(entry.substr(colon + 1), port);
      }
      if (host.empty()) malformed("has an empty host name");
      hosts += (hosts.empty() ? "" : ",") + host;
      ports += (ports.empty() ? "" : ",") + port;
      if (comma == std::string_view::npos) break;
      authority.remove_prefix(comma + 1);
    }
  } else {
    // jdbc:postgresql:database (localhost:5432), as PgJDBC also accepts.
    if (rest.find('/') != std::string_view::npos) malformed("has a path but no //host");
    hosts = "localhost", ports = "5432";
    dbname = decode(rest, "the database name");
  }
  b.set("host", std::move(hosts));
  b.set("port", std::move(ports));
  if (!dbname.empty()) b.set("dbname", std::move(dbname));
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      auto eq = pair.find('=');
      std::string name = decode(pair.substr(0, eq), "a parameter name");
      // The name may appear in messages; the value never does.
      std::string value = eq == std::string_view::npos ? "" : decode(pair.substr(eq + 1), "parameter " + name);
      if (name.empty()) malformed("has a parameter without a name");
      b.parameter(name, std::move(value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  if (!user.empty()) b.set("user", std::string(user));
  if (!password.empty()) b.set("password", std::string(password));
  return std::move(b.conn);
}

} // namespace weir::connectors::jdbc
