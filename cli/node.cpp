// `weir node --config WORKER.properties`: one node of a cluster, as
// connect-distributed runs one worker. Nodes find each other through
// cluster.seeds, keep connectors in the config topic and statuses in the status
// topic, and the leader's supervisor spreads the tasks over the live nodes
// (docs/cluster.md).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/cluster/cluster_herder.hpp"
#include "actors/cluster/membership_actor.hpp"
#include "actors/cluster/node.hpp"
#include "actors/messages.hpp"
#include "actors/scheduler.hpp"
#include "cli/commands.hpp"
#include "cli/worker_config.hpp"
#include "runtime/cluster/state_log.hpp"
#include "runtime/kafka/admin.hpp"
#include "engine/pipeline/source_config.hpp"
#include "runtime/rest/forward.hpp"

namespace weir::cli {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::atomic<bool> stop_requested{false};
extern "C" void on_node_signal(int) { stop_requested = true; }

struct NodeOptions {
  std::string config;
  bool quiet = false;
  int progress_seconds = 5;
};

/// host and port of a `host:port` value of `key`.
std::pair<std::string, uint16_t> host_port(const std::string& value, const std::string& key) {
  auto colon = value.rfind(':');
  int port = -1;
  if (colon != std::string::npos)
    try {
      port = std::stoi(value.substr(colon + 1));
    } catch (const std::exception&) {
    }
  if (colon == std::string::npos || colon == 0 || port <= 0 || port > 65535)
    throw ConfigError(key, "Invalid value " + value + " for configuration " + key
                             + ": expected host:port");
  return {value.substr(0, colon), static_cast<uint16_t>(port)};
}

/// cluster.tls.*: all of certificate, key and cafile, or none. True when set.
bool configure_tls(caf::actor_system_config& cfg, const Config& parsed) {
  const char* keys[] = {"cluster.tls.certificate", "cluster.tls.key", "cluster.tls.cafile"};
  int given = 0;
  for (const auto* key : keys) {
    const auto& path = parsed.get_string(key);
    if (path.empty())
      continue;
    ++given;
    if (!std::filesystem::is_regular_file(path))
      throw ConfigError(key, "Invalid value " + path + " for configuration " + key
                               + ": no such file");
  }
  if (given == 0)
    return false;
  for (const auto* key : keys)
    if (parsed.get_string(key).empty())
      throw ConfigError(key, std::string{"Missing configuration "} + key
                               + ": mutual TLS needs cluster.tls.certificate, cluster.tls.key "
                                 "and cluster.tls.cafile");
  actors::cluster::configure_tls(cfg, parsed.get_string("cluster.tls.certificate"),
                                 parsed.get_string("cluster.tls.key"),
                                 parsed.get_password("cluster.tls.key.password").value(),
                                 parsed.get_string("cluster.tls.cafile"));
  return true;
}

/// Waits until every actor in `actors` has terminated; false when `timeout` passes
/// with none of those still running ending.
bool await_exit(caf::actor_system& sys, const std::vector<caf::actor>& actors,
                std::chrono::milliseconds timeout) {
  caf::scoped_actor self{sys};
  for (const auto& a : actors)
    self->monitor(a);
  size_t down = 0;
  bool late = false;
  self->receive_while([&] { return down < actors.size() && !late; })(
    [&](const caf::down_msg&) { ++down; }, caf::after(timeout) >> [&] { late = true; });
  return !late;
}

int run_node(const NodeOptions& opt) {
  // First of all, as in weir standalone: a SIGTERM while it starts stops it cleanly.
  std::signal(SIGTERM, on_node_signal);
  std::signal(SIGINT, on_node_signal);
  auto setup = load_worker(opt.config, true);
  const auto& parsed = setup.parsed;
  const auto& worker_config = setup.options.config;
  auto listen = parsed.get_string("cluster.listen");
  auto [listen_host, listen_port] = host_port(listen, "cluster.listen");
  // What the other nodes dial, and this node's name in the assignment.
  auto address = parsed.get_string("cluster.advertised.address");
  if (address.empty())
    address = listen;
  else
    host_port(address, "cluster.advertised.address");
  for (const auto& seed : parsed.get_list("cluster.seeds"))
    host_port(seed, "cluster.seeds");
  auto heartbeat = std::chrono::milliseconds{parsed.get_long("cluster.heartbeat.interval.ms")};
  auto unreachable = std::chrono::milliseconds{parsed.get_long("cluster.unreachable.timeout.ms")};
  auto state_file = parsed.get_string("offset.storage.file.filename");
  if (state_file.empty())
    state_file = (std::filesystem::temp_directory_path()
                  / ("weir-node-" + std::to_string(listen_port) + ".db"))
                   .string();

  runtime::state::StandaloneStore state{state_file};
  runtime::metrics::MetricsRegistry metrics;

  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  actors::tune_scheduler(cfg, std::stoul(worker_config.at("scheduler.threads")));
  actors::cluster::configure_middleman(cfg, heartbeat, unreachable);
  bool tls = configure_tls(cfg, parsed);
  caf::actor_system sys{cfg};
  // The shared state: connectors in the config topic, statuses in the status topic.
  // Declared after the actor system, so they stop (and stop calling into it) first.
  auto client = engine::pipeline::task_client_props({}, worker_config, "admin");
  auto replication = [&](const char* key) { return static_cast<int16_t>(parsed.get_int(key)); };
  runtime::cluster::ConfigLog configs{client, parsed.get_string("config.storage.topic"),
                                      replication("config.storage.replication.factor")};
  runtime::cluster::StatusLog statuses{client, parsed.get_string("status.storage.topic"),
                                       parsed.get_int("status.storage.partitions"),
                                       replication("status.storage.replication.factor")};
  // Source offsets: in offset.storage.topic, so a task that moves resumes where it was.
  setup.options.offsets_topic = parsed.get_string("offset.storage.topic");
  runtime::cluster::create_storage_topic(client, "offset.storage.topic", setup.options.offsets_topic,
                                         parsed.get_int("offset.storage.partitions"),
                                         replication("offset.storage.replication.factor"));

  actors::cluster::NodeHerder node_herder{sys, state, metrics, setup.options};
  auto started = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  auto member_id = address + "#" + std::to_string(started);
  auto view = std::make_shared<actors::cluster::ClusterView>();
  std::string rest_scheme = setup.http.tls ? "https" : "http";
  if (setup.http.tls) // requests forwarded to the other nodes' https listeners
    runtime::rest::set_forward_tls(*setup.http.tls);
  actors::cluster::ClusterHerder herder{{&sys, &node_herder, &configs, &statuses, view, member_id, address,
                                         setup.http.bearer_token, rest_scheme}};
  auto rest = serve_rest(herder, setup.http);
  auto worker_id = rest_address(setup.http, rest->port());
  node_herder.set_worker_id(worker_id);

  // The fenced leadership: the same transactional.id on every node of the cluster.
  runtime::cluster::Leadership leadership{client, parsed.get_string("config.storage.topic"),
                                          parsed.get_string("group.id") + "-leader"};
  auto liveness = std::make_shared<actors::cluster::Liveness>();
  actors::cluster::NodeSettings node_settings;
  node_settings.member_id = member_id;
  node_settings.address = address;
  node_settings.worker_id = worker_id;
  node_settings.max_delay = std::chrono::milliseconds{parsed.get_long("scheduled.rebalance.max.delay.ms")};
  node_settings.unreachable_after = unreachable;
  node_settings.herder = &node_herder;
  node_settings.configs = &configs;
  node_settings.leadership = &leadership;
  node_settings.view = view;
  node_settings.liveness = liveness;
  auto node = actors::cluster::spawn_node(sys, node_settings);

  actors::cluster::MembershipSettings membership_settings;
  membership_settings.group_id = parsed.get_string("group.id");
  membership_settings.secret = parsed.get_password("cluster.secret").value();
  membership_settings.self = {member_id, address, started, runtime::cluster::MemberStatus::up, 0,
                              rest_scheme + "://" + worker_id};
  membership_settings.seeds = parsed.get_list("cluster.seeds");
  membership_settings.heartbeat = heartbeat;
  membership_settings.unreachable_after = unreachable;
  membership_settings.subscriber = node;
  auto tree_source = actors::cluster::spawn_tree_source(sys, herder);
  membership_settings.tree_source = tree_source;
  membership_settings.tls = tls;
  membership_settings.liveness = liveness;
  if (membership_settings.secret.empty())
    spdlog::warn("cluster.secret is empty: any process that knows group.id can join this cluster");
  auto membership = actors::cluster::spawn_membership(sys, membership_settings);
  auto port = tls ? caf::openssl::publish(membership, listen_port, listen_host.c_str(), true)
                  : sys.middleman().publish(membership, listen_port, listen_host.c_str(), true);
  if (!port)
    throw ConfigError("cluster.listen", "cannot listen on " + listen + ": " + sys.render(port.error()));
  spdlog::info("node {} listening on {}{} for the cluster {}{}", member_id, listen,
               address == listen ? "" : " (reached at " + address + ")", membership_settings.group_id,
               tls ? " (mutual TLS)" : "");

  configs.start([node](const runtime::cluster::ClusterConfig&) {
    caf::anon_send(node, actors::cluster::configs_atom::value);
  });
  statuses.start();
  node_herder.mark_ready();

  auto last_progress = Clock::now();
  auto last_status = Clock::now();
  while (!stop_requested) {
    std::this_thread::sleep_for(100ms);
    node_herder.tick();
    auto now = Clock::now();
    if (now - last_status >= 1s) {
      last_status = now;
      herder.publish_statuses();
    }
    if (now - last_progress >= std::chrono::seconds{opt.progress_seconds}) {
      double interval = std::chrono::duration<double>(now - last_progress).count();
      last_progress = now;
      for (const auto& line : node_herder.progress(interval))
        if (!opt.quiet)
          std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
  }

  spdlog::info("stopping: draining in-flight batches and committing offsets");
  rest.reset();
  caf::anon_send_exit(membership, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(tree_source, caf::exit_reason::user_shutdown);
  sys.middleman().unpublish(membership, *port);
  // Both hold pointers to the node herder, the logs and the leadership declared above:
  // they must be gone before those are, and the node may be busy abandoning tasks
  // (a consumer's close can take 10 s) when the exit arrives.
  if (!await_exit(sys, {node, membership, tree_source}, 30s)) {
    std::fprintf(stderr, "weir node: the cluster actors did not stop (30 s without either ending)\n");
    std::fflush(nullptr);
    std::_Exit(1);
  }
  auto late = node_herder.shutdown(30s);
  herder.publish_statuses();
  statuses.flush(5s);
  if (late > 0) {
    std::fprintf(stderr, "weir node: %zu task(s) did not drain within 30 s\n", late);
    return 1;
  }
  spdlog::info("stopped cleanly");
  return 0;
}

} // namespace

Runner add_node(CLI::App& app) {
  auto opt = std::make_shared<NodeOptions>();
  auto* sub = app.add_subcommand("node", "Run a cluster node: --config WORKER.properties");
  sub->add_option("--config", opt->config, "Worker properties file (with the cluster keys)")
    ->required()
    ->check(CLI::ExistingFile);
  sub->add_flag("--quiet", opt->quiet, "No progress lines");
  sub->add_option("--progress-interval", opt->progress_seconds, "Seconds between progress lines")
    ->capture_default_str();
  return [opt] { return run_node(*opt); };
}

} // namespace weir::cli
