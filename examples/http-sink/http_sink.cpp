// HttpSink: an asynchronous sink, built out of tree against the installed weir SDK
// (docs/writing-a-sink.md walks through it). Each batch weir hands it becomes one
// HTTP POST; up to max.in.flight.batches requests are out at once, all driven by one
// I/O thread through libcurl's multi interface, so the sink pipelines requests
// instead of waiting for each answer.
//
// The request: POST http.url, Content-Type: application/json, the body a JSON array
// with one object per record, in batch order:
//   [{"topic":"t","partition":0,"offset":42,"timestamp":1700000000000,
//     "key":"k","value":{"id":1},"headers":{"h":"v"}}, ...]
// key, value and header values are the JSON weir renders for the record (schemaless).
//
// What the answer means:
//   2xx       every record is written.
//   400, 422  the server rejects records (bad data). With a JSON body
//               {"rejected":[{"index":I,"error":"why"}, ...]}
//             the records at those positions of the array are rejected and the others
//             are written; without that list, every record of the request is rejected.
//             Rejected records follow the connector's errors.tolerance: with `all`,
//             they go to the dead-letter topic with the error in its headers.
//   408, 429, 5xx, no answer (connection refused, time-out), any other status
//             the batch failed, nothing of it counts as written: weir sends it again
//             after a backoff within errors.retry.timeout, then fails the task. (A
//             wrong URL or missing credentials is not bad data: nothing goes to the
//             dead-letter topic for it.)
// Delivery is at-least-once: a batch retried after a time-out may arrive twice; a
// server that must not see duplicates keys on (topic, partition, offset).
#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <weir/plugin.hpp>

namespace {

/// Appends `s` as a JSON string (quotes, backslash and control characters escaped).
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

/// Reads the JSON string starting at `pos` (its opening quote); simple escapes only.
std::string read_json_string(std::string_view s, size_t pos) {
  std::string out;
  for (size_t i = pos + 1; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char e = s[++i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// The {"index":I,"error":"why"} entries of a rejection body's "rejected" list, or
/// nothing when the body has no such list. A scanner, not a JSON parser: enough for
/// the documented shape.
std::optional<std::vector<std::pair<size_t, std::string>>> parse_rejected(std::string_view body) {
  auto list = body.find("\"rejected\"");
  if (list == std::string_view::npos)
    return std::nullopt;
  std::vector<std::pair<size_t, std::string>> out;
  auto end = body.find(']', list);
  for (auto at = body.find("\"index\"", list); at < end; at = body.find("\"index\"", at + 1)) {
    auto digits = body.find_first_of("0123456789", at);
    if (digits == std::string_view::npos)
      break;
    size_t index = 0;
    for (auto i = digits; i < body.size() && body[i] >= '0' && body[i] <= '9'; ++i)
      index = index * 10 + static_cast<size_t>(body[i] - '0');
    std::string error = "rejected by the server";
    auto next = body.find("\"index\"", at + 1);
    auto err = body.find("\"error\"", at);
    if (err < next && err < end) {
      auto quote = body.find('"', body.find(':', err));
      if (quote != std::string_view::npos)
        error = read_json_string(body, quote);
    }
    out.emplace_back(index, std::move(error));
    // An error text may contain ']' : the list ends at the first ']' after the last entry.
    end = body.find(']', next == std::string_view::npos ? at : next);
  }
  return out;
}

/// One POST: its body and the batch's completion, until libcurl is done with it.
struct Request {
  std::string body;
  size_t records = 0;
  weir::BatchCompletion done;
  std::string response;
  char error[CURL_ERROR_SIZE] = {};
};

size_t on_response(char* data, size_t size, size_t n, void* user) {
  auto& response = *static_cast<std::string*>(user);
  if (response.size() < (1u << 20)) // enough for a rejection list; the rest is dropped
    response.append(data, size * n);
  return size * n;
}

class HttpSink : public weir::AsyncSink {
public:
  // put() renders nothing itself: the body is built from weir's JSON text.
  static constexpr weir::SinkInput input = weir::SinkInput::JsonText;
  static constexpr int max_in_flight = 8;

  static void define(weir::ConfigDef& def) {
    using weir::ConfigType;
    using weir::Importance;
    def.define("http.url", ConfigType::String, Importance::High,
               "Where each batch is POSTed (http:// or https://).", weir::validators::non_empty());
    def.define("http.timeout.ms", ConfigType::Int, "30000", Importance::Medium,
               "How long one request may take; past it the batch failed and is retried.",
               weir::validators::range(1, std::nullopt));
  }

  ~HttpSink() override { stop(); }

  void open(const weir::Config& config, const weir::SinkContext&) override {
    url_ = config.get_string("http.url");
    timeout_ms_ = config.get_int("http.timeout.ms");
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    multi_ = curl_multi_init();
    if (!multi_)
      throw std::runtime_error("HttpSink: curl_multi_init failed");
    // One connection per request in flight: requests go out side by side.
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                      static_cast<long>(config.get_int("max.in.flight.batches")));
    headers_ = curl_slist_append(nullptr, "Content-Type: application/json");
    headers_ = curl_slist_append(headers_, "Expect:"); // no 100-continue round trip
    io_ = std::thread([this] { run(); });
  }

  void put(const weir::SinkBatch& batch, weir::BatchCompletion done) override {
    auto req = std::make_unique<Request>();
    req->records = batch.size();
    req->done = std::move(done);
    auto& b = req->body;
    b += '[';
    for (const auto& r : batch) {
      if (b.size() > 1)
        b += ',';
      b += "{\"topic\":";
      append_json_string(b, r.topic);
      b += ",\"partition\":" + std::to_string(r.partition);
      b += ",\"offset\":" + std::to_string(r.offset);
      b += ",\"timestamp\":" + std::to_string(r.timestamp);
      b += ",\"key\":";
      b += r.key ? *r.key : "null";
      b += ",\"value\":";
      b += r.value ? *r.value : "null";
      if (!r.headers.empty()) {
        b += ",\"headers\":{";
        for (size_t i = 0; i < r.headers.size(); ++i) {
          if (i)
            b += ',';
          append_json_string(b, r.headers[i].key);
          b += ':';
          b += r.headers[i].value ? *r.headers[i].value : "null";
        }
        b += '}';
      }
      b += '}';
    }
    b += ']';
    {
      std::lock_guard lock{sync_};
      queued_.push_back(std::move(req));
    }
    curl_multi_wakeup(multi_);
  }

  void close() override { stop(); }

private:
  void stop() {
    if (!io_.joinable())
      return;
    {
      std::lock_guard lock{sync_};
      stopping_ = true;
    }
    curl_multi_wakeup(multi_);
    io_.join();
    // Requests still queued or out are dropped: their completions fail their batches.
    queued_.clear();
    curl_multi_cleanup(multi_);
    multi_ = nullptr;
    curl_slist_free_all(headers_);
    headers_ = nullptr;
  }

  /// The I/O thread: starts queued requests, completes finished ones, sleeps in
  /// curl_multi_poll until a socket is ready or put() wakes it.
  void run() {
    std::unordered_map<CURL*, std::unique_ptr<Request>> active;
    for (;;) {
      std::vector<std::unique_ptr<Request>> fresh;
      {
        std::lock_guard lock{sync_};
        if (stopping_)
          break;
        fresh.swap(queued_);
      }
      for (auto& req : fresh) {
        CURL* easy = curl_easy_init();
        if (!easy) {
          req->done.fail_batch("HttpSink: curl_easy_init failed");
          continue;
        }
        curl_easy_setopt(easy, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers_);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, req->body.data());
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req->body.size()));
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_response);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &req->response);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, req->error);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms_));
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi_, easy);
        active.emplace(easy, std::move(req));
      }
      int running = 0;
      curl_multi_perform(multi_, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
        if (msg->msg != CURLMSG_DONE)
          continue;
        CURL* easy = msg->easy_handle;
        CURLcode result = msg->data.result;
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        curl_multi_remove_handle(multi_, easy);
        curl_easy_cleanup(easy);
        auto it = active.find(easy);
        if (it == active.end())
          continue;
        auto req = std::move(it->second);
        active.erase(it);
        complete(*req, result, status);
      }
      curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
    }
    for (auto& [easy, req] : active) {
      curl_multi_remove_handle(multi_, easy);
      curl_easy_cleanup(easy);
    }
  }

  /// What the answer means for the batch (see the file comment).
  void complete(Request& req, CURLcode result, long status) {
    if (result != CURLE_OK) {
      req.done.fail_batch("HttpSink: POST " + url_ + ": " + (req.error[0] ? req.error : curl_easy_strerror(result)));
      return;
    }
    if (status >= 200 && status < 300) {
      req.done.succeed();
      return;
    }
    std::string answer = "HTTP " + std::to_string(status);
    if (status == 400 || status == 422) {
      if (auto rejected = parse_rejected(req.response)) {
        for (auto& [index, error] : *rejected)
          if (index < req.records)
            req.done.fail(index, answer + ": " + error);
      } else {
        for (size_t i = 0; i < req.records; ++i)
          req.done.fail(i, answer + ": " + req.response.substr(0, 200));
      }
      req.done.succeed();
      return;
    }
    req.done.fail_batch("HttpSink: POST " + url_ + ": " + answer + " " + req.response.substr(0, 200));
  }

  std::string url_;
  int timeout_ms_ = 30000;
  CURLM* multi_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::mutex sync_;
  std::vector<std::unique_ptr<Request>> queued_; // put() but not started yet
  bool stopping_ = false;
  std::thread io_;
};

void register_plugin(weir::PluginRegistrar& registrar) {
  registrar.add_sink<HttpSink>("org.weir.examples.HttpSinkConnector", {"HttpSink"}, "1.0.0");
}

} // namespace

WEIR_PLUGIN(register_plugin)
