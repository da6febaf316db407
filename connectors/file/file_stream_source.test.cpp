#include "connectors/file/file_stream_source.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "engine/connector_registry.hpp"

using namespace weir;
using namespace weir::engine::pipeline;
using namespace weir::runtime::connector_api;
using weir::connectors::file::FileStreamSourceTask;

namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name)
    : path((std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string()) {
    std::filesystem::remove(path);
  }
  ~TempFile() { std::filesystem::remove(path); }
  void append(const std::string& text) const { std::ofstream(path, std::ios::app) << text; }
};

std::unique_ptr<SourceTask> task_for(const std::string& file, const std::string& batch = "2000") {
  const auto* plugin = engine::find_source("FileStreamSource");
  BOOST_REQUIRE(plugin);
  return plugin->make_task({{"name", "fs"},
                            {"connector.class", "FileStreamSource"},
                            {"file", file},
                            {"topic", "lines"},
                            {"batch.size", batch}},
                           "fs", 0);
}

struct Polled {
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, std::string>> offsets;
  SourceTask::Status status{};
};

Polled poll(SourceTask& t, uint64_t max_bytes = 1 << 20) {
  Batch raw;
  SourceRecords out{raw, max_bytes, 100000};
  Polled p;
  p.status = t.poll(out);
  for (const auto& r : raw.records())
    p.lines.emplace_back(raw.bytes(r.value));
  p.offsets = out.offsets();
  return p;
}

} // namespace

BOOST_AUTO_TEST_SUITE(file_stream_source)

BOOST_AUTO_TEST_CASE(lines_become_records_with_kafka_connects_offsets) {
  TempFile f{"weir-fss-lines"};
  f.append("one\ntwo\r\nthree\npartial");
  auto t = task_for(f.path);
  t->start({});
  auto p = poll(*t);
  BOOST_TEST(p.lines == (std::vector<std::string>{"one", "two", "three"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(p.offsets.size() == 1u);
  BOOST_TEST(p.offsets[0].first == FileStreamSourceTask::partition_of(f.path));
  BOOST_TEST(p.offsets[0].second == R"({"position":15})");
  // The last line is held until its newline arrives, like tail -F.
  BOOST_TEST(poll(*t).lines.empty());
  f.append(" line\nfour\n");
  p = poll(*t);
  BOOST_TEST(p.lines == (std::vector<std::string>{"partial line", "four"}),
             boost::test_tools::per_element());
  BOOST_TEST(p.offsets[0].second == R"({"position":33})");
}

BOOST_AUTO_TEST_CASE(batch_size_and_credit_bound_a_poll) {
  TempFile f{"weir-fss-batch"};
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "line-" + std::to_string(i) + "\n";
  f.append(text);
  auto t = task_for(f.path, "300");
  t->start({});
  auto p = poll(*t);
  BOOST_TEST(p.lines.size() == 300u);
  BOOST_TEST((p.status == SourceTask::Status::ready));
  auto small = poll(*t, 2000); // credit for a handful of records only
  BOOST_TEST(small.lines.size() > 0u);
  BOOST_TEST(small.lines.size() < 30u);
  BOOST_TEST(small.lines.front() == "line-300");
  size_t total = p.lines.size() + small.lines.size();
  for (int i = 0; i < 10; ++i)
    total += poll(*t).lines.size();
  BOOST_TEST(total == 1000u);
}

BOOST_AUTO_TEST_CASE(a_restart_resumes_at_the_stored_position) {
  TempFile f{"weir-fss-resume"};
  f.append("a\nb\nc\nd\n");
  auto t = task_for(f.path);
  t->start({{FileStreamSourceTask::partition_of(f.path), R"({"position": 4})"}});
  BOOST_TEST(poll(*t).lines == (std::vector<std::string>{"c", "d"}),
             boost::test_tools::per_element());
  auto bad = task_for(f.path);
  BOOST_CHECK_EXCEPTION(bad->start({{FileStreamSourceTask::partition_of(f.path), R"({"pos":4})"}}),
                        std::runtime_error, [](const std::runtime_error& e) {
                          return std::string{e.what()}.find("position") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(truncation_and_rotation_are_followed) {
  TempFile f{"weir-fss-rotate"};
  f.append("old-1\nold-2\n");
  auto t = task_for(f.path);
  t->start({});
  BOOST_TEST(poll(*t).lines.size() == 2u);
  std::filesystem::rename(f.path, f.path + ".1");
  f.append("new-1\n");
  poll(*t); // notices the new file at the end of the old one
  auto p = poll(*t);
  BOOST_TEST(p.lines == std::vector<std::string>{"new-1"}, boost::test_tools::per_element());
  std::filesystem::remove(f.path + ".1");
  std::filesystem::resize_file(f.path, 0);
  poll(*t);
  f.append("again\n");
  BOOST_TEST(poll(*t).lines == std::vector<std::string>{"again"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_waited_for_an_unreadable_one_fails) {
  TempFile f{"weir-fss-missing"};
  auto t = task_for(f.path);
  t->start({});
  BOOST_TEST(poll(*t).lines.empty());
  f.append("late\n");
  BOOST_TEST(poll(*t).lines == std::vector<std::string>{"late"}, boost::test_tools::per_element());

  auto dir = task_for(std::filesystem::temp_directory_path().string());
  BOOST_CHECK_EXCEPTION(dir->start({}), std::runtime_error, [](const std::runtime_error& e) {
    return std::string{e.what()}.find("cannot read file") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(config_is_checked) {
  const auto* plugin = engine::find_source("org.apache.kafka.connect.file.FileStreamSourceConnector");
  BOOST_REQUIRE(plugin);
  auto issues = plugin->validate({{"file", "/tmp/x"}, {"topic", "a,b"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "topic");
  issues = plugin->validate({{"file", "/tmp/x"}, {"topic", "a"}, {"batch.size", "0"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "batch.size");
  BOOST_TEST(plugin->task_configs({{"topic", "a"}}, 4).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
