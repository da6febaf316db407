#include "runtime/rest/connect_api.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <memory>

#include "runtime/config/secrets.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/rest/connect_json.hpp"
#include "runtime/rest/console.hpp"
#include "runtime/rest/weir_api.hpp"
#include "weir/config.hpp"

namespace weir::runtime::rest {

namespace {

using convert::append_json_string;

HttpResponse ok(std::string body) { return json_response(200, std::move(body)); }

template <class Entity, class Append>
HttpResponse ok_entity(const Entity& entity, Append append) {
  std::string body;
  append(entity, body);
  return ok(std::move(body));
}

// 201 Created with the new connector's URL, absolute like JAX-RS makes it.
HttpResponse created_at(HttpResponse response, const RouteRequest& request, const std::string& name) {
  response.status = 201;
  const std::string* host = request.http.header("host");
  std::string path = "/connectors/" + percent_encode(name);
  response.headers.emplace_back("Location", host ? "http://" + *host + path : path);
  return response;
}

// Kafka Connect rejects a config whose "name" differs from the connector's.
void check_and_put_name(const std::string& name, ConfigMap& config) {
  auto included = config.find("name");
  if (included == config.end()) {
    config["name"] = name;
  } else if (included->second != name) {
    throw bad_request("Connector name configuration (" + included->second +
                      ") doesn't match connector name in the URL (" + name + ")");
  }
}

// JAX-RS reads a Boolean query parameter with Boolean.valueOf: only "true" is true.
bool flag(const RouteRequest& request, std::string_view name, bool fallback) {
  auto value = request.query.get(name);
  return value ? iequals(*value, "true") : fallback;
}

// "FooConnector" and "Foo" name the same plugin (Kafka Connect's aliases).
std::string_view without_connector_suffix(std::string_view name) {
  constexpr std::string_view suffix = "Connector";
  if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
    name.remove_suffix(suffix.size());
  return name;
}

// log4j's level names (Level.toLevel), which Kafka Connect accepts.
bool is_log_level(std::string_view level) {
  for (std::string_view known : {"OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"})
    if (level == known) return true;
  return false;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// The endpoints, one method each, sharing the herder and the options.
class ConnectApi {
public:
  ConnectApi(ConnectHerder& herder, const ConnectApiOptions& options)
      : herder_(herder), options_(options) {}

  /// Adds every endpoint; the handlers share (and keep alive) `api`.
  static void add_routes(const std::shared_ptr<ConnectApi>& api, Router& router);

private:
  Deadline deadline() const { return std::chrono::steady_clock::now() + options_.request_timeout; }

  HttpResponse server_info(const RouteRequest&);
  HttpResponse health(const RouteRequest&);
  HttpResponse list_connectors(const RouteRequest&);
  HttpResponse create_connector(const RouteRequest&);
  HttpResponse connector_info(const RouteRequest&);
  HttpResponse connector_config(const RouteRequest&);
  HttpResponse put_connector_config(const RouteRequest&);
  HttpResponse patch_connector_config(const RouteRequest&);
  HttpResponse connector_status(const RouteRequest&);
  HttpResponse active_topics(const RouteRequest&);
  HttpResponse reset_active_topics(const RouteRequest&);
  HttpResponse restart_connector(const RouteRequest&);
  HttpResponse task_configs(const RouteRequest&);
  HttpResponse task_status(const RouteRequest&);
  HttpResponse restart_task(const RouteRequest&);
  HttpResponse offsets(const RouteRequest&);
  HttpResponse alter_offsets(const RouteRequest&);
  HttpResponse reset_offsets(const RouteRequest&);
  HttpResponse plugins(const RouteRequest&);
  HttpResponse plugin_config(const RouteRequest&);
  HttpResponse validate(const RouteRequest&);
  HttpResponse loggers(const RouteRequest&);
  HttpResponse logger(const RouteRequest&);
  HttpResponse set_logger(const RouteRequest&);

  /// An operation on a connector without a result body (pause: 202, stop: 204).
  HttpResponse no_body(int status, void (ConnectHerder::*call)(const std::string&, Deadline),
                       const RouteRequest& request) {
    (herder_.*call)(request.param("connector"), deadline());
    return empty_response(status);
  }

  std::map<std::string, std::string> hidden_secrets(const std::string& name,
                                                    const std::map<std::string, std::string>& sent,
                                                    Deadline until);

  ConnectHerder& herder_;
  ConnectApiOptions options_;
};

HttpResponse ConnectApi::server_info(const RouteRequest&) {
  return ok_entity(herder_.server_info(deadline()), append_server_info);
}

HttpResponse ConnectApi::health(const RouteRequest&) {
  int status = 200;
  std::string state = "healthy";
  std::string message = "Worker has completed startup and is ready to handle requests.";
  try {
    herder_.health_check(std::chrono::steady_clock::now() + options_.health_check_timeout);
  } catch (const RequestTimeout& e) {
    std::string details = e.doing().empty() ? "" : " The worker is currently " + e.doing();
    if (!herder_.ready()) {
      status = 503;
      state = "starting";
      message = "Worker is still starting up." + details;
    } else {
      status = 500;
      state = "unhealthy";
      message = "Worker was unable to handle this request and may be unable to handle other requests." + details;
    }
  }
  std::string body = "{\"status\":";
  append_json_string(state, body);
  body += ",\"message\":";
  append_json_string(message, body);
  body += '}';
  return json_response(status, std::move(body));
}

HttpResponse ConnectApi::list_connectors(const RouteRequest& request) {
  // One deadline for the whole listing, however many connectors it asks about.
  Deadline until = deadline();
  auto names = herder_.connectors(until);
  auto expand = request.query.all("expand");
  std::string body;
  if (!request.query.get("expand")) {
    append_string_array(names, body);
    return ok(std::move(body));
  }
  bool status = std::count(expand.begin(), expand.end(), "status") > 0;
  bool info = std::count(expand.begin(), expand.end(), "info") > 0;
  body += '{';
  bool first = true;
  for (const auto& name : names) {
    // A connector deleted meanwhile is left out, as Kafka Connect does.
    std::string entry;
    try {
      append_json_string(name, entry);
      entry += ":{";
      if (status) {
        entry += "\"status\":";
        append_connector_status(herder_.connector_status(name, until), entry);
      }
      if (info) {
        entry += status ? ",\"info\":" : "\"info\":";
        append_connector_info(herder_.connector_info(name, until), entry);
      }
      entry += '}';
    } catch (const RestError& e) {
      if (e.status() == 404) continue;
      throw;
    }
    body += first ? "" : ",";
    body += entry;
    first = false;
  }
  body += '}';
  return ok(std::move(body));
}

// Redaction must never overwrite a secret with its placeholder: a client that read
// a config back and sends it again (a UI's edit form) sends `[hidden]` for each
// secret, and URLs with `[hidden]` for their passwords. A value equal to what weir
// shows for the stored one keeps the stored value (returned here, by key); a
// placeholder with no stored secret behind it is an error.
std::map<std::string, std::string> ConnectApi::hidden_secrets(const std::string& name,
                                                              const std::map<std::string, std::string>& sent,
                                                              Deadline until) {
  std::map<std::string, std::string> stored_values;
  if (sent.empty()) return stored_values;
  std::optional<ConnectorInfo> stored;
  try {
    stored = herder_.connector_info(name, until);
  } catch (const RestError& e) {
    if (e.status() != 404) throw;
  }
  const auto& secret_keys = stored ? stored->secret_keys : std::set<std::string>{};
  for (const auto& [key, value] : sent) {
    auto kept = stored ? stored->config.find(key) : ConfigMap::const_iterator{};
    bool whole = value == redacted_value && is_secret_key(key, secret_keys);
    if (stored && kept != stored->config.end() &&
        (whole || shown_value(key, kept->second, secret_keys) == value)) {
      stored_values.emplace(key, kept->second);
      continue;
    }
    if (whole)
      throw bad_request("Configuration \"" + key + "\" is \"[hidden]\", the placeholder weir shows in place of " +
                        "secrets; send the real value");
    bool credential = replace_credentials(value, redacted_value) == value && replace_credentials(value, "") != value;
    if (credential)
      throw bad_request("Configuration \"" + key + "\" holds \"[hidden]\" in place of a password, the " +
                        "placeholder weir shows in place of secrets; send the real value");
    // otherwise an ordinary value that happens to read "[hidden]"
  }
  return stored_values;
}

namespace {

std::string_view text_of(const std::string& value) { return value; }
std::string_view text_of(const std::optional<std::string>& value) { return value ? *value : std::string_view{}; }

template <class Config>
std::map<std::string, std::string> placeholder_values(const Config& config) {
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : config)
    if (text_of(value).find(redacted_value) != std::string_view::npos) values.emplace(key, text_of(value));
  return values;
}

} // namespace

HttpResponse ConnectApi::create_connector(const RouteRequest& request) {
  CreateConnectorRequest create = parse_create_request(request.http.body);
  check_and_put_name(create.name, create.config);
  Deadline until = deadline();
  for (auto& [key, value] : hidden_secrets(create.name, placeholder_values(create.config), until))
    create.config[key] = value;
  Created created = herder_.put_connector_config(create.name, create.config, create.initial_state,
                                                 false, until);
  return created_at(ok_entity(created.info, append_connector_info), request, create.name);
}

HttpResponse ConnectApi::connector_info(const RouteRequest& request) {
  return ok_entity(herder_.connector_info(request.param("connector"), deadline()), append_connector_info);
}

HttpResponse ConnectApi::connector_config(const RouteRequest& request) {
  ConnectorInfo info = herder_.connector_info(request.param("connector"), deadline());
  std::string body;
  append_config(info.config, info.secret_keys, body);
  return ok(std::move(body));
}

HttpResponse ConnectApi::put_connector_config(const RouteRequest& request) {
  const std::string& name = request.param("connector");
  ConfigMap config = parse_config_object(request.http.body);
  check_and_put_name(name, config);
  Deadline until = deadline();
  for (auto& [key, value] : hidden_secrets(name, placeholder_values(config), until)) config[key] = value;
  Created created = herder_.put_connector_config(name, config, std::nullopt, true, until);
  HttpResponse response = ok_entity(created.info, append_connector_info);
  return created.created ? created_at(std::move(response), request, name) : response;
}

HttpResponse ConnectApi::patch_connector_config(const RouteRequest& request) {
  const std::string& name = request.param("connector");
  ConfigPatch patch = parse_config_patch(request.http.body);
  auto renamed = patch.find("name");
  if (renamed != patch.end() && renamed->second != name)
    throw bad_request("Connector name configuration (" + renamed->second.value_or("null") +
                      ") doesn't match connector name in the URL (" + name + ")");
  Deadline until = deadline();
  for (const auto& kept : hidden_secrets(name, placeholder_values(patch), until)) patch.erase(kept.first);
  return ok_entity(herder_.patch_connector_config(name, patch, until).info, append_connector_info);
}

HttpResponse ConnectApi::connector_status(const RouteRequest& request) {
  return ok_entity(herder_.connector_status(request.param("connector"), deadline()), append_connector_status);
}

HttpResponse ConnectApi::active_topics(const RouteRequest& request) {
  if (!options_.topic_tracking_enable) throw RestError(403, "Topic tracking is disabled.");
  const std::string& name = request.param("connector");
  auto topics = herder_.connector_active_topics(name, deadline());
  std::string body = "{";
  append_json_string(name, body);
  body += ":{\"topics\":";
  append_string_array(topics, body);
  body += "}}";
  return ok(std::move(body));
}

HttpResponse ConnectApi::reset_active_topics(const RouteRequest& request) {
  if (!options_.topic_tracking_enable) throw RestError(403, "Topic tracking is disabled.");
  if (!options_.topic_tracking_allow_reset) throw RestError(403, "Topic tracking reset is disabled.");
  herder_.reset_connector_active_topics(request.param("connector"), deadline());
  return empty_response(202);
}

HttpResponse ConnectApi::restart_connector(const RouteRequest& request) {
  RestartRequest restart{request.param("connector"), flag(request, "onlyFailed", false),
                         flag(request, "includeTasks", false)};
  if (!restart.only_failed && !restart.include_tasks) {
    // Kafka Connect 4.x: the connector instance alone, 204 without a body.
    herder_.restart_connector(restart.connector, deadline());
    return empty_response(204);
  }
  HttpResponse response =
      ok_entity(herder_.restart_connector_and_tasks(restart, deadline()), append_connector_status);
  response.status = 202;
  return response;
}

HttpResponse ConnectApi::task_configs(const RouteRequest& request) {
  return ok_entity(herder_.task_configs(request.param("connector"), deadline()), append_task_infos);
}

HttpResponse ConnectApi::task_status(const RouteRequest& request) {
  return ok_entity(herder_.task_status(task_id_param(request), deadline()), append_task_state);
}

HttpResponse ConnectApi::restart_task(const RouteRequest& request) {
  herder_.restart_task(task_id_param(request), forward_param(request), deadline());
  return empty_response(204);
}

HttpResponse ConnectApi::offsets(const RouteRequest& request) {
  return ok_entity(herder_.connector_offsets(request.param("connector"), deadline()), append_offsets);
}

HttpResponse ConnectApi::alter_offsets(const RouteRequest& request) {
  auto offsets = parse_offsets(request.http.body);
  return ok_entity(herder_.alter_connector_offsets(request.param("connector"), offsets, deadline()),
                   append_message);
}

HttpResponse ConnectApi::reset_offsets(const RouteRequest& request) {
  return ok_entity(herder_.reset_connector_offsets(request.param("connector"), deadline()), append_message);
}

HttpResponse ConnectApi::plugins(const RouteRequest& request) {
  auto plugins = herder_.plugins(deadline());
  if (flag(request, "connectorsOnly", true))
    std::erase_if(plugins, [](const PluginInfo& p) { return p.type != "sink" && p.type != "source"; });
  return ok_entity(plugins, append_plugin_infos);
}

HttpResponse ConnectApi::plugin_config(const RouteRequest& request) {
  auto keys = herder_.plugin_config(request.param("plugin"), deadline());
  std::string body = "[";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) body += ',';
    append_config_key_info(keys[i], body);
  }
  body += ']';
  return ok(std::move(body));
}

HttpResponse ConnectApi::validate(const RouteRequest& request) {
  const std::string& plugin = request.param("plugin");
  ConfigMap config = parse_config_object(request.http.body);
  auto included = config.find("connector.class");
  if (included != config.end()) {
    std::string_view type = without_connector_suffix(included->second);
    std::string_view wanted = without_connector_suffix(plugin);
    if (type.size() < wanted.size() || type.substr(type.size() - wanted.size()) != wanted)
      throw bad_request("Included connector type " + included->second +
                        " does not match request type " + plugin);
  }
  return ok_entity(herder_.validate_connector_config(config, deadline()), append_config_infos);
}

HttpResponse ConnectApi::loggers(const RouteRequest&) {
  std::string body = "{";
  bool first = true;
  for (const auto& [name, level] : herder_.logger_levels(deadline())) {
    if (!first) body += ',';
    first = false;
    append_json_string(name, body);
    body += ':';
    append_logger_level(level, body);
  }
  body += '}';
  return ok(std::move(body));
}

HttpResponse ConnectApi::logger(const RouteRequest& request) {
  const std::string& name = request.param("logger");
  auto level = herder_.logger_level(name, deadline());
  if (!level) throw not_found("Logger " + name + " not found.");
  return ok_entity(*level, append_logger_level);
}

HttpResponse ConnectApi::set_logger(const RouteRequest& request) {
  const std::string& name = request.param("logger");
  ConfigMap body = parse_config_object(request.http.body);
  auto level = body.find("level");
  if (level == body.end()) throw bad_request("Desired 'level' parameter was not specified in request.");
  std::string wanted = upper(level->second);
  if (!is_log_level(wanted)) throw not_found("invalid log level '" + level->second + "'.");
  // Kafka Connect treats an unknown scope as "worker" (after a warning).
  if (iequals(request.query.get("scope").value_or("worker"), "cluster")) {
    herder_.set_cluster_logger_level(name, wanted, deadline());
    return empty_response(204);
  }
  std::string out;
  append_string_array(herder_.set_worker_logger_level(name, wanted, deadline()), out);
  return ok(std::move(out));
}

void ConnectApi::add_routes(const std::shared_ptr<ConnectApi>& api, Router& router) {
  // A herder's weir::ConfigError is a bad request, like Kafka Connect's ConfigException.
  auto guarded = [](auto handler) -> RouteHandler {
    return [handler](const RouteRequest& request) {
      try {
        return handler(request);
      } catch (const ConfigError& e) {
        return error_response(400, e.what());
      }
    };
  };
  using Method = HttpResponse (ConnectApi::*)(const RouteRequest&);
  auto bind = [api, guarded](Method method) {
    return guarded([api, method](const RouteRequest& request) { return ((*api).*method)(request); });
  };
  using Call = void (ConnectHerder::*)(const std::string&, Deadline);
  auto no_body = [api, guarded](int status, Call call) {
    return guarded([api, status, call](const RouteRequest& request) { return api->no_body(status, call, request); });
  };
  router.add("GET", "/", bind(&ConnectApi::server_info));
  router.add("GET", "/health", bind(&ConnectApi::health));
  router.add("GET", "/connectors", bind(&ConnectApi::list_connectors));
  router.add("POST", "/connectors", bind(&ConnectApi::create_connector));
  router.add("GET", "/connectors/{connector}", bind(&ConnectApi::connector_info));
  router.add("DELETE", "/connectors/{connector}", no_body(204, &ConnectHerder::delete_connector));
  router.add("GET", "/connectors/{connector}/config", bind(&ConnectApi::connector_config));
  router.add("PUT", "/connectors/{connector}/config", bind(&ConnectApi::put_connector_config));
  router.add("PATCH", "/connectors/{connector}/config", bind(&ConnectApi::patch_connector_config));
  router.add("GET", "/connectors/{connector}/status", bind(&ConnectApi::connector_status));
  router.add("GET", "/connectors/{connector}/topics", bind(&ConnectApi::active_topics));
  router.add("PUT", "/connectors/{connector}/topics/reset", bind(&ConnectApi::reset_active_topics));
  router.add("POST", "/connectors/{connector}/restart", bind(&ConnectApi::restart_connector));
  router.add("PUT", "/connectors/{connector}/pause", no_body(202, &ConnectHerder::pause_connector));
  router.add("PUT", "/connectors/{connector}/resume", no_body(202, &ConnectHerder::resume_connector));
  router.add("PUT", "/connectors/{connector}/stop", no_body(204, &ConnectHerder::stop_connector));
  router.add("GET", "/connectors/{connector}/tasks", bind(&ConnectApi::task_configs));
  router.add("GET", "/connectors/{connector}/tasks/{task}/status", bind(&ConnectApi::task_status));
  router.add("POST", "/connectors/{connector}/tasks/{task}/restart", bind(&ConnectApi::restart_task));
  router.add("GET", "/connectors/{connector}/offsets", bind(&ConnectApi::offsets));
  router.add("PATCH", "/connectors/{connector}/offsets", bind(&ConnectApi::alter_offsets));
  router.add("DELETE", "/connectors/{connector}/offsets", bind(&ConnectApi::reset_offsets));
  router.add("GET", "/connector-plugins", bind(&ConnectApi::plugins));
  router.add("GET", "/connector-plugins/{plugin}/config", bind(&ConnectApi::plugin_config));
  router.add("PUT", "/connector-plugins/{plugin}/config/validate", bind(&ConnectApi::validate));
  router.add("GET", "/admin/loggers", bind(&ConnectApi::loggers));
  router.add("GET", "/admin/loggers/{logger}", bind(&ConnectApi::logger));
  router.add("PUT", "/admin/loggers/{logger}", bind(&ConnectApi::set_logger));
}

} // namespace

ConfigMap apply_config_patch(ConfigMap config, const ConfigPatch& patch) {
  for (const auto& [key, value] : patch) {
    if (value) config.insert_or_assign(key, *value);
    else config.erase(key);
  }
  return config;
}

TaskId task_id_param(const RouteRequest& request) {
  const std::string& text = request.param("task");
  int task = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), task);
  // JAX-RS answers a path parameter it cannot convert with 404.
  if (ec != std::errc{} || end != text.data() + text.size())
    throw RestError(404, "HTTP 404 Not Found: task id " + text + " is not an integer");
  return {request.param("connector"), task};
}

Forward forward_param(const RouteRequest& request) {
  auto value = request.query.get("forward");
  return value && iequals(*value, "false") ? Forward::refused : Forward::allowed;
}

void add_connect_routes(Router& router, ConnectHerder& herder, const ConnectApiOptions& options) {
  ConnectApi::add_routes(std::make_shared<ConnectApi>(herder, options), router);
  add_weir_routes(router, herder, options);
  add_console_routes(router);
}

namespace {

Router make_router(ConnectHerder& herder, const ConnectApiOptions& options) {
  Router router;
  add_connect_routes(router, herder, options);
  return router;
}

HttpServerOptions with_open_console(HttpServerOptions http) {
  http.open_request = is_console_request;
  return http;
}

} // namespace

ConnectRestServer::ConnectRestServer(ConnectHerder& herder, HttpServerOptions http, ConnectApiOptions api)
    : router_(make_router(herder, api)),
      server_(with_open_console(std::move(http)), [this](const HttpRequest& request) { return router_.dispatch(request); }) {}

} // namespace weir::runtime::rest
