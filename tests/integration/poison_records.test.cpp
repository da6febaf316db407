// Poison records through every converter of a sink, on the real broker (issue 20):
// invalid JSON, invalid UTF-8, nesting 100,000 deep, empty and null values, and a
// 10 MB record, between good ones, read by two FileStreamSinks of one `weir
// standalone` with errors.tolerance=all: one with JsonConverter (schemas off), one
// with StringConverter. What JSON cannot read goes to the connector's DLQ with its
// context headers; everything else arrives once, in order, the 10 MB record too
// (it is larger than a hop's 8 MiB credit, which must let it through alone). A poison
// record too large for its DLQ fails the task instead of vanishing.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/kafka_tools.hpp"
#include "tests/support/rest_worker.hpp"

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

enum class Kind { good, bad_json, bad_utf8, deep, empty, null, huge };

struct Case {
  Kind kind;
  std::optional<std::string> value;
};

constexpr size_t n = 600;
constexpr size_t huge_size = 10 << 20;

// Record i: mostly good, each poison kind at fixed places.
Case record(size_t i) {
  auto good = [&] { return R"({"id":)" + std::to_string(i) + R"(,"name":"user-)" + std::to_string(i) + R"("})"; };
  switch (i % 100) {
    case 11: return {Kind::bad_json, R"({"id":)" + std::to_string(i) + ",}"};
    case 23: return {Kind::bad_utf8, R"({"id":)" + std::to_string(i) + ",\"name\":\"\xff\xfe\x80\"}"};
    case 37: return {Kind::deep, std::string(100000, '[') + std::string(100000, ']')};
    case 41: return {Kind::empty, std::string{}};
    case 59: return {Kind::null, std::nullopt};
    default: break;
  }
  if (i == 250)
    return {Kind::huge, R"({"id":250,"name":")" + std::string(huge_size, 'x') + R"("})"};
  return {Kind::good, good()};
}

// The line FileStreamSink writes for record i's value as JsonConverter (schemas off)
// reads it, or nullopt when that converter refuses it.
std::optional<std::string> json_line(size_t i) {
  auto c = record(i);
  switch (c.kind) {
    case Kind::good: return "{id=" + std::to_string(i) + ", name=user-" + std::to_string(i) + "}";
    case Kind::huge: return "{id=250, name=" + std::string(huge_size, 'x') + "}";
    case Kind::empty: case Kind::null: return "null"; // Jackson reads empty input as no value
    default: return std::nullopt;
  }
}

// The same for StringConverter: every value is a string (invalid UTF-8 as U+FFFD,
// as Java's decoder replaces it), a null is "null".
std::string string_line(size_t i) {
  auto c = record(i);
  if (c.kind == Kind::null)
    return "null";
  if (c.kind == Kind::bad_utf8)
    return R"({"id":)" + std::to_string(i) + ",\"name\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}";
  return *c.value;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::string text = read_file(path), line;
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    out.push_back(text.substr(from, nl - from));
  return out;
}

// Compares the file with the expected lines; reports the first difference briefly
// (a line may be 10 MB).
void check_lines(const std::string& what, const std::vector<std::string>& got, const std::vector<std::string>& want) {
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(got.size() == want.size());
    for (size_t k = 0; k < std::min(got.size(), want.size()); ++k)
      if (got[k] != want[k]) {
        BOOST_TEST(false, "line " << k << ": '" << got[k].substr(0, 80) << "' (" << got[k].size()
                                  << " bytes), expected '" << want[k].substr(0, 80) << "' (" << want[k].size()
                                  << " bytes)");
        break;
      }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(poison_records)

BOOST_AUTO_TEST_CASE(poison_goes_to_the_dlq_and_every_other_record_arrives_once_in_order) {
  TempDir dir{"weir-itest-poison"};
  auto topic = unique_name("weir-itest-poison");
  // One partition: offsets are record numbers. Room for the 10 MB record.
  weir::runtime::kafka::create_topics(broker(), {{topic, 1, 1, {{"max.message.bytes", "16777216"}}}});
  create_topic(topic, 1); // waits until the broker's metadata lists it
  produce(
    topic, n, [](size_t i) { return OutRecord{0, "key-" + std::to_string(i), record(i).value}; }, 50,
    {{"message.max.bytes", "16777216"}});

  auto worker = worker_config(dir / "state.db");
  write_properties(dir / "worker.properties", worker);
  auto sink = [&](const std::string& name, const std::string& converter, const std::string& file) {
    std::map<std::string, std::string> c{{"name", name},
                                         {"connector.class", "FileStreamSink"},
                                         {"topics", topic},
                                         {"file", file},
                                         {"value.converter", converter},
                                         {"value.converter.schemas.enable", "false"},
                                         {"errors.tolerance", "all"},
                                         {"errors.deadletterqueue.topic.name", name + "-dlq"},
                                         {"errors.deadletterqueue.topic.replication.factor", "1"},
                                         {"errors.deadletterqueue.context.headers.enable", "true"}};
    write_properties(dir / (name + ".properties"), c);
    return dir / (name + ".properties");
  };
  auto json_name = unique_name("poison-json"), string_name = unique_name("poison-string");
  auto weir = start_standalone(dir / "worker.properties",
                               {sink(json_name, "org.apache.kafka.connect.json.JsonConverter", dir / "json.txt"),
                                sink(string_name, "org.apache.kafka.connect.storage.StringConverter",
                                     dir / "string.txt")},
                               dir / "weir.log");

  std::vector<std::string> want_json, want_string;
  std::map<int64_t, std::string> poison; // offset -> value, for JsonConverter
  for (size_t i = 0; i < n; ++i) {
    if (auto line = json_line(i))
      want_json.push_back(*line);
    else
      poison[static_cast<int64_t>(i)] = *record(i).value;
    want_string.push_back(string_line(i));
  }
  bool done = wait_until(60s, 500ms, [&] {
    return !weir->running()
           || (lines_of(dir / "json.txt").size() >= want_json.size()
               && lines_of(dir / "string.txt").size() >= want_string.size());
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_TEST(done, "not every record arrived within 60 s (" << dir.path() << "):\n" << tail_lines(weir->output()));
  check_lines("JsonConverter's file", lines_of(dir / "json.txt"), want_json);
  check_lines("StringConverter's file", lines_of(dir / "string.txt"), want_string);

  // What JsonConverter refused is in its DLQ, unchanged, once, with its position.
  auto dead = read_topic(json_name + "-dlq", poison.size(), 60s);
  BOOST_TEST(dead.size() == poison.size());
  for (const auto& r : dead) {
    int64_t offset = -1;
    try {
      offset = std::stoll(r.header("__connect.errors.offset"));
    } catch (const std::exception&) {
    }
    BOOST_TEST_CONTEXT("DLQ record of offset " << offset) {
      auto it = poison.find(offset);
      BOOST_REQUIRE_MESSAGE(it != poison.end(), "not a poison record's offset");
      BOOST_TEST((r.value == it->second), "its value changed");
      BOOST_TEST(r.key.value_or("<null>") == "key-" + std::to_string(offset));
      BOOST_TEST(r.header("__connect.errors.topic") == topic);
      BOOST_TEST(r.header("__connect.errors.partition") == "0");
      BOOST_TEST(r.header("__connect.errors.stage") == "VALUE_CONVERTER");
      BOOST_TEST(r.header("__connect.errors.exception.class.name")
                 == "org.apache.kafka.connect.errors.DataException");
      poison.erase(it);
    }
  }
  BOOST_TEST(poison.empty(), poison.size() << " poison record(s) missing from the DLQ");
  // StringConverter refused nothing: its DLQ stays empty.
  BOOST_TEST(read_topic(string_name + "-dlq", 0, 0s, 2s).empty());
  // And /metrics counts what went to each DLQ, under Kafka Connect's name.
  auto port = rest_port_of(*weir);
  BOOST_REQUIRE(port != 0);
  auto metrics = weir::runtime::rest::test::TestClient{port}.request("GET", "/metrics").body;
  for (const auto& [name, sent] : {std::pair{json_name, dead.size()}, std::pair{string_name, size_t{0}}})
    BOOST_TEST(metrics.find("kafka_connect_task_error_deadletterqueue_produce_requests{connector=\"" + name
                            + "\",task=\"0\"} " + std::to_string(sent) + "\n")
                 != std::string::npos,
               name << " did not count " << sent << " record(s) sent to its DLQ:\n" << metrics);
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

// A poison record the DLQ cannot take (larger than its topic's max.message.bytes)
// fails the task with that reason: it is not dropped, and nothing after it is written
// or committed. (Kafka Connect logs the failed DLQ write and goes on.)
BOOST_AUTO_TEST_CASE(a_poison_record_the_dlq_refuses_fails_the_task) {
  TempDir dir{"weir-itest-poison"};
  auto topic = unique_name("weir-itest-poison-big");
  weir::runtime::kafka::create_topics(broker(), {{topic, 1, 1, {{"max.message.bytes", "16777216"}}}});
  create_topic(topic, 1);
  const std::string big_bad = R"({"id":1,"name":")" + std::string(huge_size, 'x'); // unterminated
  produce(
    topic, 3,
    [&](size_t i) { return OutRecord{0, "k", i == 1 ? big_bad : R"({"id":)" + std::to_string(i) + "}"}; }, 50,
    {{"message.max.bytes", "16777216"}});
  write_properties(dir / "worker.properties", worker_config(dir / "state.db"));
  auto name = unique_name("poison-big");
  write_properties(dir / "sink.properties", {{"name", name},
                                             {"connector.class", "FileStreamSink"},
                                             {"topics", topic},
                                             {"file", dir / "out.txt"},
                                             {"errors.tolerance", "all"},
                                             {"errors.deadletterqueue.topic.name", name + "-dlq"},
                                             {"errors.deadletterqueue.topic.replication.factor", "1"}});
  auto weir = start_standalone(dir / "worker.properties", {dir / "sink.properties"}, dir / "weir.log");
  std::vector<TaskStatus> status;
  bool failed = wait_until(60s, 500ms, [&] {
    status = task_statuses(dir / "state.db", name);
    return !weir->running() || (status.size() == 1 && status[0].state == "FAILED");
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(failed, "the task did not fail:\n" << tail_lines(weir->output()));
  BOOST_TEST(status[0].trace.find("dead letter queue topic '" + name + "-dlq'") != std::string::npos,
             status[0].trace);
  BOOST_TEST(status[0].trace.find("too large") != std::string::npos, status[0].trace);
  std::this_thread::sleep_for(2s); // a wrong write or commit would have happened by now
  BOOST_TEST(lines_of(dir / "out.txt") == std::vector<std::string>{"{id=0}"});
  BOOST_TEST(committed_offsets("connect-" + name, topic, 1)[0] <= 1);
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
