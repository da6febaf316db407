#include "runtime/rest/forward.hpp"

#include <httplib.h>
#include <simdjson.h>

#include "runtime/rest/http_message.hpp"

namespace weir::runtime::rest {

std::string forward_request(const std::string& base_url, const std::string& method,
                            const std::string& path, const std::string& body,
                            const std::string& token, std::chrono::milliseconds timeout) {
  httplib::Client client{base_url};
  client.set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout).count() + 1);
  client.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(timeout).count() + 1);
  httplib::Headers headers;
  if (!token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  httplib::Result result = method == "GET"      ? client.Get(path, headers)
                           : method == "DELETE" ? client.Delete(path, headers)
                           : method == "POST"   ? client.Post(path, headers, body, "application/json")
                           : method == "PATCH"  ? client.Patch(path, headers, body, "application/json")
                                                : client.Put(path, headers, body, "application/json");
  if (!result)
    throw RestError(500, "Cannot forward the request to " + base_url + ": "
                           + httplib::to_string(result.error()));
  if (result->status >= 200 && result->status < 300)
    return result->body;
  // Kafka Connect's error body: {"error_code":N,"message":"..."}.
  simdjson::dom::parser parser;
  std::string_view message;
  auto doc = parser.parse(result->body);
  if (doc.error() || doc["message"].get(message))
    message = result->body;
  throw RestError(result->status, std::string{message});
}

} // namespace weir::runtime::rest
