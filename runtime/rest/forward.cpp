#include "runtime/rest/forward.hpp"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <simdjson.h>

#include "runtime/rest/http_message.hpp"
#include "runtime/rest/http_server.hpp"

namespace weir::runtime::rest {

namespace {

std::mutex tls_mutex;
std::optional<TlsOptions> client_tls; // set_forward_tls's

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
std::unique_ptr<BIO, BioFree> pem_bio(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))};
}

/// A client of the worker at `base_url`: plain, or TLS with set_forward_tls's
/// trusted certificates and the certificate to present.
std::unique_ptr<httplib::ClientImpl> client_for(const std::string& base_url) {
  auto listener = parse_listener(base_url);
  if (!listener.tls)
    return std::make_unique<httplib::ClientImpl>(listener.host, listener.port);
  std::optional<TlsOptions> tls;
  {
    std::lock_guard lock{tls_mutex};
    tls = client_tls;
  }
  X509* certificate = nullptr;
  EVP_PKEY* key = nullptr;
  if (tls && !tls->certificate_chain.empty() && !tls->private_key.empty()) {
    certificate = PEM_read_bio_X509(pem_bio(tls->certificate_chain).get(), nullptr, nullptr, nullptr);
    key = PEM_read_bio_PrivateKey(pem_bio(tls->private_key).get(), nullptr, nullptr,
                                  const_cast<char*>(tls->key_password.c_str()));
  }
  // The context takes its own references to both.
  auto client = std::make_unique<httplib::SSLClient>(listener.host, listener.port, certificate, key);
  X509_free(certificate);
  EVP_PKEY_free(key);
  if (tls && !tls->trusted_certificates.empty()) {
    X509_STORE* store = X509_STORE_new();
    auto bio = pem_bio(tls->trusted_certificates);
    while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      X509_STORE_add_cert(store, ca);
      X509_free(ca);
    }
    client->set_ca_cert_store(store); // owned by the client's context from here
  }
  return client;
}

httplib::Headers headers_with(const std::string& token) {
  httplib::Headers headers;
  if (!token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

void set_timeouts(httplib::ClientImpl& client, std::chrono::milliseconds timeout) {
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

void set_forward_tls(const TlsOptions& options) {
  std::lock_guard lock{tls_mutex};
  client_tls = options;
}

std::string forward_request(const std::string& base_url, const std::string& method,
                            const std::string& path, const std::string& body,
                            const std::string& token, std::chrono::milliseconds timeout) {
  auto owned = client_for(base_url);
  auto& client = *owned;
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
  auto owned = client_for(base_url);
  auto& client = *owned;
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
