// weir shell's commands against a REST server over the in-memory herder on an
// ephemeral loopback port: each command's output and its one-line errors.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "cli/shell_commands.hpp"
#include "runtime/rest/connect_api.hpp"
#include "tests/support/fake_herder.hpp"

using namespace weir::cli::shell;
using weir::runtime::rest::ConnectRestServer;
using weir::runtime::rest::HttpServerOptions;
using weir::runtime::rest::test::FakeHerder;

namespace {

HttpServerOptions loopback(std::string token = {}) {
  HttpServerOptions options;
  options.listener = "http://127.0.0.1:0";
  options.bearer_token = std::move(token);
  return options;
}

struct Result {
  bool ok;
  std::string out;
  std::string err;
};

// A file in a fresh temporary folder, removed with the fixture.
struct TempDir {
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "weir-shell-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream{path / name} << text;
    return (path / name).string();
  }
  std::filesystem::path path;
};

const std::string sink_properties = "name=sink\nconnector.class=FileStreamSink\ntasks.max=1\ntopics=orders\n"
                                    "file=/tmp/out.txt\nconnection.password=secret\n";
const std::string source_json = R"({"name":"source","config":{"connector.class":"FileStreamSource",)"
                                R"("tasks.max":"2","transforms":"mask","fail.task":"1"}})";

const std::string node_header =
    "  threads 0/2 busy (50% 25%), run queue 1, cpu 100.0%, rss 64.0 MiB, fds 32, connections 8\n";
const std::string sink_tree =
    "  connector sink (sink) RUNNING, actor #6, instance #7, restarted 1 time(s)\n"
    "    task 0 RUNNING, actor #20\n"
    "      bottleneck: sink (fake)\n"
    "      poll to ack p50 12.0 ms, p99 40.0 ms\n"
    "      consumer  sink_reader  consumer  RUNNING  in 100.0/s  out 100.0/s  mailbox 0  credit -    in flight 1/8  cpu 25.0%  busy 30%  2.00 µs/record  waiting on poll            lag 42 (orders/0 10, orders/1 12, orders/2 20)  partitions 3\n"
    "      sink      sink_writer  sink      RUNNING  in 100.0/s  out 100.0/s  mailbox 1  credit 2/8  in flight -    cpu 50.0%  busy 60%  4.00 µs/record  waiting on previous stage\n";
const std::string source_tree =
    "  connector source (source) RUNNING, actor #6, instance #7, restarted 1 time(s)\n"
    "    task 0 RUNNING, actor #20\n"
    "      bottleneck: producer (fake)\n"
    "      poll to ack p50 12.0 ms, p99 40.0 ms\n"
    "      poller    source_reader  file       RUNNING  in 100.0/s  out 100.0/s  mailbox 0  credit -    in flight 1/8  cpu 25.0%  busy 30%  2.00 µs/record  waiting on poll\n"
    "      mask      transform      transform  RUNNING  in 100.0/s  out 100.0/s  mailbox 1  credit 2/8  in flight 1/8  cpu 50.0%  busy 60%  4.00 µs/record  waiting on previous stage\n"
    "      producer  source_writer  producer   RUNNING  in 100.0/s  out 100.0/s  mailbox 2  credit 2/8  in flight -    cpu 75.0%  busy 90%  6.00 µs/record  waiting on previous stage\n"
    "    task 1 FAILED: java.lang.RuntimeException: boom in source, actor #21\n"
    "      poller    source_reader  file       FAILED  in 200.0/s  out 200.0/s  mailbox 0  credit -    in flight 1/8  cpu 25.0%  busy 30%  2.00 µs/record  waiting on -\n"
    "      mask      transform      transform  FAILED  in 200.0/s  out 200.0/s  mailbox 1  credit 2/8  in flight 1/8  cpu 50.0%  busy 60%  4.00 µs/record  waiting on -\n"
    "      producer  source_writer  producer   FAILED  in 200.0/s  out 200.0/s  mailbox 2  credit 2/8  in flight -    cpu 75.0%  busy 90%  6.00 µs/record  waiting on -  errors 1: boom\n";

// The server, a client of it, and run() to run one line as `weir shell -c` does.
struct Shell {
  explicit Shell(const std::string& token = {})
      : server(herder, loopback(token)), client(url(), token) {}

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server.port()); }

  Result run(const std::string& line) {
    std::ostringstream out, err;
    Session session{client, out, err, {}};
    bool ok = run_line(line, session);
    return {ok, out.str(), err.str()};
  }
  /// Creates "sink" (properties) and "source" (JSON) through the shell.
  void create_both() {
    BOOST_REQUIRE(run("create " + files.write("sink.properties", sink_properties)).ok);
    BOOST_REQUIRE(run("create " + files.write("source.json", source_json)).ok);
  }

  TempDir files;
  FakeHerder herder;
  ConnectRestServer server;
  RestClient client;
};

// A loopback port nothing listens on: bound, then closed.
uint16_t closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t length = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  ::close(fd);
  return ntohs(addr.sin_port);
}

} // namespace

BOOST_AUTO_TEST_SUITE(shell)

BOOST_AUTO_TEST_CASE(help_lists_every_command) {
  Shell shell;
  auto help = shell.run("help");
  BOOST_TEST(help.ok);
  for (const auto& name : command_names()) BOOST_TEST(help.out.find("\n  " + name) != std::string::npos);
  BOOST_TEST(help.out.find("  tap CONNECTOR TASK STAGE [N]  the next N (10) records passing a stage") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(create_from_properties_and_json) {
  Shell shell;
  auto sink = shell.run("create " + shell.files.write("sink.properties", sink_properties));
  BOOST_TEST(sink.ok);
  BOOST_TEST(sink.out == "created connector sink\n");
  BOOST_TEST(sink.err == "");
  BOOST_TEST(shell.herder.stored("sink").at("connection.password") == "secret");
  auto source = shell.run("create " + shell.files.write("source.json", source_json));
  BOOST_TEST(source.out == "created connector source\n");
  auto again = shell.run("create " + (shell.files.path / "sink.properties").string());
  BOOST_TEST(!again.ok);
  BOOST_TEST(again.out == "");
  BOOST_TEST(again.err == "error: Connector sink already exists (HTTP 409)\n");
  auto invalid = shell.run("create " + shell.files.write("bad.properties", "name=bad\n"));
  BOOST_TEST(invalid.err == "error: Connector configuration is invalid and contains the following 1 error(s): "
                            "Missing required configuration \"connector.class\" which has no default value. "
                            "You can also find the above list of errors at the endpoint "
                            "`/connector-plugins/{connectorType}/config/validate` (HTTP 400)\n");
  auto missing = shell.run("create " + (shell.files.path / "nope.properties").string());
  BOOST_TEST(!missing.ok);
  BOOST_TEST(missing.err.find("nope.properties") != std::string::npos);
  BOOST_TEST(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_CASE(connectors_status_and_config) {
  Shell shell;
  BOOST_TEST(shell.run("connectors").out == "no connectors\n");
  shell.create_both();
  BOOST_TEST(shell.run("connectors").out ==
             "NAME    TYPE    STATE    TASKS\n"
             "sink    sink    RUNNING  1 RUNNING\n"
             "source  source  RUNNING  1 FAILED, 1 RUNNING\n");
  auto status = shell.run("status source");
  BOOST_TEST(status.ok);
  BOOST_TEST(status.out ==
             "source (source): RUNNING on 127.0.0.1:8083\n"
             "  task 0: RUNNING on 127.0.0.1:8083\n"
             "  task 1: FAILED on 127.0.0.1:8083\n"
             "      java.lang.RuntimeException: boom in source\n");
  BOOST_TEST(shell.run("config sink").out == "connection.password=[hidden]\nconnector.class=FileStreamSink\n"
                                             "file=/tmp/out.txt\nname=sink\ntasks.max=1\ntopics=orders\n");
}

BOOST_AUTO_TEST_CASE(nodes_tree_and_top) {
  Shell shell;
  shell.create_both();
  BOOST_TEST(shell.run("nodes").out ==
             "NODE            LEADER  CONNECTORS  TASKS\n"
             "127.0.0.1:8083  yes     2           3\n");
  auto tree = shell.run("tree sink");
  BOOST_TEST(tree.ok);
  BOOST_TEST(tree.out == "node 127.0.0.1:8083 (leader)\n" + node_header + sink_tree);
  auto whole = shell.run("tree");
  BOOST_TEST(whole.out == "node 127.0.0.1:8083 (leader)\n" + node_header + sink_tree + source_tree);
  auto top = shell.run("top");
  BOOST_TEST(top.ok);
  // Bottlenecks first (the stage each verdict names), then the busiest.
  BOOST_TEST(top.out ==
             "node 127.0.0.1:8083: threads 0/2 busy (50% 25%), run queue 1, cpu 100.0%, rss 64.0 MiB, fds 32, connections 8\n"
             "CONNECTOR  TASK  STAGE     ROLE           STATE    BUSY   IN/s  OUT/s  MAILBOX  CREDIT  IN-FLIGHT  CPU%  LAG  ACK-P99  ERRORS  WAITING ON      BOTTLENECK\n"
             "source        0  producer  source_writer  RUNNING   90%  100.0  100.0        2     2/8          -  75.0    -                0  previous stage  bottleneck: producer (fake)\n"
             "sink          0  sink      sink_writer    RUNNING   60%  100.0  100.0        1     2/8          -  50.0    -                0  previous stage  bottleneck: sink (fake)\n"
             "source        1  producer  source_writer  FAILED    90%  200.0  200.0        2     2/8          -  75.0    -                1  -\n"
             "source        0  mask      transform      RUNNING   60%  100.0  100.0        1     2/8        1/8  50.0    -                0  previous stage\n"
             "source        1  mask      transform      FAILED    60%  200.0  200.0        1     2/8        1/8  50.0    -                0  -\n"
             "sink          0  consumer  sink_reader    RUNNING   30%  100.0  100.0        0       -        1/8  25.0   42  40.0 ms       0  poll\n"
             "source        0  poller    source_reader  RUNNING   30%  100.0  100.0        0       -        1/8  25.0    -  40.0 ms       0  poll\n"
             "source        1  poller    source_reader  FAILED    30%  200.0  200.0        0       -        1/8  25.0    -        -       0  -\n");
}

BOOST_AUTO_TEST_CASE(top_on_a_terminal_hands_its_rendering_to_the_redraw_loop) {
  Shell shell;
  shell.create_both();
  std::ostringstream out, err;
  std::vector<std::string> frames;
  Session session{shell.client, out, err, [&](const std::function<std::string()>& render) {
                    frames.push_back(render());
                    frames.push_back(render());
                  }};
  BOOST_TEST(run_line("top", session));
  BOOST_TEST(frames.size() == 2u);
  BOOST_TEST(frames[0] == shell.run("top").out);
  BOOST_TEST(out.str() == "");
}

BOOST_AUTO_TEST_CASE(tap_prints_json_lines) {
  Shell shell;
  shell.create_both();
  auto tap = shell.run("tap sink 0 consumer 2");
  BOOST_TEST(tap.ok);
  // The records as the node gave them, one per line (their form is tested in weir_api.test.cpp).
  struct Records final : weir::runtime::rest::TapSink {
    std::vector<std::string> lines;
    bool record(std::string_view json) override {
      lines.emplace_back(json);
      return true;
    }
    bool gone() override { return false; }
  } taken;
  shell.herder.tap({"sink", 0}, "consumer", 2, weir::runtime::rest::Forward::allowed,
                   std::chrono::steady_clock::now(), taken);
  const auto& records = taken.lines;
  BOOST_TEST(tap.out == records.at(0) + "\n" + records.at(1) + "\n");
  auto ten = shell.run("tap source 1 mask");
  BOOST_TEST(std::count(ten.out.begin(), ten.out.end(), '\n') == 10);
  BOOST_TEST(shell.run("tap sink x consumer").err == "error: TASK must be a number, not 'x'\n");
  BOOST_TEST(shell.run("tap sink 0 consumer many").err == "error: N must be a number, not 'many'\n");
  BOOST_TEST(shell.run("tap sink 0 consumer 0").err ==
             "error: Invalid value \"0\" for query parameter \"count\": expected an integer from 1 to 10000 (HTTP 400)\n");
  BOOST_TEST(shell.run("tap sink 0 nope").err == "error: Stage nope not found in task sink-0 (HTTP 404)\n");
  shell.run("pause sink");
  auto paused = shell.run("tap sink 0 consumer 1");
  BOOST_TEST(paused.ok);
  BOOST_TEST(paused.out == "");
  BOOST_TEST(paused.err == "no record passed stage consumer before the node's tap timed out\n");
}

BOOST_AUTO_TEST_CASE(lifecycle_commands) {
  Shell shell;
  shell.create_both();
  auto pause = shell.run("pause sink");
  BOOST_TEST(pause.ok);
  BOOST_TEST(pause.out == "paused sink\n");
  BOOST_TEST(shell.run("status sink").out.rfind("sink (sink): PAUSED on 127.0.0.1:8083\n", 0) == 0);
  BOOST_TEST(shell.run("resume sink").out == "resumed sink\n");
  BOOST_TEST(shell.run("stop sink").out == "stopped sink\n");
  BOOST_TEST(shell.run("status sink").out == "sink (sink): STOPPED on 127.0.0.1:8083\n");
  BOOST_TEST(shell.run("restart source").out == "restarting the connector and tasks of source\n");
  BOOST_TEST(shell.herder.restarted() == std::vector<std::string>{"source+tasks"});
  BOOST_TEST(shell.run("restart source 1").out == "restarted task 1 of source\n");
  BOOST_TEST((shell.herder.restarted() == std::vector<std::string>{"source+tasks", "source-1"}));
  BOOST_TEST(shell.run("restart source 9").err == "error: Task source-9 not found (HTTP 404)\n");
  BOOST_TEST(shell.run("restart source x").err == "error: TASK must be a number, not 'x'\n");
  BOOST_TEST(shell.run("delete sink").out == "deleted sink\n");
  BOOST_TEST(shell.run("status sink").err == "error: Connector sink not found (HTTP 404)\n");
}

BOOST_AUTO_TEST_CASE(offsets_and_loggers) {
  Shell shell;
  shell.create_both();
  BOOST_TEST(shell.run("offsets sink").out == "no offsets\n");
  shell.run("stop sink");
  shell.herder.alter_connector_offsets(
      "sink", {{R"({"kafka_topic":"orders","kafka_partition":0})", R"({"kafka_offset":42})"}},
      std::chrono::steady_clock::now() + std::chrono::seconds(10));
  BOOST_TEST(shell.run("offsets sink").out == "PARTITION                                     OFFSET\n"
                                              R"({"kafka_topic":"orders","kafka_partition":0}  {"kafka_offset":42})"
                                              "\n");
  BOOST_TEST(shell.run("loggers").out == "LOGGER  LEVEL\nroot    INFO\n");
}

BOOST_AUTO_TEST_CASE(errors_are_one_line) {
  Shell shell;
  auto unknown = shell.run("frobnicate now");
  BOOST_TEST(!unknown.ok);
  BOOST_TEST(unknown.err == "error: unknown command 'frobnicate' (try 'help')\n");
  // A typo gets the nearest command, as a mistyped config key gets its key.
  BOOST_TEST(shell.run("stauts files").err == "error: unknown command 'stauts'; did you mean 'status'? (try 'help')\n");
  BOOST_TEST(shell.run("conectors").err == "error: unknown command 'conectors'; did you mean 'connectors'? (try 'help')\n");
  BOOST_TEST(shell.run("status").err == "error: usage: status NAME\n");
  BOOST_TEST(shell.run("status a b").err == "error: usage: status NAME\n");
  BOOST_TEST(shell.run("tap a 0").err == "error: usage: tap CONNECTOR TASK STAGE [N]\n");
  BOOST_TEST(shell.run("nodes extra").err == "error: usage: nodes\n");
  BOOST_TEST(shell.run("status 'open").err == "error: unterminated ' quote\n");
  auto missing = shell.run("tree nope");
  BOOST_TEST(!missing.ok);
  BOOST_TEST(missing.out == "");
  BOOST_TEST(missing.err == "error: Connector nope not found (HTTP 404)\n");
  BOOST_TEST(shell.run("config nope").err == "error: Connector nope not found (HTTP 404)\n");
  BOOST_TEST(shell.run("").ok); // an empty line does nothing
  try {
    shell.client.request("GET", "/not/a/path"); // what a weir command gets from Kafka Connect
    BOOST_FAIL("no error");
  } catch (const ShellError& e) {
    BOOST_TEST(e.what() == std::string{"HTTP 404 Not Found"});
  }
}

BOOST_AUTO_TEST_CASE(unreachable_node) {
  std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  RestClient client{url, ""};
  std::ostringstream out, err;
  Session session{client, out, err, {}};
  BOOST_TEST(!run_line("connectors", session));
  BOOST_TEST(err.str() == "error: cannot reach " + url + ": connection refused\n");
  BOOST_TEST(out.str() == "");
}

BOOST_AUTO_TEST_CASE(bad_urls_are_refused) {
  BOOST_CHECK_THROW(RestClient("127.0.0.1:8083", ""), ShellError);
  BOOST_CHECK_THROW(RestClient("http://", ""), ShellError);
  BOOST_CHECK_THROW(RestClient("https://", ""), ShellError);
  BOOST_CHECK_THROW(RestClient("ftp://127.0.0.1:8083", ""), ShellError);
  BOOST_CHECK_NO_THROW(RestClient("http://localhost:8083/", ""));
  BOOST_CHECK_NO_THROW(RestClient("https://localhost:8443/", ""));
}

// What is wrong with the TLS options is said before any request, naming the option.
BOOST_AUTO_TEST_CASE(bad_tls_options_are_refused) {
  auto refused = [](const std::string& url, const TlsFiles& tls) {
    try {
      RestClient client{url, "", tls};
    } catch (const ShellError& e) {
      return std::string{e.what()};
    }
    return std::string{"(accepted)"};
  };
  BOOST_TEST(refused("http://127.0.0.1:8083", {"/etc/hostname", "", ""})
             == "--cacert, --cert and --key are for an https URL, and http://127.0.0.1:8083 is http");
  BOOST_TEST(refused("https://127.0.0.1:8443", {"/no/such/ca.pem", "", ""})
             == "cannot read --cacert /no/such/ca.pem: no such file or directory");
  BOOST_TEST(refused("https://127.0.0.1:8443", {"", "/etc/hostname", ""}) == "--cert and --key go together");
}

// An http listener answered with TLS fails the handshake, and the error says what to check.
BOOST_AUTO_TEST_CASE(https_to_an_http_listener) {
  Shell plain{""};
  std::string url = plain.url();
  RestClient client{"https://" + url.substr(url.find("//") + 2), ""};
  std::ostringstream out, err;
  Session session{client, out, err, {}};
  BOOST_TEST(!run_line("connectors", session));
  BOOST_TEST(err.str().find("the TLS handshake failed") != std::string::npos, err.str());
}

BOOST_AUTO_TEST_CASE(bearer_token) {
  Shell with{"t0ken"};
  BOOST_TEST(with.run("connectors").out == "no connectors\n");
  RestClient without{with.url(), ""};
  std::ostringstream out, err;
  Session session{without, out, err, {}};
  BOOST_TEST(!run_line("connectors", session));
  BOOST_TEST(err.str().rfind("error: Authentication required", 0) == 0);
  BOOST_TEST(err.str().find("(HTTP 401; give --token or set WEIR_TOKEN)\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(words) {
  BOOST_TEST(split_words("  tap  sink 0   consumer ") == (std::vector<std::string>{"tap", "sink", "0", "consumer"}));
  BOOST_TEST(split_words(R"(status "my sink" 'it''s' a\ b)") ==
             (std::vector<std::string>{"status", "my sink", "its", "a b"}));
  BOOST_TEST(split_words("").empty());
}

BOOST_AUTO_TEST_CASE(completion) {
  Shell shell;
  shell.create_both();
  auto source = rest_completion(shell.client);
  auto names = command_names();
  std::sort(names.begin(), names.end());
  BOOST_TEST(complete("", source) == names);
  BOOST_TEST(complete("st", source) == (std::vector<std::string>{"status", "stop"}));
  BOOST_TEST(complete("status ", source) == (std::vector<std::string>{"sink", "source"}));
  BOOST_TEST(complete("pause so", source) == (std::vector<std::string>{"source"}));
  BOOST_TEST(complete("tap source ", source) == (std::vector<std::string>{"0", "1"}));
  BOOST_TEST(complete("tap source 1 ", source) == (std::vector<std::string>{"mask", "poller", "producer"}));
  BOOST_TEST(complete("tap source 1 p", source) == (std::vector<std::string>{"poller", "producer"}));
  BOOST_TEST(complete("tap nope ", source).empty());
  BOOST_TEST(complete("create ", source).empty());
  BOOST_TEST(complete("status sink ", source).empty());
  BOOST_TEST(complete("nope ", source).empty());
}

BOOST_AUTO_TEST_SUITE_END()
