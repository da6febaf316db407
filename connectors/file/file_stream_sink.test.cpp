#include "connectors/file/file_stream_sink.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include "engine/connector_registry.hpp"
#include "runtime/convert/converter.hpp"

using namespace weir;
using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("weir-fsink-" + std::to_string(::getpid()) + ".txt")).string();
  TempFile() { std::filesystem::remove(path); }
  ~TempFile() { std::filesystem::remove(path); }
  void write(const std::string& text) const { std::ofstream(path, std::ios::binary) << text; }
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

std::unique_ptr<runtime::connector_api::SinkWriter> writer_for(const std::string& file) {
  const auto* plugin = engine::find_sink("FileStreamSink");
  BOOST_REQUIRE(plugin);
  return plugin->make_writer({{"name", "fs"}, {"connector.class", "FileStreamSink"}, {"file", file},
                              {"topics", "t"}},
                             "fs", 0);
}

void write_lines(runtime::connector_api::SinkWriter& writer, const std::vector<std::string>& values) {
  RecordCodec codec(make_converter("StringConverter", {}, true), make_converter("StringConverter", {}, false));
  Batch raw;
  int64_t offset = 0;
  for (const auto& v : values) raw.append("t", 0, offset++, 1, std::nullopt, std::string_view{v});
  DecodedBatch batch = codec.decode(std::move(raw));
  writer.write(batch);
}

} // namespace

BOOST_AUTO_TEST_SUITE(file_stream_sink)

BOOST_AUTO_TEST_CASE(appends_one_line_per_record) {
  TempFile f;
  f.write("earlier\n");
  write_lines(*writer_for(f.path), {"a", "b"});
  BOOST_TEST(f.read() == "earlier\na\nb\n");
}

// Issue 20, item 9: a write cut short by a full disk leaves "rec" of "record-3";
// the restarted task gets record-3 again, and it must not be fused with the tail.
BOOST_AUTO_TEST_CASE(a_torn_last_line_is_dropped_when_the_file_is_opened) {
  TempFile f;
  f.write("record-1\nrecord-2\nrec");
  auto writer = writer_for(f.path);
  BOOST_TEST(f.read() == "record-1\nrecord-2\n");
  write_lines(*writer, {"record-3", "record-4"});
  BOOST_TEST(f.read() == "record-1\nrecord-2\nrecord-3\nrecord-4\n");
}

BOOST_AUTO_TEST_CASE(a_file_of_one_torn_line_becomes_empty) {
  TempFile f;
  f.write(std::string(10000, 'x')); // longer than a read block, no newline at all
  writer_for(f.path);
  BOOST_TEST(f.read().empty());
}

BOOST_AUTO_TEST_CASE(a_torn_line_after_a_long_line_is_cut_at_the_newline) {
  TempFile f;
  const std::string whole = std::string(9000, 'y') + "\n";
  f.write(whole + std::string(5000, 'z'));
  writer_for(f.path);
  BOOST_TEST(f.read() == whole);
}

// Issue 20: a full disk under errors.retry.timeout. The file size limit stands in
// for the full disk (a write past it fails with EFBIG after a short write).
BOOST_AUTO_TEST_CASE(a_write_that_fails_part_way_leaves_no_torn_line_for_the_retry) {
  TempFile f;
  f.write("record-1\n");
  auto writer = writer_for(f.path);
  struct Limit {
    rlimit old{};
    void (*old_handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
    Limit() {
      ::getrlimit(RLIMIT_FSIZE, &old);
      rlimit small{20, old.rlim_max};
      ::setrlimit(RLIMIT_FSIZE, &small);
    }
    ~Limit() {
      ::setrlimit(RLIMIT_FSIZE, &old);
      std::signal(SIGXFSZ, old_handler);
    }
  };
  {
    Limit limit;
    BOOST_CHECK_THROW(write_lines(*writer, {"record-2", "record-3"}), std::runtime_error);
    BOOST_TEST(f.read() == "record-1\n");
  }
  write_lines(*writer, {"record-2", "record-3"}); // the retry
  BOOST_TEST(f.read() == "record-1\nrecord-2\nrecord-3\n");
}

BOOST_AUTO_TEST_SUITE_END()
