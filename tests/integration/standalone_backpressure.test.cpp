// `weir standalone` with a slow sink (issue 3, item 5): FileStreamSink writes into a
// FIFO that the test reads slowly, so the sink writer blocks; credit stops flowing
// and the Kafka consumer must pause. The topic holds far more data (1,000,000 x ~1 KB)
// than the memory bound; the test samples the process's RSS for the whole run and
// reads the consumer lag from the progress lines:
//  - while the reader is slow, the consumer stays at most a bounded number of records
//    ahead of what the sink delivered (consumption paused, in-flight bounded) and the
//    lag stays high;
//  - when the reader speeds up, everything drains (lag 0, every record delivered);
//  - RSS stays under 300 MB from start to clean exit.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"
#include "tests/support/rss_sampler.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

constexpr size_t payload_size = 1000;

std::string big_json(size_t id) {
  std::string v = R"({"id":)" + std::to_string(id) + R"(,"payload":")";
  v.append(payload_size, static_cast<char>('a' + id % 26));
  return v + "\"}";
}

/// Reads the FIFO (non-blocking) and checks every line as it comes.
struct FifoReader {
  int fd = -1;
  std::string partial;
  std::vector<uint8_t> seen;
  size_t lines = 0, duplicates = 0, bad_lines = 0;
  std::string first_bad;

  FifoReader(const std::string& path, size_t n) : seen(n, 0) {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    BOOST_REQUIRE_MESSAGE(fd >= 0, "open " << path << ": " << std::strerror(errno));
  }
  ~FifoReader() { ::close(fd); }

  /// Reads at most `max` bytes (whatever is there); returns the bytes read.
  size_t read_some(size_t max) {
    std::string buf(max, '\0');
    auto got = ::read(fd, buf.data(), max);
    if (got <= 0)
      return 0; // nothing yet (EAGAIN), or no writer (0)
    buf.resize(static_cast<size_t>(got));
    partial += buf;
    size_t start = 0;
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      line(std::string_view{partial}.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    return static_cast<size_t>(got);
  }

  void line(std::string_view l) {
    ++lines;
    size_t id = 0;
    bool ok = l.starts_with("{id=");
    if (ok) {
      auto [p, ec] = std::from_chars(l.data() + 4, l.data() + l.size(), id);
      ok = ec == std::errc{} && id < seen.size() && std::string_view{p, l.data() + l.size()}.starts_with(", payload=")
           && l.size() == static_cast<size_t>(p - l.data()) + 10 + payload_size + 1 && l.back() == '}'
           && l[l.size() - 2] == static_cast<char>('a' + id % 26);
    }
    if (!ok) {
      if (bad_lines++ == 0)
        first_bad = std::string{l.substr(0, 200)};
      return;
    }
    if (seen[id]++)
      ++duplicates;
  }

  size_t distinct() const { return seen.size() - static_cast<size_t>(std::count(seen.begin(), seen.end(), 0)); }
};

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_backpressure)

BOOST_AUTO_TEST_CASE(slow_sink_pauses_consumption_and_memory_stays_bounded) {
  const size_t n = 1000000;
  const long rss_bound_kib = 300 * 1024;
  // How far the consumer may run ahead of the slow reader: the pipeline's credit (4
  // batches of up to 4 MB per hop, ~2000 records each), a batch being filled, the
  // consumer's carried-over records and the sink's 1 MB stdio buffer plus the pipe.
  // Anything near n would mean consumption did not pause.
  const int64_t ahead_bound = 30000;

  TempDir dir{"weir-itest-backpressure"};
  struct KeepOnFailure {
    TempDir& dir;
    ~KeepOnFailure() {
      if (current_test_failing())
        dir.keep();
    }
  } keep_on_failure{dir};
  auto topic = unique_name("weir-itest-slow");
  auto name = unique_name("slow-sink");
  create_topic(topic, 5);
  auto t_produce = Clock::now();
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), std::to_string(i), big_json(i)};
  }, 2000);
  BOOST_TEST_MESSAGE("topic holds " << n << " records of ~" << big_json(0).size()
                                    << " bytes (~" << n * big_json(0).size() / (1 << 20)
                                    << " MiB), produced in " << seconds_since(t_produce) << " s");

  auto fifo = dir / "out.fifo";
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FifoReader reader(fifo, n); // a reader exists before weir opens the FIFO to write
  auto worker = dir / "worker.properties";
  write_properties(worker, worker_config(dir / "state.db"));
  auto connector = dir / "slow.properties";
  write_properties(connector, {{"name", name},
                               {"connector.class", "FileStreamSink"},
                               {"tasks.max", "1"},
                               {"topics", topic},
                               {"file", fifo}});
  auto weir = start_standalone(worker, {connector}, dir / "weir.log");
  RssSampler rss(*weir);

  // Slow phase: ~16 KB every 100 ms (~150 records/s) for 25 s.
  auto t_slow = Clock::now();
  while (Clock::now() - t_slow < 25s && weir->running()) {
    reader.read_some(16 * 1024);
    std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  auto slow_read = reader.lines;
  auto slow_lines = progress_lines(weir->output(), name);
  auto slow_peak = rss.take_phase_peak();
  BOOST_TEST_MESSAGE("slow phase: reader took " << slow_read << " records in 25 s; RSS peak "
                                                << slow_peak / 1024 << " MiB, now " << rss.last() / 1024
                                                << " MiB; " << slow_lines.size() << " progress lines");
  size_t with_lag = 0;
  int64_t min_lag = static_cast<int64_t>(n);
  for (const auto& p : slow_lines) {
    if (p.lag <= 0)
      continue; // the lag is not known before the first fetch
    ++with_lag;
    min_lag = std::min(min_lag, p.lag);
    BOOST_TEST_MESSAGE("  progress: lag " << p.lag << ", written " << p.written);
  }
  BOOST_TEST(with_lag >= 3u, "too few progress lines with a known lag during the slow phase");
  // consumed = n - lag; it may exceed what the reader took only by the in-flight bound.
  BOOST_TEST(min_lag >= static_cast<int64_t>(n - slow_read) - ahead_bound,
             "the consumer ran " << static_cast<int64_t>(n) - min_lag - static_cast<int64_t>(slow_read)
                                 << " records ahead of the slow sink (bound " << ahead_bound
                                 << "): consumption did not pause");
  BOOST_TEST(slow_peak < rss_bound_kib, "RSS " << slow_peak / 1024 << " MiB during the slow phase");

  // Fast phase: read everything.
  auto t_fast = Clock::now();
  while (reader.lines < n && Clock::now() - t_fast < 240s && weir->running())
    if (reader.read_some(1 << 20) == 0)
      std::this_thread::sleep_for(2ms);
  double fast_secs = seconds_since(t_fast);
  auto fast_peak = rss.take_phase_peak();
  BOOST_TEST_MESSAGE("fast phase: " << reader.lines << " lines (" << reader.distinct() << " distinct, "
                                    << reader.duplicates << " duplicates) after " << fast_secs
                                    << " s; RSS peak " << fast_peak / 1024 << " MiB");
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_TEST(reader.distinct() == n, n - reader.distinct() << " records missing");
  BOOST_TEST(reader.bad_lines == 0u, "unexpected line: " << reader.first_bad);

  // The lag drains to 0 once the reader keeps up.
  bool drained = wait_until(30s, 500ms, [&] {
    reader.read_some(1 << 20);
    auto lines = progress_lines(weir->output(), name);
    return !lines.empty() && lines.back().lag == 0 && lines.back().written >= n;
  });
  auto lines = progress_lines(weir->output(), name);
  BOOST_TEST(drained, "last progress line: lag " << (lines.empty() ? -1 : lines.back().lag)
                                                 << ", written " << (lines.empty() ? 0 : lines.back().written));

  // Keep reading while weir stops (a flush must never block on the FIFO).
  std::atomic<bool> stop_reading{false};
  std::thread drain_thread([&] {
    while (!stop_reading) {
      if (reader.read_some(1 << 20) == 0)
        std::this_thread::sleep_for(5ms);
    }
  });
  weir->signal(SIGTERM);
  auto status = weir->wait(45s);
  stop_reading = true;
  drain_thread.join();
  rss.stop();
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir did not exit within 45 s of SIGTERM");
  BOOST_TEST(status->clean(), status->describe() << "\n" << tail_lines(weir->output()));
  BOOST_TEST_MESSAGE("RSS peak over the whole run: " << rss.peak() / 1024 << " MiB ("
                                                     << rss.samples() << " samples); lines "
                                                     << reader.lines << ", duplicates "
                                                     << reader.duplicates);
  BOOST_TEST(rss.peak() < rss_bound_kib, "RSS peak " << rss.peak() / 1024 << " MiB exceeds "
                                                     << rss_bound_kib / 1024 << " MiB");
  BOOST_TEST(rss.samples() > 100u);
}

BOOST_AUTO_TEST_SUITE_END()
