#include "engine/worker/catalog.hpp"

#include <boost/test/unit_test.hpp>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "engine/worker/log_redaction.hpp"

using namespace weir;
using namespace weir::engine::worker;
namespace rest = weir::runtime::rest;
namespace fs = std::filesystem;

namespace {

const std::string secret = "x:0:0:root:/root:/bin/bash";

// A secrets file in a directory of its own, as allowed.paths would name it.
struct Secrets {
  fs::path dir = fs::temp_directory_path() / ("weir-catalog-" + std::to_string(::getpid()));
  std::string file = (dir / "db.properties").string();
  Secrets() {
    fs::create_directories(dir);
    std::ofstream(file) << "root=" << secret << "\nurl=jdbc:sqlite:" << (dir / "db.sqlite").string() << "\n";
  }
  ~Secrets() { fs::remove_all(dir); }
  std::string ref(const std::string& key) const { return "${file:" + file + ":" + key + "}"; }
};

StringMap jdbc_sink(const std::string& url) {
  return {{"name", "db"}, {"connector.class", "JdbcSinkConnector"}, {"topics", "t"}, {"connection.url", url}};
}

StringMap worker_with_providers(const Secrets& s) {
  return {{"config.providers", "file"},
          {"config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider"},
          {"config.providers.file.param.allowed.paths", s.dir.string()}};
}

std::vector<std::string> errors_of(const rest::ConfigInfos& infos, const std::string& key) {
  for (const auto& c : infos.configs)
    if (c.definition.name == key) return c.value.errors;
  return {};
}

std::string plan_error(const StringMap& raw, const StringMap& worker) {
  try {
    plan_connector("db", raw, worker);
  } catch (const ConfigError& e) {
    return e.key() + ": " + e.what();
  }
  return "(no error)";
}

} // namespace

BOOST_AUTO_TEST_SUITE(catalog_secrets)

// Issue 20, item 10: an invalid URL is reported as invalid, and only so.
BOOST_AUTO_TEST_CASE(an_invalid_value_is_not_also_reported_missing) {
  auto infos = validate_connector(jdbc_sink("postgres:/nowhere"), {});
  auto errors = errors_of(infos, "connection.url");
  BOOST_REQUIRE(errors.size() == 1u);
  BOOST_TEST(errors[0].find("Invalid value postgres:/nowhere for configuration connection.url") == 0u);
  // Absent, it is missing.
  auto absent = jdbc_sink("");
  absent.erase("connection.url");
  auto missing = errors_of(validate_connector(absent, {}), "connection.url");
  BOOST_REQUIRE(missing.size() == 1u);
  BOOST_TEST(missing[0] == "Missing required configuration \"connection.url\" which has no default value.");
}

// Issue 20, item 1: a connector config resolves nothing unless the worker names providers.
BOOST_AUTO_TEST_CASE(references_resolve_only_with_the_workers_providers) {
  Secrets s;
  auto raw = jdbc_sink("${file:/etc/passwd:root}");
  auto error = plan_error(raw, {});
  BOOST_TEST(error.find("connection.url: Invalid value ${file:/etc/passwd:root} for configuration connection.url") == 0u);
  // Named by the worker, the file provider reads only inside allowed.paths.
  BOOST_TEST(plan_error(raw, worker_with_providers(s)) == error);
  auto plan = plan_connector("db", jdbc_sink(s.ref("url")), worker_with_providers(s));
  BOOST_TEST(plan.config.at("connection.url") == "jdbc:sqlite:" + (s.dir / "db.sqlite").string());
  BOOST_TEST(plan.raw.at("connection.url") == s.ref("url"));
  BOOST_TEST(plan.secret_keys.count("connection.url") == 1u);
  BOOST_TEST(plan.password_keys.count("connection.password") == 1u);
}

BOOST_AUTO_TEST_CASE(no_error_shows_a_value_a_provider_gave) {
  Secrets s;
  auto raw = jdbc_sink(s.ref("root"));
  auto error = plan_error(raw, worker_with_providers(s));
  BOOST_TEST(error.find(secret) == std::string::npos);
  BOOST_TEST(error.find("Invalid value " + s.ref("root") + " for configuration connection.url") != std::string::npos);
  auto infos = validate_connector(raw, worker_with_providers(s));
  auto errors = errors_of(infos, "connection.url");
  BOOST_REQUIRE(!errors.empty());
  for (const auto& e : errors) BOOST_TEST(e.find(secret) == std::string::npos);
  for (const auto& c : infos.configs)
    if (c.value.value) BOOST_TEST(c.value.value->find(secret) == std::string::npos);
  // An unknown key whose value came from a provider is listed with its value as written.
  raw["extra.key"] = s.ref("root");
  for (const auto& c : validate_connector(raw, worker_with_providers(s)).configs)
    if (c.value.name == "extra.key") BOOST_TEST(*c.value.value == s.ref("root"));
  auto plan = plan_connector("db", jdbc_sink(s.ref("url")), worker_with_providers(s));
  BOOST_TEST(plan.scrub("cannot open " + plan.config.at("connection.url")) == "cannot open " + s.ref("url"));
  BOOST_TEST(plan.scrub("postgresql://u:pw@h/db") == "postgresql://u:[hidden]@h/db");
  // A task config shows a provider's value as written where the task kept it, and
  // hides it where the task changed it.
  auto task = plan.config;
  auto [shown, hidden] = plan.shown_task_config(task);
  BOOST_TEST(shown.at("connection.url") == s.ref("url"));
  BOOST_TEST(hidden.count("connection.url") == 0u);
  BOOST_TEST(hidden.count("connection.password") == 1u);
  task["connection.url"] += "?mode=ro";
  std::tie(shown, hidden) = plan.shown_task_config(task);
  BOOST_TEST(shown.at("connection.url") == task.at("connection.url"));
  BOOST_TEST(hidden.count("connection.url") == 1u);
  // The config topic stores a kept value as written; the node running the task
  // resolves it again.
  auto stored = plan.stored_task_config(plan.config);
  BOOST_TEST(stored.at("connection.url") == s.ref("url"));
  BOOST_TEST(plan.task_config_from_store(stored) == plan.config);
}

// Whatever component logs it, a line never shows what a provider gave, or a URL's password.
BOOST_AUTO_TEST_CASE(log_lines_never_show_a_provided_value_or_a_password) {
  Secrets s;
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out)));
  redact_logs();
  redact_logs(); // a second call wraps nothing twice
  auto plan = plan_connector("db", jdbc_sink(s.ref("url")), worker_with_providers(s));
  const std::string secret_url = plan.config.at("connection.url");
  spdlog::error("cannot open {} for connector db", secret_url);
  spdlog::warn("cannot reach postgresql://app:pw-123@db:5432/x");
  spdlog::set_default_logger(previous);
  const auto text = out.str();
  BOOST_TEST(text.find(secret_url) == std::string::npos);
  BOOST_TEST(text.find("cannot open " + s.ref("url") + " for connector db") != std::string::npos);
  BOOST_TEST(text.find("pw-123") == std::string::npos);
  BOOST_TEST(text.find("postgresql://app:[hidden]@db:5432/x") != std::string::npos);
  BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 2);
}

BOOST_AUTO_TEST_SUITE_END()
