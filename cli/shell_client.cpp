#include "cli/shell_client.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include <httplib.h>
#include <simdjson.h>

namespace weir::cli::shell {

namespace {

using simdjson::dom::element;

struct Endpoint {
  std::string host;
  std::string port;
};

// http[s]://HOST[:PORT][/], HOST possibly a bracketed IPv6 address.
Endpoint parse_endpoint(const std::string& url) {
  bool https = url.rfind("https://", 0) == 0;
  std::string rest = url.substr(url.find("//") + 2);
  Endpoint endpoint{rest, https ? "443" : "80"};
  size_t colon = rest.rfind(':');
  size_t bracket = rest.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    endpoint.host = rest.substr(0, colon);
    endpoint.port = rest.substr(colon + 1);
  }
  if (endpoint.host.size() > 1 && endpoint.host.front() == '[') endpoint.host = endpoint.host.substr(1, endpoint.host.size() - 2);
  return endpoint;
}

std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// httplib says only "Connection" when it could not connect; a connect of our own
// tells the user why (refused, no route, unknown host).
std::string why_unreachable(const std::string& url) {
  Endpoint endpoint = parse_endpoint(url);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(endpoint.host.c_str(), endpoint.port.c_str(), &hints, &found); rc != 0)
    return "cannot resolve " + endpoint.host + ": " + lowercase_first(::gai_strerror(rc));
  int error = 0;
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    error = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      error = ETIMEDOUT;
      if (::poll(&p, 1, 3000) == 1) {
        socklen_t length = sizeof error;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      }
    }
    ::close(fd);
    if (error == 0) break;
  }
  ::freeaddrinfo(found);
  return error ? lowercase_first(std::strerror(error)) : "the connection failed";
}

std::string describe(httplib::Error error, const std::string& url) {
  switch (error) {
    case httplib::Error::Connection: return why_unreachable(url);
    case httplib::Error::ConnectionTimeout: return "connection timed out";
    case httplib::Error::Read: return "no answer (the connection closed, or the answer took too long)";
    case httplib::Error::Write: return "the request could not be sent";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed (an http listener, or one that wants a client certificate: --cert, --key)";
    case httplib::Error::SSLServerVerification:
      return "its certificate is not trusted (give the CA that signed it with --cacert) or does not name the host";
    default: return lowercase_first(httplib::to_string(error));
  }
}

// Kafka Connect's {"error_code":N,"message":"…"}, or just the status.
std::string http_error(int status, const std::string& body) {
  std::string message;
  simdjson::dom::parser parser;
  element doc;
  std::string_view text;
  if (!parser.parse(body).get(doc) && doc.is_object() && !doc["message"].get(text)) message = std::string{text};
  std::string where = "HTTP " + std::to_string(status);
  if (status == 401) where += "; give --token or set WEIR_TOKEN";
  if (message.empty()) return where;
  // JAX-RS's own errors already read "HTTP 404 Not Found".
  return message.rfind(where, 0) == 0 ? message : message + " (" + where + ")";
}

// A PEM file the user named with `option` must be readable: said now, not as a
// failed handshake later.
void check_readable(const std::string& file, const char* option) {
  if (!file.empty() && ::access(file.c_str(), R_OK) != 0)
    throw ShellError(std::string{"cannot read "} + option + " " + file + ": " + lowercase_first(std::strerror(errno)));
}

} // namespace

struct RestClient::Impl {
  Impl(const std::string& url, const TlsFiles& tls) : http(url, tls.cert, tls.key) {
    if (!tls.cacert.empty()) http.set_ca_cert_path(tls.cacert);
  }
  httplib::Client http;
  httplib::Headers headers;
};

RestClient::RestClient(std::string url, std::string token, const TlsFiles& tls) : url_(std::move(url)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  bool https = url_.rfind("https://", 0) == 0;
  std::string_view scheme = https ? "https://" : "http://";
  if ((!https && url_.rfind("http://", 0) != 0) || url_.size() == scheme.size())
    throw ShellError("invalid URL '" + url_ + "': expected http://HOST:PORT or https://HOST:PORT");
  if (!https && !(tls.cacert.empty() && tls.cert.empty() && tls.key.empty()))
    throw ShellError("--cacert, --cert and --key are for an https URL, and " + url_ + " is http");
  if (tls.cert.empty() != tls.key.empty()) throw ShellError("--cert and --key go together");
  check_readable(tls.cacert, "--cacert");
  check_readable(tls.cert, "--cert");
  check_readable(tls.key, "--key");
  impl_ = std::make_unique<Impl>(url_, tls);
  if (!impl_->http.is_valid())
    throw ShellError("invalid URL '" + url_ + "': expected http://HOST:PORT or https://HOST:PORT");
  impl_->http.set_connection_timeout(std::chrono::seconds(5));
  // Kafka Connect answers within its 90 s request timeout; a tap within 10 s.
  impl_->http.set_read_timeout(std::chrono::seconds(100));
  impl_->http.set_write_timeout(std::chrono::seconds(10));
  if (!token.empty()) impl_->headers.emplace("Authorization", "Bearer " + token);
}

RestClient::~RestClient() = default;

void RestClient::cancel() {
  cancelled_ = true;
  impl_->http.stop();
}

std::string RestClient::request(const std::string& method, const std::string& path, const std::string& body) {
  if (cancelled_) throw ShellError("cancelled");
  auto& http = impl_->http;
  const auto& headers = impl_->headers;
  httplib::Result result = method == "GET"      ? http.Get(path, headers)
                           : method == "PUT"    ? http.Put(path, headers, body, "application/json")
                           : method == "POST"   ? http.Post(path, headers, body, "application/json")
                           : method == "DELETE" ? http.Delete(path, headers)
                                                : http.Patch(path, headers, body, "application/json");
  if (cancelled_) throw ShellError("cancelled");
  if (!result) throw ShellError("cannot reach " + url_ + ": " + describe(result.error(), url_));
  if (result->status < 200 || result->status > 299) throw ShellError(http_error(result->status, result->body));
  return result->body;
}

void RestClient::stream(const std::string& path, const std::function<void(std::string_view)>& each) {
  if (cancelled_) throw ShellError("cancelled");
  int status = 0;
  std::string error_body;
  httplib::Result result = impl_->http.Get(
      path, impl_->headers,
      [&](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      [&](const char* data, size_t size) {
        if (status < 200 || status > 299) error_body.append(data, size);
        else each(std::string_view{data, size});
        return true;
      });
  if (cancelled_) throw ShellError("cancelled");
  if (!result) throw ShellError("cannot reach " + url_ + ": " + describe(result.error(), url_));
  if (status < 200 || status > 299) throw ShellError(http_error(status, error_body));
}

} // namespace weir::cli::shell
