#include "runtime/rest/forward.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <httplib.h>
#include <simdjson.h>

#include "runtime/rest/http_message.hpp"

namespace weir::runtime::rest {

namespace {

httplib::Headers headers_with(const std::string& token) {
  httplib::Headers headers;
  if (!token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

void set_timeouts(httplib::Client& client, std::chrono::milliseconds timeout) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout).count() + 1;
  client.set_connection_timeout(seconds);
  client.set_read_timeout(seconds);
}

RestError cannot_forward(const std::string& base_url, httplib::Error error) {
  return RestError(500, "Cannot forward the request to " + base_url + ": " + httplib::to_string(error));
}

// The worker's error answer, Kafka Connect's {"error_code":N,"message":"..."}, as
// the same RestError.
RestError error_of(int status, const std::string& body) {
  simdjson::dom::parser parser;
  std::string_view message;
  auto doc = parser.parse(body);
  if (doc.error() || doc["message"].get(message))
    message = body;
  return RestError(status, std::string{message});
}

} // namespace

std::string forward_request(const std::string& base_url, const std::string& method,
                            const std::string& path, const std::string& body,
                            const std::string& token, std::chrono::milliseconds timeout) {
  httplib::Client client{base_url};
  set_timeouts(client, timeout);
  auto headers = headers_with(token);
  httplib::Result result = method == "GET"      ? client.Get(path, headers)
                           : method == "DELETE" ? client.Delete(path, headers)
                           : method == "POST"   ? client.Post(path, headers, body, "application/json")
                           : method == "PATCH"  ? client.Patch(path, headers, body, "application/json")
                                                : client.Put(path, headers, body, "application/json");
  if (!result)
    throw cannot_forward(base_url, result.error());
  if (result->status >= 200 && result->status < 300)
    return result->body;
  throw error_of(result->status, result->body);
}

void forward_stream(const std::string& base_url, const std::string& path, const std::string& token,
                    std::chrono::milliseconds timeout, const std::function<bool(std::string_view)>& each,
                    const std::function<bool()>& stop) {
  httplib::Client client{base_url};
  set_timeouts(client, timeout);
  int status = 0;
  std::string error_body;
  std::atomic<bool> abandoned{false};
  // A watcher asks `stop` while the answer is awaited, and shuts the connection down.
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock lock{mutex};
    while (!done) {
      if (wake.wait_for(lock, std::chrono::milliseconds{100}, [&] { return done; }))
        return;
      if (stop()) {
        abandoned = true;
        client.stop();
        return;
      }
    }
  });
  auto result = client.Get(
    path, headers_with(token),
    [&](const httplib::Response& response) {
      status = response.status;
      return true;
    },
    [&](const char* data, size_t size) {
      if (status < 200 || status >= 300) {
        error_body.append(data, size);
        return true;
      }
      if (!each(std::string_view{data, size}))
        abandoned = true;
      return !abandoned;
    });
  {
    std::lock_guard lock{mutex};
    done = true;
  }
  wake.notify_all();
  watcher.join();
  if (abandoned)
    return;
  if (!result)
    throw cannot_forward(base_url, result.error());
  if (status < 200 || status >= 300)
    throw error_of(status, error_body);
}

} // namespace weir::runtime::rest
