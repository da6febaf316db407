// A Confluent Schema Registry client: the few REST calls the AvroConverter makes.
//
// Every call tries the configured URLs in order (`schema.registry.url` is a list) and
// moves on to the next when one cannot be reached; an answer with an HTTP error from a
// reachable registry is final. Errors are data::DataError (the runtime's retry and
// error policy decide what happens to the record) and name the URL or the subject and
// the registry's own message. Requests have connect and read timeouts.
//
// Threading: none; one client per converter. Caching is the converter's business.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weir::runtime::convert {

class SchemaRegistryClient {
public:
  struct Options {
    std::vector<std::string> urls;         ///< http[s]://[user:password@]host:port[/path], tried in order
    std::optional<std::string> user_info;  ///< "user:password" for basic auth
    std::chrono::milliseconds timeout{30000};
  };

  /// Checks the URLs (http:// or https://); throws std::invalid_argument naming a bad one.
  explicit SchemaRegistryClient(Options options);

  /// GET /schemas/ids/{id}: the schema text registered under `id`.
  std::string schema_by_id(int32_t id);
  /// POST /subjects/{subject}/versions: registers (or finds) the schema, its id.
  int32_t register_schema(std::string_view subject, std::string_view schema);
  struct Registered {
    int32_t id = 0;
    int32_t version = 0;
    std::string schema;
  };
  /// POST /subjects/{subject}: the id and version of a schema registered under
  /// `subject` (`schema` is left empty).
  Registered lookup_schema(std::string_view subject, std::string_view schema);
  /// GET /subjects/{subject}/versions/latest: the latest schema of `subject`.
  Registered latest(std::string_view subject);

private:
  struct Response {
    int status = 0;
    std::string body;
    std::string url; ///< the registry that answered
  };
  Response call(const std::string& method, const std::string& path, const std::string& body);

  struct Endpoint {
    std::string url;    ///< as configured, userinfo removed (for messages)
    std::string scheme_host_port;
    std::string path_prefix;
    std::optional<std::string> user_info;
  };
  std::vector<Endpoint> endpoints_;
  Options options_;
};

} // namespace weir::runtime::convert
