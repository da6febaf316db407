// The log tail: bounded in lines and line length, read by sequence number and
// filtered by what a message contains.
#include <boost/test/unit_test.hpp>

#include <spdlog/logger.h>

#include "runtime/log_tail.hpp"

using weir::runtime::LogTail;

namespace {

std::vector<std::string> messages(const std::vector<weir::runtime::LogLine>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.push_back(line.message);
  return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(keeps_the_newest_lines_only) {
  auto tail = std::make_shared<LogTail>(3);
  spdlog::logger logger{"test", tail};
  for (int i = 1; i <= 5; ++i) logger.info("line {}", i);
  auto lines = tail->lines(0, 100, std::nullopt);
  BOOST_TEST(messages(lines) == (std::vector<std::string>{"line 3", "line 4", "line 5"}));
  BOOST_TEST(lines.front().seq == 3u);
  BOOST_TEST(lines.front().level == "INFO");
  BOOST_TEST(lines.front().time_ms > 0);
}

BOOST_AUTO_TEST_CASE(reads_after_a_sequence_number_with_a_limit_and_a_filter) {
  auto tail = std::make_shared<LogTail>(10);
  spdlog::logger logger{"test", tail};
  logger.warn("connector orders started");
  logger.error("connector users failed");
  logger.info("connector orders task 0 running");
  BOOST_TEST(messages(tail->lines(1, 100, std::nullopt)) ==
             (std::vector<std::string>{"connector users failed", "connector orders task 0 running"}));
  BOOST_TEST(messages(tail->lines(0, 1, std::nullopt)) == (std::vector<std::string>{"connector orders task 0 running"}));
  BOOST_TEST(messages(tail->lines(0, 100, std::string_view{"orders"})) ==
             (std::vector<std::string>{"connector orders started", "connector orders task 0 running"}));
  BOOST_TEST(tail->lines(0, 100, std::nullopt)[1].level == "ERROR");
  BOOST_TEST(tail->lines(3, 100, std::nullopt).empty());
}

BOOST_AUTO_TEST_CASE(cuts_long_lines_at_a_character_boundary) {
  auto tail = std::make_shared<LogTail>(2);
  spdlog::logger logger{"test", tail};
  // "x" followed by é (C3 A9) repeated: the cut must not split one.
  std::string long_line = "x";
  for (int i = 0; i < 1500; ++i) long_line += "\xC3\xA9";
  logger.info("{}", long_line);
  std::string kept = tail->lines(0, 1, std::nullopt).front().message;
  BOOST_TEST(kept.size() <= LogTail::max_message_bytes + 3);
  BOOST_TEST(kept.ends_with("…"));
  std::string body = kept.substr(0, kept.size() - 3);
  BOOST_TEST(body.size() % 2 == 1u); // "x" and whole é's
}
