// The REST API over https (issue 20, security): `listeners=https://…` with Kafka
// Connect's `listeners.https.ssl.*` keys and PEM files, client certificates
// required and checked against a PEM truststore, and `rest.auth.token` on every
// endpoint (weir's /metrics, /weir/tree and the tap included). The CA and the
// certificates are made by the openssl command for each run; curl is the client.
#include "tests/support/certificates.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

// curl's path, from $PATH (the test's child processes are started with execve).
std::string curl_program() {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  for (size_t at = 0; at <= path.size();) {
    size_t end = std::min(path.find(':', at), path.size());
    std::string candidate = path.substr(at, end - at) + "/curl";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  BOOST_FAIL("curl is not installed (Debian: apt-get install curl)");
  return {};
}

struct Curl {
  int exit_code = -1;
  int status = 0; // the HTTP status, 0 when there was no answer
  std::string body;
};

// The port of a starting weir's https REST listener, from its log (0 if none).
uint16_t https_port_of(ChildProcess& process) {
  static const std::regex listening(R"(REST API on https://127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  bool said = eventually(
      [&] {
        auto out = process.output();
        return std::regex_search(out, m, listening) || !process.running();
      },
      30s);
  auto out = process.output();
  return said && std::regex_search(out, m, listening) ? static_cast<uint16_t>(std::stoi(m[1])) : 0;
}

struct Https {
  TempDir dir{"weir-https"};
  std::unique_ptr<ChildProcess> weir;
  uint16_t port = 0;
  int calls = 0;

  Https() {
    make_ca(dir.path(), "ca");
    make_ca(dir.path(), "rogue");
    make_cert(dir.path(), "server", "ca", "IP:127.0.0.1,DNS:localhost");
    make_cert(dir.path(), "client", "ca");
    make_cert(dir.path(), "stranger", "rogue");
    // A PEM keystore file holds the key and the chain, as Kafka's does.
    std::ofstream(dir / "keystore.pem") << read_file(dir / "server.key") << read_file(dir / "server.pem");
  }

  void start(std::map<std::string, std::string> extra) {
    auto config = worker_config(dir / "state.db");
    config["listeners"] = "https://127.0.0.1:0";
    config["rest.auth.token"] = "s3cret";
    for (auto& [k, v] : extra) config[k] = v;
    write_properties(dir / "worker.properties", config);
    weir = start_standalone(dir / "worker.properties", {}, dir / "weir.log");
  }

  // curl with `args`, its answer's status and body.
  Curl curl(std::vector<std::string> args, const std::string& target) {
    auto n = std::to_string(++calls);
    std::vector<std::string> argv{curl_program(), "-sS", "--max-time", "5", "-o", dir / ("body" + n), "-w", "\nHTTP %{http_code}\n"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("https://127.0.0.1:" + std::to_string(port) + target);
    ChildProcess process{argv, dir / ("curl" + n + ".log")};
    auto status = process.wait(15s);
    BOOST_REQUIRE_MESSAGE(status, "curl did not end");
    Curl result;
    result.exit_code = status->exited ? status->code : -1;
    auto out = process.output();
    static const std::regex code(R"(HTTP ([0-9]{3}))");
    std::smatch m;
    result.status = std::regex_search(out, m, code) ? std::stoi(m[1]) : 0;
    result.body = read_file(dir / ("body" + n));
    BOOST_TEST_MESSAGE("curl " << target << " -> exit " << result.exit_code << ", " << out);
    return result;
  }

  std::vector<std::string> trusted(bool with_token = true) const {
    std::vector<std::string> args{"--cacert", dir / "ca.pem", "--cert", dir / "client.pem", "--key", dir / "client.key"};
    if (with_token) args.insert(args.end(), {"-H", "Authorization: Bearer s3cret"});
    return args;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(rest_https)

BOOST_AUTO_TEST_CASE(https_with_required_client_certificates_and_a_token_on_every_endpoint) {
  Https h;
  h.start({{"listeners.https.ssl.keystore.type", "PEM"},
           {"listeners.https.ssl.keystore.location", h.dir / "keystore.pem"},
           {"listeners.https.ssl.truststore.type", "PEM"},
           {"listeners.https.ssl.truststore.location", h.dir / "ca.pem"},
           {"listeners.https.ssl.client.auth", "required"}});
  h.port = https_port_of(*h.weir);
  BOOST_REQUIRE_MESSAGE(h.port != 0, "weir did not say where its https REST API listens:\n" << h.weir->output());

  auto root = h.curl(h.trusted(), "/");
  BOOST_TEST(root.status == 200);
  BOOST_TEST(root.body.find("\"version\":") != std::string::npos);
  BOOST_TEST(h.curl(h.trusted(), "/metrics").status == 200);
  BOOST_TEST(h.curl(h.trusted(), "/weir/tree").status == 200);
  BOOST_TEST(h.curl(h.trusted(), "/connectors").body == "[]");

  // Without the token, every endpoint refuses, weir's own included.
  for (std::string target : {"/", "/health", "/connectors", "/metrics", "/weir/tree",
                             "/weir/connectors/c/tasks/0/stages/sink/tap"}) {
    BOOST_TEST_CONTEXT(target) {
      auto refused = h.curl(h.trusted(false), target);
      BOOST_TEST(refused.status == 401);
      BOOST_TEST(refused.body.find("Authentication required") != std::string::npos);
    }
  }

  // No client certificate, or one another CA signed: no handshake, no answer.
  auto anonymous = h.curl({"--cacert", h.dir / "ca.pem", "-H", "Authorization: Bearer s3cret"}, "/");
  BOOST_TEST(anonymous.exit_code != 0);
  BOOST_TEST(anonymous.status == 0);
  auto stranger = h.curl({"--cacert", h.dir / "ca.pem", "--cert", h.dir / "stranger.pem", "--key",
                          h.dir / "stranger.key", "-H", "Authorization: Bearer s3cret"},
                         "/");
  BOOST_TEST(stranger.exit_code != 0);
  BOOST_TEST(stranger.status == 0);
  // A client that does not trust weir's CA refuses weir (curl: 60, certificate problem).
  BOOST_TEST(h.curl({"--cert", h.dir / "client.pem", "--key", h.dir / "client.key"}, "/").exit_code == 60);
  // Plain HTTP on the https port is a failed handshake, and the server goes on.
  {
    weir::runtime::rest::test::TestClient plain{h.port, 5s};
    plain.send_raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    BOOST_TEST(plain.read_response().status == 0);
  }
  BOOST_TEST(h.curl(h.trusted(), "/health").status == 200);
  stop_cleanly(*h.weir);
}

BOOST_AUTO_TEST_CASE(an_https_listener_without_its_keystore_is_refused_naming_the_key) {
  Https h;
  h.start({});
  auto status = h.weir->wait(30s);
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST(!status->clean());
  BOOST_TEST(h.weir->output().find("listeners.https.ssl.keystore.certificate.chain") != std::string::npos,
             h.weir->output());
  Https wrong;
  wrong.start({{"listeners.https.ssl.keystore.location", wrong.dir / "ca.pem"}}); // a certificate, no key
  status = wrong.weir->wait(30s);
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST(!status->clean());
  BOOST_TEST(wrong.weir->output().find("listeners.https.ssl.keystore.key") != std::string::npos,
             wrong.weir->output());
}

// Two `weir node`s with https listeners that require client certificates: a
// connector created through the node that does not lead is forwarded to the leader
// over https (the node presents its keystore's certificate and checks the leader's
// against its truststore, as Kafka Connect's workers do), and `weir shell` talks to
// a node with --cacert, --cert and --key.
BOOST_AUTO_TEST_CASE(cluster_nodes_forward_over_https_and_the_shell_speaks_it) {
  Https h;
  auto ports = free_ports(4); // cluster.listen and REST, a then b
  auto group = unique_name("https-nodes");
  std::vector<std::unique_ptr<ChildProcess>> nodes;
  std::vector<uint16_t> rest_ports;
  for (int i = 0; i < 2; ++i) {
    auto name = std::string{i == 0 ? "a" : "b"};
    auto config = worker_config(h.dir / ("node-" + name + ".db"));
    config["listeners"] = "https://127.0.0.1:" + std::to_string(ports[2 * i + 1]);
    config["listeners.https.ssl.keystore.location"] = h.dir / "keystore.pem";
    config["listeners.https.ssl.truststore.location"] = h.dir / "ca.pem";
    config["listeners.https.ssl.client.auth"] = "required";
    config["rest.auth.token"] = "s3cret";
    config["group.id"] = group;
    config["cluster.listen"] = "127.0.0.1:" + std::to_string(ports[2 * i]);
    config["cluster.seeds"] = "127.0.0.1:" + std::to_string(ports[0]);
    config["cluster.secret"] = "secret";
    for (std::string topic : {"config", "status", "offset"}) {
      config[topic + ".storage.topic"] = group + "-" + topic;
      config[topic + ".storage.replication.factor"] = "1"; // one broker: not Kafka Connect's 3
    }
    write_properties(h.dir / ("node-" + name + ".properties"), config);
    nodes.push_back(std::make_unique<ChildProcess>(
        std::vector<std::string>{weir_binary(), "node", "--config", h.dir / ("node-" + name + ".properties")},
        h.dir / ("node-" + name + ".log")));
    rest_ports.push_back(https_port_of(*nodes.back()));
    BOOST_REQUIRE_MESSAGE(rest_ports.back() != 0, "node " << name << " did not serve https:\n"
                                                            << nodes.back()->output());
    if (i == 0) // a leads before b starts: b is the one that forwards
      BOOST_REQUIRE_MESSAGE(eventually([&] { return nodes[0]->output().find("this node leads") != std::string::npos; }, 30s),
                            nodes[0]->output());
  }
  BOOST_REQUIRE_MESSAGE(eventually([&] { return nodes[1]->output().find("cluster: joined") != std::string::npos; }, 30s),
                        nodes[1]->output());

  std::string connector = unique_name("https-sink");
  std::string body = R"({"name":")" + connector + R"(","config":{"connector.class":"FileStreamSink",)"
                     R"("topics":")" + connector + R"(","file":")" + h.dir / "sink.txt" + R"("}})";
  std::ofstream(h.dir / "connector.json") << body;
  h.port = rest_ports[1];
  auto created = h.curl({"--cacert", h.dir / "ca.pem", "--cert", h.dir / "client.pem", "--key",
                         h.dir / "client.key", "-H", "Authorization: Bearer s3cret", "-H",
                         "Content-Type: application/json", "--data-binary", "@" + h.dir / "connector.json"},
                        "/connectors");
  BOOST_TEST(created.status == 201, created.body);
  h.port = rest_ports[0];
  BOOST_TEST(eventually([&] { return h.curl(h.trusted(), "/connectors").body == "[\"" + connector + "\"]"; }, 30s),
             "the leader a does not list the connector created through b");

  auto shell = [&](std::vector<std::string> tls) {
    std::vector<std::string> argv{weir_binary(), "shell", "--url", "https://127.0.0.1:" + std::to_string(rest_ports[1]),
                                  "--token", "s3cret", "-c", "connectors"};
    argv.insert(argv.end(), tls.begin(), tls.end());
    ChildProcess process{argv, h.dir / ("shell" + std::to_string(++h.calls) + ".log")};
    auto status = process.wait(30s);
    BOOST_REQUIRE_MESSAGE(status, "weir shell did not end");
    return std::make_pair(status->clean(), process.output());
  };
  auto [listed, out] = shell({"--cacert", h.dir / "ca.pem", "--cert", h.dir / "client.pem", "--key", h.dir / "client.key"});
  BOOST_TEST(listed, out);
  BOOST_TEST(out.find(connector) != std::string::npos, out);
  auto [untrusted, why] = shell({"--cert", h.dir / "client.pem", "--key", h.dir / "client.key"});
  BOOST_TEST(!untrusted);
  BOOST_TEST(why.find("its certificate is not trusted") != std::string::npos, why);

  for (auto& node : nodes) stop_cleanly(*node);
}

BOOST_AUTO_TEST_SUITE_END()
