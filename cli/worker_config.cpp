#include "cli/worker_config.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include <spdlog/spdlog.h>

#include "engine/connector_registry.hpp"
#include "engine/plugins/loader.hpp"
#include "runtime/config/properties.hpp"
#include "runtime/config/providers.hpp"
#include "runtime/convert/converter.hpp"
#include "runtime/log_tail.hpp"
#include "engine/worker/log_redaction.hpp"

namespace weir::cli {

namespace {

/// Kafka Connect's rule for a storage topic's partitions or replication factor:
/// -1 (the broker's default) or at least 1.
std::optional<std::string> broker_default_or_positive(const ConfigValue& value) {
  auto n = std::get<int32_t>(value);
  if (n == -1 || n >= 1)
    return std::nullopt;
  return "Must be -1 (the broker's default) or at least 1";
}

constexpr std::string_view https_prefix = "listeners.https.";

// Kafka Connect's `listeners.https.` keys, PEM keystores and truststores only.
void define_https_listener_keys(ConfigDef& d) {
  auto pem_only = validators::one_of({"PEM"}, true);
  d.define("listeners.https.ssl.keystore.type", ConfigType::String, "PEM", Importance::Medium,
           "The https listener's keystore format: weir reads PEM only (convert a JKS or "
           "PKCS12 keystore with keytool or openssl).", pem_only);
  d.define("listeners.https.ssl.keystore.location", ConfigType::String, "", Importance::High,
           "A PEM file with the https listener's private key and certificate chain (or "
           "give them as text in ssl.keystore.key and ssl.keystore.certificate.chain).");
  d.define("listeners.https.ssl.keystore.certificate.chain", ConfigType::Password, "", Importance::High,
           "The https listener's certificate chain, PEM text: its own certificate first.");
  d.define("listeners.https.ssl.keystore.key", ConfigType::Password, "", Importance::High,
           "The https listener's private key, PEM text.");
  d.define("listeners.https.ssl.key.password", ConfigType::Password, "", Importance::High,
           "The password of an encrypted private key.");
  d.define("listeners.https.ssl.truststore.type", ConfigType::String, "PEM", Importance::Medium,
           "The truststore's format for client certificates: PEM only.", pem_only);
  d.define("listeners.https.ssl.truststore.location", ConfigType::String, "", Importance::High,
           "A PEM file of the CA certificates client certificates must chain to.");
  d.define("listeners.https.ssl.truststore.certificates", ConfigType::Password, "", Importance::High,
           "The CA certificates client certificates must chain to, PEM text.");
  d.define("listeners.https.ssl.client.auth", ConfigType::String, "none", Importance::Medium,
           "Client certificates on the https listener: required (a client without one is "
           "refused at the handshake), requested (checked when sent) or none.",
           validators::one_of({"none", "requested", "required"}, true));
}

// The text of a `…location` file, or ConfigError naming the key.
std::string read_pem_file(const std::string& key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(key, "Invalid value " + path + " for configuration " + key + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The https listener's PEM material, from text keys or `…location` files.
runtime::rest::TlsOptions https_options(const Config& parsed) {
  auto key = [](std::string_view name) { return std::string{https_prefix} + std::string{name}; };
  runtime::rest::TlsOptions tls;
  tls.certificate_chain = parsed.get_password(key("ssl.keystore.certificate.chain")).value();
  tls.private_key = parsed.get_password(key("ssl.keystore.key")).value();
  if (auto location = parsed.get_string(key("ssl.keystore.location")); !location.empty()) {
    // A PEM keystore file holds both, as Kafka's PEM keystore.location does.
    std::string pem = read_pem_file(key("ssl.keystore.location"), location);
    if (tls.certificate_chain.empty()) tls.certificate_chain = pem;
    if (tls.private_key.empty()) tls.private_key = pem;
  }
  tls.key_password = parsed.get_password(key("ssl.key.password")).value();
  tls.trusted_certificates = parsed.get_password(key("ssl.truststore.certificates")).value();
  if (auto location = parsed.get_string(key("ssl.truststore.location")); !location.empty())
    tls.trusted_certificates += read_pem_file(key("ssl.truststore.location"), location);
  std::string auth = parsed.get_string(key("ssl.client.auth"));
  using runtime::rest::iequals;
  tls.client_auth = iequals(auth, "required")    ? runtime::rest::ClientAuth::required
                    : iequals(auth, "requested") ? runtime::rest::ClientAuth::requested
                                                 : runtime::rest::ClientAuth::none;
  runtime::rest::TlsContext check{tls}; // bad PEM material fails here, naming its key
  return tls;
}

} // namespace

const ConfigDef& worker_def(bool node) {
  static const auto make = [](bool node) {
    ConfigDef d;
    d.define("bootstrap.servers", ConfigType::List, "localhost:9092", Importance::High,
             "Kafka brokers; 'embedded' starts the in-process mock cluster (development only).");
    d.define("key.converter", ConfigType::Class, "org.apache.kafka.connect.json.JsonConverter",
             Importance::High, "Converter class for record keys.",
             runtime::convert::converter_class());
    d.define("value.converter", ConfigType::Class,
             "org.apache.kafka.connect.json.JsonConverter", Importance::High,
             "Converter class for record values.", runtime::convert::converter_class());
    d.define("header.converter", ConfigType::Class, std::string(runtime::convert::simple_header_converter),
             Importance::Low, "HeaderConverter class for record headers.",
             runtime::convert::header_converter_class());
    if (node)
      d.define("offset.storage.file.filename", ConfigType::String, "", Importance::Low,
               "weir: a node keeps the statuses and the source offsets of the tasks it runs "
               "in this SQLite file (default: weir-node-PORT.db in the temporary directory, "
               "PORT from cluster.listen). Exactly-once sources keep theirs in "
               "offset.storage.topic.");
    else
      d.define("offset.storage.file.filename", ConfigType::String, Importance::High,
               "File to store connector state (configs, status, source offsets) in: an SQLite "
               "database in weir.");
    d.define("offset.flush.interval.ms", ConfigType::Long, "10000", Importance::Low,
             "Interval at which to try committing offsets for tasks. weir commits sink "
             "offsets as soon as they are durable, at most every 100 ms; source offsets "
             "are written to the state file this often, and at shutdown.",
             validators::range(0, std::nullopt));
    d.define("metrics.stage.timing.enabled", ConfigType::Boolean, "true", Importance::Low,
             "weir: whether every stage times each batch it handles (busy time, CPU time, "
             "ns/record: two clock reads of each kind per batch). false leaves those figures and "
             "the verdict at zero; bench/run.sh's timing subject measures what they cost.");
    d.define("topic.creation.enable", ConfigType::Boolean, "true", Importance::Low,
             "Whether to allow automatic creation of topics used by source connectors, when "
             "source connectors are configured with `topic.creation.` properties.");
    d.define("exactly.once.source.support", ConfigType::String, "disabled", Importance::High,
             "Whether to enable exactly-once support for source connectors by using "
             "transactions to write source records and their source offsets (enabled), or "
             "not (disabled). preparing is accepted and means disabled in standalone mode.",
             validators::one_of({"disabled", "preparing", "enabled"}, true));
    d.define("group.id", ConfigType::String, node ? "connect-cluster" : "connect-standalone",
             Importance::High,
             "Names this worker's cluster: nodes join only a cluster of the same group.id; "
             "exactly-once source tasks use the transactional id GROUP-CONNECTOR-TASK, as "
             "Kafka Connect does.");
    d.define("offset.storage.topic", ConfigType::String, "connect-offsets", Importance::Medium,
             "With exactly-once source support: the topic each transaction writes its "
             "source offsets to (a connector's offsets.storage.topic overrides it).");
    d.define("offset.storage.partitions", ConfigType::Int, "25", Importance::Low,
             "Partitions of offset.storage.topic when weir creates it (-1: the broker's default).",
             broker_default_or_positive);
    // Kafka Connect's standalone worker has no offsets topic (nor this key): there the
    // broker's default, so exactly-once on a one-broker dev setup needs no setting.
    d.define("offset.storage.replication.factor", ConfigType::Int, node ? "3" : "-1", Importance::Low,
             "Replication factor of offset.storage.topic when weir creates it (-1: the broker's "
             "default). A node's default is Kafka Connect's, 3, which needs three brokers.",
             broker_default_or_positive);
    d.define("plugin.path", ConfigType::List, "", Importance::Low,
             "Directories with plugin shared libraries.");
    d.define("listeners", ConfigType::List, "http://127.0.0.1:8083", Importance::Low,
             "REST API listener, http://HOST:PORT or https://HOST:PORT (weir listens on "
             "loopback unless told otherwise; port 0 picks a free port, printed at start).");
    define_https_listener_keys(d);
    d.define("rest.auth.token", ConfigType::Password, "", Importance::Medium,
             "weir: a bearer token every REST request must carry (Authorization: Bearer "
             "TOKEN); take it from a file or the environment with a config provider, e.g. "
             "${env:WEIR_TOKEN}. Empty: no authentication, as in Kafka Connect.");
    d.define("task.shutdown.graceful.timeout.ms", ConfigType::Long, "5000", Importance::Low,
             "How long a stopping task may take to write and commit what it holds before "
             "its actors are ended anyway (its uncommitted records are delivered again).",
             validators::range(0, std::nullopt));
    d.define("scheduler.threads", ConfigType::Int, "0", Importance::Low,
             "weir: threads of the actor scheduler that runs the pipeline stages (0: one per "
             "core). Their busy fractions are in the actor tree and /metrics.",
             validators::range(0, 256));
    d.define("task.restart.max.attempts", ConfigType::Int, "3", Importance::Low,
             "weir: how many times in a row a FAILED task is restarted automatically "
             "(0: never, as in Kafka Connect). A restart through the REST API resets the count.",
             validators::range(0, std::nullopt));
    d.define("task.restart.backoff.ms", ConfigType::Long, "1000", Importance::Low,
             "weir: the wait before the first automatic restart of a failed task; each next "
             "one waits twice as long.",
             validators::range(0, std::nullopt));
    d.define("task.restart.backoff.max.ms", ConfigType::Long, "60000", Importance::Low,
             "weir: the longest wait between automatic restarts.",
             validators::range(0, std::nullopt));
    if (!node)
      return d;
    d.define("cluster.listen", ConfigType::String, Importance::High,
             "weir: host:port this node listens on for the other nodes (its actors' middleman).");
    d.define("cluster.advertised.address", ConfigType::String, "", Importance::Low,
             "weir: host:port the other nodes dial to reach this node, when it is not "
             "cluster.listen (a port published by a container, a NAT, a proxy). Empty: "
             "cluster.listen. It is also the node's name in the assignment.");
    d.define("cluster.seeds", ConfigType::List, "", Importance::High,
             "weir: host:port of nodes to join through (this node's own address may be "
             "listed; the first node of a cluster has no other).");
    d.define("cluster.secret", ConfigType::Password, "", Importance::High,
             "weir: a secret every node of the cluster shares: a node that does not know it "
             "is refused when it joins.");
    d.define("cluster.heartbeat.interval.ms", ConfigType::Long, "500", Importance::Low,
             "weir: how often nodes tell each other they are alive.",
             validators::range(10, std::nullopt));
    d.define("cluster.unreachable.timeout.ms", ConfigType::Long, "3000", Importance::Medium,
             "weir: a node not heard from for this long is unreachable, and its work moves "
             "after scheduled.rebalance.max.delay.ms; a node that has no answer from Kafka for "
             "this long stops its tasks, and a leader that did not renew its leadership in Kafka "
             "for this long is replaced.",
             validators::range(100, std::nullopt));
    d.define("scheduled.rebalance.max.delay.ms", ConfigType::Long, "300000", Importance::Low,
             "The time a departed node's tasks wait for it before they are reassigned to "
             "the other nodes.",
             validators::range(0, std::nullopt));
    d.define("cluster.tls.certificate", ConfigType::String, "", Importance::Medium,
             "weir: this node's certificate chain (PEM). With cluster.tls.key and "
             "cluster.tls.cafile, nodes talk mutual TLS: a node whose certificate the CA did "
             "not sign cannot join.");
    d.define("cluster.tls.key", ConfigType::String, "", Importance::Medium,
             "weir: the private key (PEM) of cluster.tls.certificate.");
    d.define("cluster.tls.key.password", ConfigType::Password, "", Importance::Medium,
             "weir: the passphrase of cluster.tls.key, if it has one.");
    d.define("cluster.tls.cafile", ConfigType::String, "", Importance::Medium,
             "weir: the CA certificate(s) (PEM) a peer's certificate must be signed by.");
    d.define("config.storage.topic", ConfigType::String, Importance::High,
             "The topic where connector configs and target states are stored.");
    d.define("status.storage.topic", ConfigType::String, "connect-status", Importance::High,
             "The topic where connector and task statuses are stored.");
    d.define("config.storage.replication.factor", ConfigType::Int, "3", Importance::Low,
             "Replication factor of config.storage.topic when weir creates it (-1: the broker's "
             "default). Kafka Connect's default, 3, needs three brokers.",
             broker_default_or_positive);
    d.define("status.storage.partitions", ConfigType::Int, "5", Importance::Low,
             "Partitions of status.storage.topic when weir creates it (-1: the broker's default).",
             broker_default_or_positive);
    d.define("status.storage.replication.factor", ConfigType::Int, "3", Importance::Low,
             "Replication factor of status.storage.topic when weir creates it (-1: the broker's "
             "default). Kafka Connect's default, 3, needs three brokers.",
             broker_default_or_positive);
    return d;
  };
  static const ConfigDef standalone = make(false);
  static const ConfigDef cluster = make(true);
  return node ? cluster : standalone;
}

namespace {

/// The worker's resolved properties checked and turned into what it runs with.
WorkerSetup setup_worker(std::map<std::string, std::string> worker, bool node) {
  ParseOptions passthrough;
  passthrough.passthrough_prefixes = {"key.converter.", "value.converter.", "header.converter.", "consumer.",
                                      "producer.", "admin.", "config.providers"};
  // Plugins first: the worker's key.converter, value.converter and header.converter
  // may name a plugin's class.
  ConfigDef plugin_path;
  plugin_path.define(*worker_def(node).find("plugin.path"));
  std::map<std::string, std::string> given_path;
  if (auto it = worker.find("plugin.path"); it != worker.end())
    given_path.insert(*it);
  engine::plugins::load_plugins(plugin_path.parse(given_path).get_list("plugin.path"));
  WorkerSetup setup;
  setup.parsed = worker_def(node).parse(worker, passthrough);
  const auto& parsed = setup.parsed;
  for (const auto& key : worker_def(node).keys())
    worker.try_emplace(key.name, to_string(parsed.get(key.name)));
  const auto& listeners = parsed.get_list("listeners");
  if (listeners.size() != 1)
    throw ConfigError("listeners", "Invalid value for configuration listeners: weir serves one "
                                   "REST listener (got " + std::to_string(listeners.size()) + ")");
  // names `listeners` when wrong
  if (runtime::rest::parse_listener(listeners.front()).tls) setup.http.tls = https_options(parsed);
  setup.http.listener = listeners.front();
  setup.http.bearer_token = parsed.get_password("rest.auth.token").value();

  auto& options = setup.options;
  options.graceful_timeout = std::chrono::milliseconds{parsed.get_long("task.shutdown.graceful.timeout.ms")};
  options.restart_max_attempts = parsed.get_int("task.restart.max.attempts");
  options.restart_backoff = std::chrono::milliseconds{parsed.get_long("task.restart.backoff.ms")};
  options.restart_backoff_max = std::chrono::milliseconds{parsed.get_long("task.restart.backoff.max.ms")};
  options.config = std::move(worker);
  return setup;
}

} // namespace

WorkerSetup load_worker(const std::string& path, bool node) {
  runtime::keep_log_tail(); // the console's GET /weir/logs; first, so redaction covers it
  engine::worker::redact_logs(); // before anything is resolved or logged
  // As in Kafka, the worker's own file may use the providers it names.
  auto raw = runtime::load_properties_file(path);
  auto providers = runtime::ConfigProviders::from_config(raw);
  auto resolved = providers.resolve(raw);
  for (const auto& name : providers.unlimited_file_providers())
    spdlog::warn("config provider \"{}\" may read any file weir can read, for anyone who may "
                 "create a connector: limit it with config.providers.{}.param.allowed.paths",
                 name, name);
  try {
    return setup_worker(resolved.values, node);
  } catch (const ConfigError& e) {
    throw resolved.scrub(e); // a bad value a provider gave is named by its reference
  }
}

std::unique_ptr<runtime::rest::ConnectRestServer> serve_rest(runtime::rest::ConnectHerder& herder,
                                                             const runtime::rest::HttpServerOptions& http) {
  std::unique_ptr<runtime::rest::ConnectRestServer> rest;
  try {
    rest = std::make_unique<runtime::rest::ConnectRestServer>(herder, http);
  } catch (const std::system_error& e) {
    // The server's message already names the listener and the reason.
    throw ConfigError("listeners", e.what());
  }
  spdlog::info("REST API on {}://{}", http.tls ? "https" : "http", rest_address(http, rest->port()));
  return rest;
}

std::string rest_address(const runtime::rest::HttpServerOptions& http, uint16_t port) {
  auto listener = runtime::rest::parse_listener(http.listener);
  return (listener.host.empty() ? std::string{"0.0.0.0"} : listener.host) + ":" + std::to_string(port);
}

} // namespace weir::cli
