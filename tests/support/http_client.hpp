// Test support: a tiny blocking HTTP/1.1 client over a real socket to 127.0.0.1,
// enough to check the server's bytes (status, headers, exact body), keep-alive and
// closes. Every read times out (10 s unless told) so a broken server fails a test,
// not hangs it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::runtime::rest::test {

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers; // names lower-cased
  std::string body;

  const std::string* header(std::string_view lower_name) const {
    for (const auto& [name, value] : headers)
      if (name == lower_name) return &value;
    return nullptr;
  }
};

class TestClient {
public:
  explicit TestClient(uint16_t port, std::chrono::milliseconds timeout_after = std::chrono::seconds{10}) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{static_cast<time_t>(timeout_after.count() / 1000),
                    static_cast<suseconds_t>(timeout_after.count() % 1000 * 1000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (fd_ >= 0) ::close(fd_);
      throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
    }
  }
  ~TestClient() { ::close(fd_); }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  /// False if the server closed or reset the connection.
  bool send_raw(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  /// Half-closes: the server sees the end of the request stream.
  void finish_sending() { ::shutdown(fd_, SHUT_WR); }

  /// Reads one response; status 0 if the connection ended first.
  ClientResponse read_response() {
    ClientResponse response = read_head();
    if (response.status == 0 || response.status == 100 || response.status == 204) return response;
    if (const std::string* coding = response.header("transfer-encoding"); coding && *coding == "chunked") {
      read_chunks(response);
      return response;
    }
    const std::string* length = response.header("content-length");
    size_t n = length ? std::stoul(*length) : 0;
    while (buffer_.size() < n)
      if (!fill()) break;
    response.body = buffer_.substr(0, n);
    buffer_.erase(0, std::min(n, buffer_.size()));
    return response;
  }

  /// Reads a response's status line and headers only (a streamed body follows:
  /// read_chunks); status 0 if the connection ended first.
  ClientResponse read_head() {
    ClientResponse response;
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos)
      if (!fill()) return response;
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    response.status = std::stoi(head.substr(9, 3));
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos) {
      size_t next = head.find("\r\n", pos + 2);
      std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      response.headers.emplace_back(name, line.substr(line.find_first_not_of(' ', colon + 1)));
      pos = next;
    }
    return response;
  }

  ClientResponse request(std::string_view method, std::string_view target, std::string_view body = {},
                         std::string_view extra_headers = {}) {
    std::string bytes = std::string{method} + " " + std::string{target} + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    bytes += extra_headers;
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
      bytes += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    bytes += "\r\n";
    bytes += body;
    send_raw(bytes);
    return read_response();
  }

  /// Whether the server closes the connection (EOF or reset) within the timeout.
  bool closed_by_server() {
    while (fill()) {
    }
    return eof_;
  }

  /// The chunks of a streamed body as they arrive: each chunk's data is passed to
  /// `each` (false stops reading); true once the last chunk came.
  template <class F>
  bool read_chunks(F each) {
    for (;;) {
      size_t line_end;
      while ((line_end = buffer_.find("\r\n")) == std::string::npos)
        if (!fill()) return false;
      size_t size = std::stoul(buffer_.substr(0, line_end), nullptr, 16);
      while (buffer_.size() < line_end + 2 + size + 2)
        if (!fill()) return false;
      std::string data = buffer_.substr(line_end + 2, size);
      buffer_.erase(0, line_end + 2 + size + 2);
      if (size == 0) return true; // no trailers from weir's server
      if (!each(data)) return false;
    }
  }

private:
  void read_chunks(ClientResponse& response) {
    read_chunks([&](const std::string& data) {
      response.body += data;
      return true;
    });
  }

  bool fill() {
    char chunk[4096];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    eof_ = n == 0 || errno == ECONNRESET;
    return false;
  }

  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

} // namespace weir::runtime::rest::test
