// What the fault suites produce and how they check what arrived: records numbered
// 0..n-1 with JSON values {"user_id":N,"name":"user-N"}, read back from a
// FileStreamSink's file (one `{user_id=N, name=user-N}` line each) or a JDBC sink's
// SQLite table (a user_id column), and tallied: missing, duplicated, foreign.
#pragma once

#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace weir::testing {

inline std::string user_json(size_t id) {
  return R"({"user_id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id) + R"("})";
}

/// Records `first`..`first + n - 1` as user_json values keyed by their number, spread
/// over `partitions` partitions.
inline void produce_users(const std::string& topic, size_t first, size_t n, int32_t partitions) {
  produce(topic, n, [&](size_t i) {
    auto id = first + i;
    return OutRecord{static_cast<int32_t>(id % static_cast<size_t>(partitions)), std::to_string(id), user_json(id)};
  });
}

/// A JDBC sink connector into SQLite table `table` of `db`: insert mode, no keys
/// (the offsets stored with the rows make it exactly-once), the table auto-created.
inline std::map<std::string, std::string> sqlite_sink_config(const std::string& name, const std::string& topic,
                                                             const std::string& db, const std::string& table,
                                                             int tasks) {
  return {{"name", name},
          {"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
          {"tasks.max", std::to_string(tasks)},
          {"topics", topic},
          {"connection.url", "jdbc:sqlite:" + db},
          {"table.name.format", table},
          {"insert.mode", "insert"},
          {"pk.mode", "none"},
          {"auto.create", "true"}};
}

/// Rows in an SQLite table; 0 while the database or the table does not exist yet.
inline int64_t sqlite_rows(const std::string& db, const std::string& table) {
  return ::access(db.c_str(), F_OK) == 0 ? Sqlite{db}.scalar("SELECT count(*) FROM \"" + table + "\"", 0) : 0;
}

/// How many times each of the ids 0..n-1 arrived.
struct Tally {
  std::vector<uint32_t> seen;
  size_t foreign = 0;
  std::string first_foreign;

  explicit Tally(size_t n) : seen(n, 0) {}

  /// Counts the id `text` names; anything else (or an id >= n) counts as foreign.
  void add(std::string_view text) {
    size_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc{} || end != text.data() + text.size() || id >= seen.size()) {
      if (foreign++ == 0) first_foreign = std::string{text.substr(0, 200)};
      return;
    }
    ++seen[id];
  }
  void count(size_t id) { id < seen.size() ? void(++seen[id]) : add(std::to_string(id)); }
  size_t distinct() const { return seen.size() - missing(); }
  size_t missing() const { return static_cast<size_t>(std::count(seen.begin(), seen.end(), 0u)); }
  size_t duplicates() const {
    size_t d = 0;
    for (auto c : seen) d += c > 1 ? c - 1 : 0;
    return d;
  }
  std::string describe() const {
    return std::to_string(distinct()) + " of " + std::to_string(seen.size()) + " ids, " + std::to_string(missing())
           + " missing, " + std::to_string(duplicates()) + " duplicates, " + std::to_string(foreign) + " foreign"
           + (foreign ? " (first: " + first_foreign + ")" : "");
  }
};

/// The ids in a FileStreamSink's file: schemaless maps print as {user_id=N, name=user-N}
/// (with `pad` bytes, {user_id=N, name=user-N, pad=ppp...}). A line that is not
/// exactly that, a torn or fused one say, counts as foreign.
inline Tally file_tally(const std::string& path, size_t n, size_t pad = 0) {
  Tally t{n};
  const std::string tail = pad ? ", pad=" + std::string(pad, 'p') + "}" : "}";
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view prefix = "{user_id=";
    std::string_view l{line};
    size_t id = 0;
    bool ok = l.starts_with(prefix);
    if (ok) {
      auto [end, ec] = std::from_chars(l.data() + prefix.size(), l.data() + l.size(), id);
      auto name = ", name=user-" + std::to_string(id);
      ok = ec == std::errc{} && std::string_view{end, l.data() + l.size()} == name + tail;
    }
    if (!ok) {
      if (t.foreign++ == 0) t.first_foreign = line.substr(0, 200);
      continue;
    }
    t.count(id);
  }
  return t;
}

/// The ids in column user_id of an SQLite table.
inline Tally table_tally(const std::string& db, const std::string& table, size_t n) {
  Tally t{n};
  for (const auto& row : Sqlite{db}.query("SELECT user_id FROM \"" + table + "\""))
    t.add(row.at(0));
  return t;
}

} // namespace weir::testing
