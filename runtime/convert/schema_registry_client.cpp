#include "runtime/convert/schema_registry_client.hpp"

#include <stdexcept>

#include <httplib.h>
#include <simdjson.h>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/errors.hpp"

namespace weir::runtime::convert {

using data::DataError;

namespace {

constexpr const char* content_type = "application/vnd.schemaregistry.v1+json";

// Subjects go into the path percent-encoded, as Confluent's client does.
std::string path_segment(std::string_view s) { return httplib::detail::encode_query_param(std::string(s)); }

std::string schema_body(std::string_view schema) {
  std::string body = R"({"schema":)";
  append_json_string(schema, body);
  body += '}';
  return body;
}

// The registry's error body: {"error_code": 40401, "message": "..."}.
std::string registry_message(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) == simdjson::SUCCESS) {
    std::string_view message;
    int64_t code = 0;
    std::string out;
    if (doc["message"].get(message) == simdjson::SUCCESS)
      out = std::string(message);
    if (doc["error_code"].get(code) == simdjson::SUCCESS)
      out += " (error code " + std::to_string(code) + ")";
    if (!out.empty())
      return out;
  }
  return body.empty() ? std::string("no message") : body;
}

int32_t int_member(const std::string& body, const char* key, const std::string& url) {
  simdjson::dom::parser parser;
  int64_t v = 0;
  if (parser.parse(body)[key].get(v) != simdjson::SUCCESS)
    throw DataError("Schema registry at " + url + " answered without \"" + key + "\": " + body);
  return static_cast<int32_t>(v);
}

std::string string_member(const std::string& body, const char* key, const std::string& url) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(body)[key].get(v) != simdjson::SUCCESS)
    throw DataError("Schema registry at " + url + " answered without \"" + key + "\": " + body);
  return std::string(v);
}

} // namespace

SchemaRegistryClient::SchemaRegistryClient(Options options) : options_(std::move(options)) {
  if (options_.urls.empty())
    throw std::invalid_argument("schema.registry.url names no registry");
  for (const auto& raw : options_.urls) {
    std::string_view url = raw;
    auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos ||
        (url.substr(0, scheme_end) != "http" && url.substr(0, scheme_end) != "https"))
      throw std::invalid_argument("schema.registry.url " + raw + " is not an http:// or https:// URL");
    Endpoint e;
    std::string_view rest = url.substr(scheme_end + 3);
    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos)
      e.path_prefix = std::string(rest.substr(slash));
    while (!e.path_prefix.empty() && e.path_prefix.back() == '/')
      e.path_prefix.pop_back();
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
      e.user_info = std::string(authority.substr(0, at));
      authority = authority.substr(at + 1);
    }
    if (authority.empty())
      throw std::invalid_argument("schema.registry.url " + raw + " names no host");
    e.scheme_host_port = std::string(url.substr(0, scheme_end + 3)) + std::string(authority);
    e.url = e.scheme_host_port + e.path_prefix;
    endpoints_.push_back(std::move(e));
  }
}

SchemaRegistryClient::Response SchemaRegistryClient::call(const std::string& method, const std::string& path,
                                                          const std::string& body) {
  std::string unreachable;
  for (const auto& e : endpoints_) {
    httplib::Client client(e.scheme_host_port);
    const auto t = options_.timeout;
    client.set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(t).count(),
                                  static_cast<time_t>((t.count() % 1000) * 1000));
    client.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(t).count(),
                            static_cast<time_t>((t.count() % 1000) * 1000));
    client.set_write_timeout(std::chrono::duration_cast<std::chrono::seconds>(t).count(),
                             static_cast<time_t>((t.count() % 1000) * 1000));
    const auto& user_info = options_.user_info ? options_.user_info : e.user_info;
    if (user_info) {
      auto colon = user_info->find(':');
      client.set_basic_auth(user_info->substr(0, colon),
                            colon == std::string::npos ? std::string() : user_info->substr(colon + 1));
    }
    httplib::Headers headers{{"Accept", content_type}};
    const std::string target = e.path_prefix + path;
    auto result = method == "GET" ? client.Get(target, headers) : client.Post(target, headers, body, content_type);
    if (!result) {
      if (!unreachable.empty())
        unreachable += "; ";
      unreachable += e.url + " (" + httplib::to_string(result.error()) + ")";
      continue;
    }
    if (result->status >= 500) {
      if (!unreachable.empty())
        unreachable += "; ";
      unreachable += e.url + " (HTTP " + std::to_string(result->status) + ": " + registry_message(result->body) + ")";
      continue;
    }
    return {result->status, result->body, e.url};
  }
  throw data::RetriableError("Schema registry unreachable: " + unreachable + " [" + method + " " + path + "]");
}

std::string SchemaRegistryClient::schema_by_id(int32_t id) {
  auto r = call("GET", "/schemas/ids/" + std::to_string(id), {});
  if (r.status != 200)
    throw DataError("Schema registry at " + r.url + " has no schema with id " + std::to_string(id) + " (HTTP " +
                    std::to_string(r.status) + "): " + registry_message(r.body));
  return string_member(r.body, "schema", r.url);
}

int32_t SchemaRegistryClient::register_schema(std::string_view subject, std::string_view schema) {
  auto r = call("POST", "/subjects/" + path_segment(subject) + "/versions", schema_body(schema));
  if (r.status != 200)
    throw DataError("Schema registry at " + r.url + " refused to register the schema under subject \"" +
                    std::string(subject) + "\" (HTTP " + std::to_string(r.status) + "): " + registry_message(r.body));
  return int_member(r.body, "id", r.url);
}

SchemaRegistryClient::Registered SchemaRegistryClient::lookup_schema(std::string_view subject,
                                                                    std::string_view schema) {
  auto r = call("POST", "/subjects/" + path_segment(subject), schema_body(schema));
  if (r.status != 200)
    throw DataError("Schema registry at " + r.url + " does not hold the schema under subject \"" +
                    std::string(subject) + "\" (HTTP " + std::to_string(r.status) + "): " + registry_message(r.body));
  return {int_member(r.body, "id", r.url), int_member(r.body, "version", r.url), {}};
}

SchemaRegistryClient::Registered SchemaRegistryClient::latest(std::string_view subject) {
  auto r = call("GET", "/subjects/" + path_segment(subject) + "/versions/latest", {});
  if (r.status != 200)
    throw DataError("Schema registry at " + r.url + " has no latest version of subject \"" + std::string(subject) +
                    "\" (HTTP " + std::to_string(r.status) + "): " + registry_message(r.body));
  return {int_member(r.body, "id", r.url), int_member(r.body, "version", r.url),
          string_member(r.body, "schema", r.url)};
}

} // namespace weir::runtime::convert
