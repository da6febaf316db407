// weir shell's HTTP client: one REST listener, an optional bearer token, and
// failures as one line for the user (why a node cannot be reached, or the API's
// own error message and status). CAF-free; cpp-httplib stays inside the .cpp.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace weir::cli::shell {

/// A command that failed, with one line for the user (printed after "error: ").
class ShellError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// For an https listener, as curl's --cacert, --cert and --key: PEM files of the CAs
/// that signed its certificate (empty: the system's), and of the certificate and key
/// to present when it asks for one (empty: none).
struct TlsFiles {
  std::string cacert, cert, key;
};

/// A blocking HTTP client of one REST listener, with an optional bearer token.
class RestClient {
public:
  /// `url` is http://HOST[:PORT] or https://HOST[:PORT] (a trailing slash is
  /// ignored); `tls` is for https only. An https listener's certificate must chain
  /// to `tls.cacert` and name HOST.
  RestClient(std::string url, std::string token, const TlsFiles& tls = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const std::string& url() const noexcept { return url_; }

  /// Sends a request and returns the body of a 2xx answer. Throws ShellError:
  /// "cannot reach URL: connection refused" when there is no answer, and
  /// "MESSAGE (HTTP N)" with the API's error message for any other status.
  /// Throws ShellError("cancelled") once cancel() was called, until resume().
  std::string request(const std::string& method, const std::string& path, const std::string& body = {});

  /// GET `path`, passing the body of a 2xx answer to `each` piece by piece as it
  /// arrives (a tap's streamed records). Errors as request()'s.
  void stream(const std::string& path, const std::function<void(std::string_view)>& each);

  /// Abandons the request in flight (its connection is shut down) and refuses new
  /// ones until resume(): Ctrl-C in the shell. Thread-safe; call it again to catch
  /// a request that was starting at the time.
  void cancel();
  void resume() noexcept { cancelled_ = false; }

private:
  struct Impl;
  std::string url_;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> cancelled_{false};
};

} // namespace weir::cli::shell
