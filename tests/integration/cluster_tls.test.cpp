// Mutual TLS between `weir node` processes (issue 6, cluster.tls.*): nodes whose
// certificates one CA signed form a cluster; a node with a certificate from another
// CA, or with no TLS at all, cannot join, and says why it cannot. Certificates are
// made by the openssl command for each run.
#include "tests/support/certificates.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

struct Nodes {
  TempDir dir{"weir-tls"};
  std::vector<uint16_t> ports = free_ports(6); // 3 cluster + 3 REST
  std::string group = unique_name("tls");
  std::vector<std::unique_ptr<ChildProcess>> nodes;

  std::string listen(int i) const { return "127.0.0.1:" + std::to_string(ports[i]); }

  /// Starts node `i`; `cert` empty: without TLS.
  ChildProcess& start(int i, const std::string& cert, const std::string& cafile) {
    auto config = worker_config(dir / ("node" + std::to_string(i) + ".db"));
    config["group.id"] = group;
    config["cluster.listen"] = listen(i);
    config["cluster.seeds"] = listen(0);
    config["cluster.secret"] = "secret";
    config["listeners"] = "http://127.0.0.1:" + std::to_string(ports[3 + i]);
    config["config.storage.topic"] = group + "-configs";
    config["status.storage.topic"] = group + "-status";
    config["offset.storage.topic"] = group + "-offsets";
    for (std::string topic : {"config", "offset", "status"}) // one broker: not Kafka Connect's 3
      config[topic + ".storage.replication.factor"] = "1";
    if (!cert.empty()) {
      config["cluster.tls.certificate"] = dir / (cert + ".pem");
      config["cluster.tls.key"] = dir / (cert + ".key");
      config["cluster.tls.cafile"] = dir / (cafile + ".pem");
    }
    auto path = dir / ("node" + std::to_string(i) + ".properties");
    write_properties(path, config);
    nodes.push_back(std::make_unique<ChildProcess>(
      std::vector<std::string>{weir_binary(), "node", "--config", path},
      dir / ("node" + std::to_string(i) + ".log")));
    return *nodes.back();
  }

  ~Nodes() {
    for (auto& n : nodes)
      n->signal(SIGTERM);
    for (auto& n : nodes)
      n->wait(30s);
  }
};

bool logged(const ChildProcess& p, const std::string& text) {
  return p.output().find(text) != std::string::npos;
}

template <class F>
bool eventually(F done, std::chrono::seconds timeout) {
  auto until = Clock::now() + timeout;
  while (Clock::now() < until) {
    if (done())
      return true;
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_tls)

BOOST_AUTO_TEST_CASE(only_nodes_with_a_certificate_of_the_cluster_ca_join) {
  Nodes c;
  make_ca(c.dir.path(), "ca");
  make_ca(c.dir.path(), "rogue");
  make_cert(c.dir.path(), "a", "ca");
  make_cert(c.dir.path(), "b", "ca");
  make_cert(c.dir.path(), "x", "rogue");

  auto& a = c.start(0, "a", "ca");
  auto& b = c.start(1, "b", "ca");
  BOOST_REQUIRE_MESSAGE(eventually([&] { return logged(b, "cluster: joined '" + c.group + "'"); }, 30s),
                        "b did not join over TLS:\n" << tail_lines(b.output()));
  BOOST_TEST(logged(a, "(mutual TLS)"));
  BOOST_TEST(logged(a, "joined from " + c.listen(1)));

  // A certificate another CA signed: the handshake fails, the node says so.
  auto& x = c.start(2, "x", "ca");
  BOOST_TEST(eventually([&] { return logged(x, "cannot join through " + c.listen(0)); }, 30s),
             tail_lines(x.output()));
  std::this_thread::sleep_for(3s);
  BOOST_TEST(!logged(x, "cluster: joined"));
  BOOST_TEST(!logged(a, "joined from " + c.listen(2)));
  BOOST_TEST(x.running());
}

BOOST_AUTO_TEST_CASE(a_node_without_tls_cannot_join_a_tls_cluster) {
  Nodes c;
  make_ca(c.dir.path(), "ca");
  make_cert(c.dir.path(), "a", "ca");
  auto& a = c.start(0, "a", "ca");
  BOOST_REQUIRE(eventually([&] { return logged(a, "(mutual TLS)"); }, 30s));
  auto& plain = c.start(1, "", "");
  BOOST_TEST(eventually([&] { return logged(plain, "cannot join through " + c.listen(0)); }, 30s),
             tail_lines(plain.output()));
  std::this_thread::sleep_for(3s);
  BOOST_TEST(!logged(plain, "cluster: joined"));
  BOOST_TEST(!logged(a, "joined from " + c.listen(1)));
}

BOOST_AUTO_TEST_CASE(an_incomplete_tls_config_names_the_missing_key) {
  TempDir dir{"weir-tls"};
  make_ca(dir.path(), "ca");
  auto config = worker_config(dir / "n.db");
  config["cluster.listen"] = "127.0.0.1:" + std::to_string(free_ports(1)[0]);
  config["config.storage.topic"] = unique_name("tls-configs");
  config["cluster.tls.cafile"] = dir / "ca.pem";
  write_properties(dir / "n.properties", config);
  ChildProcess p{{weir_binary(), "node", "--config", dir / "n.properties"}, dir / "n.log"};
  auto status = p.wait(30s);
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST(status->exited);
  BOOST_TEST(status->code == 1);
  BOOST_TEST(logged(p, "cluster.tls.certificate"), p.output());
}

BOOST_AUTO_TEST_SUITE_END()
