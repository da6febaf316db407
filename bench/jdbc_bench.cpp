// Rows per second into SQLite: JdbcSinkWriter against a raw prepared-statement loop.
//
//   jdbc_bench [--records N] [--batch B] [--rounds R]
//              [--bootstrap-servers S --topic T [--pk-fields F] [--table NAME] [--poll P]]
//
// Synthetic rows (always): N rows of six columns (PRIMARY KEY id, ids in order):
//   raw      prepare one INSERT, then bind + step + reset per row from C++ values;
//   upsert   JdbcSinkWriter, insert.mode=upsert, pk.mode=record_value, pk.fields=id,
//            from schemaless JSON records decoded beforehand (decoding is not timed),
//            one write() of all N records;
//   upsert/B the same in write() calls of B records (one transaction each), as a
//            pipeline with batches of B delivers them.
// Topic rows (with --bootstrap-servers and --topic): the first N records of topic T
// (schemaless JSON values, as bench/run.sh's sink reads them), in the order a plain
// consumer of a fresh group delivers them (partitions interleaved, as the sink gets
// them). Reading and decoding are not timed. The table is the one the sink's
// auto.create makes for these records (pk.mode=record_value, pk.fields=F, default
// event_id; table.name.format=NAME, default user_events, as in bench/run.sh): the
// same CREATE TABLE text, built by the sink's own row mapper and SQL text.
//   raw        the raw loop above on these rows, in consumer order: the fair
//              baseline for the sink on this topic (bench/run.sh's target);
//   raw/sorted the same rows sorted by primary key (appends to the rowid table, as
//              the synthetic rows are): what the order alone costs SQLite;
//   raw/P      the consumer-order loop committing every P rows (--poll, default
//              2,000: the sink's batch size, and so its transaction size);
//   upsert/poll JdbcSinkWriter upsert of the decoded batches as polled (up to P
//              records each), one transaction each: raw/P plus weir's own work.
// Every database is a fresh file opened as the sink opens it (SQLITE_OPEN_NOMUTEX,
// journal_mode=WAL, synchronous=NORMAL); each raw loop but raw/P is one transaction.
// Each line gives rows per wall second and the timing thread's CPU (user+sys) per row,
// which other load on the machine disturbs less. Each database file is deleted and
// the page cache flushed after its loop (untimed). The issue's target: the sink >= 60%
// of raw. Each figure is the best of R rounds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "connectors/jdbc/row_mapper.hpp"
#include "connectors/jdbc/sql_text.hpp"
#include "connectors/jdbc/sqlite_sink_writer.hpp"
#include "runtime/convert/converter.hpp"
#include "runtime/kafka/consumer.hpp"

using namespace weir;
using clock_type = std::chrono::steady_clock;
namespace fs = std::filesystem;
namespace jdbc = connectors::jdbc;

namespace {

struct Person {
  int64_t id;
  std::string name;
  std::string email;
  double score;
  bool active;
  int64_t ts;
};

std::vector<Person> make_people(size_t n) {
  std::vector<Person> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back({static_cast<int64_t>(i), "user-" + std::to_string(i),
                   "user" + std::to_string(i % 5000) + "@example.com", static_cast<double>(i % 1000) / 8.0,
                   i % 3 != 0, 1700000000000 + static_cast<int64_t>(i)});
  return out;
}

std::string json(const Person& p) {
  return R"({"id":)" + std::to_string(p.id) + R"(,"name":")" + p.name + R"(","email":")" + p.email +
         R"(","score":)" + std::to_string(p.score) + R"(,"active":)" + (p.active ? "true" : "false") +
         R"(,"ts":)" + std::to_string(p.ts) + "}";
}

/// One loop's figures: rows per wall second, and the timing thread's CPU (user+sys)
/// per row, which a busy machine disturbs less than the wall clock.
struct Rate {
  double rows_per_s = 0;
  double cpu_us_per_row = 0;

  /// The better of two rounds, figure by figure.
  void keep_best(const Rate& r) {
    rows_per_s = std::max(rows_per_s, r.rows_per_s);
    cpu_us_per_row = cpu_us_per_row == 0 ? r.cpu_us_per_row : std::min(cpu_us_per_row, r.cpu_us_per_row);
  }
};

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// Started at construction; rate(rows) reads both clocks.
class Stopwatch {
public:
  Rate rate(size_t rows) const {
    double wall = std::chrono::duration<double>(clock_type::now() - wall0_).count();
    auto n = static_cast<double>(rows);
    return {n / wall, 1e6 * (thread_cpu_s() - cpu0_) / n};
  }

private:
  clock_type::time_point wall0_ = clock_type::now();
  double cpu0_ = thread_cpu_s();
};

std::ostream& operator<<(std::ostream& out, const Rate& r) {
  char cpu[32];
  std::snprintf(cpu, sizeof cpu, "%.2f", r.cpu_us_per_row);
  return out << static_cast<int64_t>(r.rows_per_s) << " rows/s, " << cpu << " us CPU/row";
}

[[noreturn]] void die(const std::string& what) {
  std::cerr << "jdbc_bench: " << what << "\n";
  std::exit(1);
}

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE) die(std::string(what) + ": " + sqlite3_errmsg(db));
}

runtime::convert::RecordCodec make_codec() {
  return runtime::convert::RecordCodec(
      runtime::convert::make_converter("StringConverter", {}, true),
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
}

// The raw loop: a fresh database opened as JdbcSinkWriter opens its own, `create`
// run untimed; then, timed, `insert` prepared once and bind_row(stmt, i) + step +
// reset for i in [0, rows), in one transaction (or one per `per_transaction` rows).
// Rows per second.
template <class BindRow>
Rate raw_loop(const std::string& path, const std::string& create, const std::string& insert, size_t rows,
                BindRow bind_row, size_t per_transaction = 0) {
  sqlite3* db = nullptr;
  check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr),
        db, "open");
  check(sqlite3_exec(db, ("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; " + create).c_str(), nullptr, nullptr,
                     nullptr),
        db, "setup");
  Stopwatch watch;
  sqlite3_stmt* s = nullptr;
  check(sqlite3_prepare_v2(db, insert.c_str(), -1, &s, nullptr), db, "prepare");
  check(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), db, "begin");
  for (size_t i = 0; i < rows; ++i) {
    if (per_transaction && i != 0 && i % per_transaction == 0)
      check(sqlite3_exec(db, "COMMIT; BEGIN IMMEDIATE", nullptr, nullptr, nullptr), db, "commit");
    bind_row(s, i);
    check(sqlite3_step(s), db, "step");
    sqlite3_reset(s);
  }
  check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  Rate rate = watch.rate(rows);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rate;
}

Rate raw_people(const std::string& path, const std::vector<Person>& people) {
  return raw_loop(path,
                  "CREATE TABLE t (id INTEGER NOT NULL, name TEXT, email TEXT, score REAL,"
                  " active INTEGER, ts INTEGER, PRIMARY KEY (id))",
                  "INSERT INTO t (id, name, email, score, active, ts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", people.size(),
                  [&](sqlite3_stmt* s, size_t i) {
                    const Person& p = people[i];
                    sqlite3_bind_int64(s, 1, p.id);
                    sqlite3_bind_text(s, 2, p.name.data(), static_cast<int>(p.name.size()), SQLITE_STATIC);
                    sqlite3_bind_text(s, 3, p.email.data(), static_cast<int>(p.email.size()), SQLITE_STATIC);
                    sqlite3_bind_double(s, 4, p.score);
                    sqlite3_bind_int(s, 5, p.active ? 1 : 0);
                    sqlite3_bind_int64(s, 6, p.ts);
                  });
}

std::vector<runtime::data::DecodedBatch> decode(const std::vector<Person>& people, size_t batch) {
  auto codec = make_codec();
  std::vector<runtime::data::DecodedBatch> out;
  for (size_t first = 0; first < people.size(); first += batch) {
    Batch raw;
    size_t end = std::min(people.size(), first + batch);
    for (size_t i = first; i < end; ++i) {
      auto text = json(people[i]);
      raw.append("people", 0, static_cast<int64_t>(i), 0, std::nullopt, std::string_view(text));
    }
    out.push_back(codec.decode(std::move(raw)));
  }
  return out;
}

jdbc::JdbcSinkConfig sink_config(const std::string& path, const std::string& pk_fields, const std::string& table) {
  return jdbc::JdbcSinkConfig::parse({{"connection.url", "jdbc:sqlite:" + path},
                                      {"insert.mode", "upsert"},
                                      {"pk.mode", "record_value"},
                                      {"pk.fields", pk_fields},
                                      {"auto.create", "true"},
                                      {"table.name.format", table}});
}

Rate writer_loop(const jdbc::JdbcSinkConfig& config, std::vector<runtime::data::DecodedBatch>& batches,
                   size_t rows) {
  jdbc::JdbcSinkWriter writer(config, "bench", 0);
  Stopwatch watch;
  for (auto& b : batches) writer.write(b);
  Rate rate = watch.rate(rows);
  if (writer.stats().written != rows || writer.stats().failed != 0)
    die("writer wrote " + std::to_string(writer.stats().written) + " rows, failed " +
        std::to_string(writer.stats().failed));
  return rate;
}

// --- the topic's rows ---------------------------------------------------------------

/// One column value of a topic row, as plain C++ data for the raw loop.
struct Cell {
  enum class Type : uint8_t { Null, Int, Real, Text } type = Type::Null;
  int64_t i = 0;
  double d = 0;
  std::string_view text; ///< into the decoded batch, which TopicRows keeps
};

/// The first N records of a topic in consumer order: decoded batches (as polled,
/// for the writer) and the same records as rows of cells (for the raw loop).
struct TopicRows {
  std::string create_sql, insert_sql; ///< what the sink's auto.create and INSERT would run
  std::vector<std::string> columns;
  std::vector<Cell> cells; ///< rows() * columns.size(), row by row
  std::vector<runtime::data::DecodedBatch> batches;

  size_t rows() const noexcept { return columns.empty() ? 0 : cells.size() / columns.size(); }
  const Cell* row(size_t i) const noexcept { return cells.data() + i * columns.size(); }
};

Cell to_cell(const jdbc::Column& c) {
  using runtime::data::Kind;
  const auto& v = c.value;
  switch (v.kind()) {
    case Kind::Null: return {};
    case Kind::Boolean: return {Cell::Type::Int, v.as_bool() ? 1 : 0, 0, {}};
    case Kind::Int8: case Kind::Int16: case Kind::Int32: case Kind::Int64:
      return {Cell::Type::Int, v.as_int(), 0, {}};
    case Kind::Float32: case Kind::Float64: return {Cell::Type::Real, 0, v.as_double(), {}};
    case Kind::String: return {Cell::Type::Text, 0, 0, v.as_string()};
    default:
      die("column " + std::string(c.name) + " holds a " + std::string(to_string(v.kind())) +
          ": the raw baseline binds only nulls, booleans, numbers and strings");
  }
}

// Reads `records` records of `topic` with weir's consumer (a fresh group, from the
// beginning, in batches of at most `poll` records) and maps them as the sink does
// (same converter, same row mapper).
TopicRows read_topic(const std::string& bootstrap, const std::string& topic, size_t records, size_t poll,
                     const jdbc::JdbcSinkConfig& config) {
  runtime::kafka::Consumer consumer({{"bootstrap.servers", bootstrap},
                                     {"group.id", "jdbc-bench-" + std::to_string(::getpid()) + "-" +
                                                      std::to_string(std::time(nullptr))}});
  consumer.subscribe({topic});
  auto codec = make_codec();
  jdbc::RowMapper mapper(config);
  const std::string table = config.table_name(topic);
  TopicRows out;
  jdbc::Row row;
  size_t seen = 0;
  auto idle_since = clock_type::now();
  while (seen < records) {
    Batch raw;
    if (consumer.poll(raw, std::min(poll, records - seen), size_t{1} << 20, std::chrono::milliseconds(500)) ==
        0) {
      if (clock_type::now() - idle_since > std::chrono::seconds(60))
        die("topic " + topic + " gave " + std::to_string(seen) + " of " + std::to_string(records) +
            " records, then nothing for 60 s");
      continue;
    }
    idle_since = clock_type::now();
    auto& batch = out.batches.emplace_back(codec.decode(std::move(raw)));
    for (uint32_t i = 0; i < batch.size(); ++i) {
      if (!batch[i].live()) die("record " + std::to_string(seen + i) + " of " + topic + " did not decode");
      mapper.map(batch[i], table, batch.arena(), false, row);
      if (out.columns.empty()) {
        for (const auto& c : row.columns) out.columns.emplace_back(c.name);
        std::string quoted_table = jdbc::quoted(table);
        out.create_sql = jdbc::create_table_sql(quoted_table, row);
        out.insert_sql = jdbc::statement_sql(quoted_table, jdbc::Op::Insert, row);
      }
      bool same = row.columns.size() == out.columns.size();
      for (size_t c = 0; same && c < row.columns.size(); ++c) same = row.columns[c].name == out.columns[c];
      if (!same) die("record " + std::to_string(seen + i) + " of " + topic + " has other columns than the first");
      for (const auto& c : row.columns) out.cells.push_back(to_cell(c));
    }
    seen += batch.size();
  }
  consumer.close();
  return out;
}

// The raw loop over the topic's rows, in `order` (row indices).
Rate raw_topic(const std::string& path, const TopicRows& rows, const std::vector<uint32_t>& order,
                 size_t per_transaction = 0) {
  const int width = static_cast<int>(rows.columns.size());
  return raw_loop(path, rows.create_sql, rows.insert_sql, order.size(), [&](sqlite3_stmt* s, size_t i) {
    const Cell* cells = rows.row(order[i]);
    for (int c = 0; c < width; ++c) {
      const Cell& cell = cells[c];
      switch (cell.type) {
        case Cell::Type::Null: sqlite3_bind_null(s, c + 1); break;
        case Cell::Type::Int: sqlite3_bind_int64(s, c + 1, cell.i); break;
        case Cell::Type::Real: sqlite3_bind_double(s, c + 1, cell.d); break;
        case Cell::Type::Text:
          sqlite3_bind_text(s, c + 1, cell.text.data(), static_cast<int>(cell.text.size()), SQLITE_STATIC);
          break;
      }
    }
  }, per_transaction);
}

// Row indices sorted by the primary key (its first column, an integer or text).
std::vector<uint32_t> key_order(const TopicRows& rows) {
  std::vector<uint32_t> order(rows.rows());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Cell &x = rows.row(a)[0], &y = rows.row(b)[0];
    return x.type == Cell::Type::Text ? x.text < y.text : x.i < y.i;
  });
  return order;
}

int pct(const Rate& a, const Rate& b) {
  return b.rows_per_s > 0 ? static_cast<int>(100 * a.rows_per_s / b.rows_per_s) : 0;
}

} // namespace

int main(int argc, char** argv) {
  size_t records = 1000000, batch = 10000, poll = 2000;
  int rounds = 3;
  std::string bootstrap, topic, pk_fields = "event_id", table = "user_events";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--records") records = std::stoul(argv[i + 1]);
    else if (arg == "--batch") batch = std::stoul(argv[i + 1]);
    else if (arg == "--rounds") rounds = std::stoi(argv[i + 1]);
    else if (arg == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (arg == "--topic") topic = argv[i + 1];
    else if (arg == "--pk-fields") pk_fields = argv[i + 1];
    else if (arg == "--table") table = argv[i + 1];
    else if (arg == "--poll") poll = std::stoul(argv[i + 1]);
    else {
      std::cerr << "usage: jdbc_bench [--records N] [--batch B] [--rounds R]\n"
                   "                  [--bootstrap-servers S --topic T [--pk-fields F] [--table NAME] [--poll P]]\n";
      return 2;
    }
  }
  if (bootstrap.empty() != topic.empty()) die("--bootstrap-servers and --topic go together");
  if (records == 0 || batch == 0 || poll == 0 || rounds < 1)
    die("--records, --batch, --poll and --rounds must be positive");
  spdlog::set_level(spdlog::level::warn); // no CREATE TABLE lines between the figures
  char tmpl[] = "/tmp/weir-jdbc-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) die("cannot create a directory in /tmp");
  fs::path dir = tmpl;
  // Runs loop(path) on a fresh database file, then deletes the file and flushes the
  // page cache (untimed), so that no loop pays for the previous one's writeback.
  auto on_fresh_db = [&](const char* name, auto&& loop) {
    auto path = (dir / name).string();
    auto remove = [&] {
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
    };
    remove();
    Rate rate = loop(path);
    remove();
    ::sync();
    return rate;
  };

  TopicRows rows;
  std::vector<uint32_t> consumed, sorted;
  if (!topic.empty()) {
    try {
      rows = read_topic(bootstrap, topic, records, poll, sink_config((dir / "topic.db").string(), pk_fields, table));
    } catch (const std::exception& e) {
      die("reading " + topic + ": " + e.what());
    }
    consumed.resize(rows.rows());
    std::iota(consumed.begin(), consumed.end(), 0u);
    sorted = key_order(rows);
  }

  auto people = make_people(records);
  Rate raw, whole, batched, topic_raw, topic_sorted, topic_polled, topic_writer;
  for (int r = 0; r < rounds; ++r) {
    raw.keep_best(on_fresh_db("raw.db", [&](const std::string& db) { return raw_people(db, people); }));
    auto one = decode(people, records);
    whole.keep_best(on_fresh_db("whole.db", [&](const std::string& db) {
      return writer_loop(sink_config(db, "id", "${topic}"), one, records);
    }));
    one.clear();
    auto many = decode(people, batch);
    batched.keep_best(on_fresh_db("batched.db", [&](const std::string& db) {
      return writer_loop(sink_config(db, "id", "${topic}"), many, records);
    }));
    if (topic.empty()) continue;
    topic_raw.keep_best(
        on_fresh_db("topic-raw.db", [&](const std::string& db) { return raw_topic(db, rows, consumed); }));
    topic_sorted.keep_best(
        on_fresh_db("topic-sorted.db", [&](const std::string& db) { return raw_topic(db, rows, sorted); }));
    topic_polled.keep_best(
        on_fresh_db("topic-polled.db", [&](const std::string& db) { return raw_topic(db, rows, consumed, poll); }));
    topic_writer.keep_best(on_fresh_db("topic-upsert.db", [&](const std::string& db) {
      return writer_loop(sink_config(db, pk_fields, table), rows.batches, rows.rows());
    }));
  }
  fs::remove_all(dir);

  std::cout << "jdbc_bench: " << records << " rows, best of " << rounds << " rounds\n"
            << "  raw prepared INSERT loop, 1 transaction : " << raw << "\n"
            << "  JdbcSinkWriter upsert, 1 transaction    : " << whole << " (" << pct(whole, raw)
            << "% of raw; target >= 60%)\n"
            << "  JdbcSinkWriter upsert, batches of " << batch << " : " << batched << " (" << pct(batched, raw)
            << "% of raw)\n";
  if (!topic.empty())
    std::cout << "topic " << topic << ": " << rows.rows() << " records in consumer order, " << rows.columns.size()
              << " columns: " << rows.create_sql << "\n"
              << "  same-rows raw INSERT loop, consumer order, 1 transaction : " << topic_raw << "\n"
              << "  same-rows raw INSERT loop, key order, 1 transaction      : " << topic_sorted << "\n"
              << "  same-rows raw INSERT loop, consumer order, " << poll << " per transaction : " << topic_polled
              << "\n"
              << "  same-rows JdbcSinkWriter upsert, batches as polled       : " << topic_writer << " ("
              << pct(topic_writer, topic_raw) << "% of same-rows raw, " << pct(topic_writer, topic_polled) << "% of "
              << poll << " per transaction)\n";
  return 0; // a benchmark reports; it never fails on timing
}
