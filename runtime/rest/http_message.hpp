// HTTP/1.1 messages as the REST server sees them, and the pure parsing of their
// framing (request head, chunked body), kept apart from sockets so it is testable
// byte for byte. Error bodies follow Kafka Connect: {"error_code":N,"message":"…"}.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace weir::runtime::rest {

/// One header line. Request header names are stored lower-cased (HTTP names are
/// case-insensitive); response headers are written as given.
using Header = std::pair<std::string, std::string>;

/// A complete request: head parsed, body read and de-chunked.
struct HttpRequest {
  std::string method;
  std::string target; // as sent: path and query, still percent-encoded
  int minor_version = 1; // HTTP/1.<minor>
  std::vector<Header> headers;
  std::string body;

  /// The first value of a header, by lower-case name; nullptr if absent.
  const std::string* header(std::string_view lower_name) const noexcept;
  std::string_view path() const noexcept;  // target before '?'
  std::string_view query() const noexcept; // target after '?', empty if none
};

/// Where a streamed response's body goes (HttpResponse::stream), piece by piece as
/// it is made, so the client reads each piece at once.
class ResponseStream {
public:
  virtual ~ResponseStream() = default;
  /// Sends `data` now. False once the client has gone (closed or reset the
  /// connection, or stopped reading for the server's read timeout) or the server is
  /// stopping: the producer should end.
  virtual bool write(std::string_view data) = 0;
  /// Whether the client has gone, asked without writing: for a producer that may
  /// wait a while between pieces.
  virtual bool gone() = 0;
};

struct HttpResponse {
  int status = 200;
  std::vector<Header> headers; // extra headers: Location, Allow, WWW-Authenticate
  std::string body;
  std::string content_type = "application/json";
  /// A streamed body instead of `body`: called by the server once the handler has
  /// returned, on the connection's thread. The status line and headers go out with
  /// the first write (HTTP/1.1: chunked; HTTP/1.0: the whole body at the end). An
  /// exception before the first write is answered as a handler's would be (its
  /// status, Kafka Connect's error body); after it, the connection is closed
  /// without the last chunk, so the client sees the body cut short.
  std::function<void(ResponseStream&)> stream = nullptr;
  /// The answer to a HEAD request: the GET's status and headers, Content-Length
  /// included, without the body (RFC 9110, 9.3.2).
  bool head_only = false;
};

/// An error that a request handler (or a herder behind it) throws to answer with
/// `status` and Kafka Connect's error body carrying what().
class RestError : public std::runtime_error {
public:
  RestError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

private:
  int status_;
};

/// Kafka Connect's ErrorMessage entity: `{"error_code":status,"message":...}`.
HttpResponse error_response(int status, std::string_view message);
/// A JSON body (already serialized) with `status`.
HttpResponse json_response(int status, std::string body);
/// A response without a body (204, or 202 as Kafka Connect answers pause/resume).
HttpResponse empty_response(int status);

std::string_view reason_phrase(int status) noexcept;

/// ASCII case-insensitive equality, as HTTP compares names and tokens.
bool iequals(std::string_view a, std::string_view b) noexcept;

/// A request head that cannot be served: the status to answer with and why.
struct HttpError {
  int status;
  std::string message;
};

/// What a request head says, including how its body is framed.
struct RequestHead {
  HttpRequest request; // body still empty
  std::optional<size_t> content_length;
  bool chunked = false;
  bool keep_alive = true;
  bool expect_continue = false;
};

/// Parses a request line and its header lines; `head` is everything before the
/// blank line that ends the head. Rejects (400) malformed lines, header names with
/// spaces, obsolete line folding, bad or conflicting Content-Length, a
/// Transfer-Encoding other than chunked, and both framings at once (smuggling);
/// 505 for an HTTP version other than 1.0 / 1.1.
std::variant<RequestHead, HttpError> parse_request_head(std::string_view head);

/// Progress of decoding a chunked body held in a buffer.
struct ChunkedResult {
  enum class State { need_more, done, error } state = State::need_more;
  /// done: the bytes of the buffer the whole body used; need_more: where its
  /// complete data chunks end (decoding may go on from there, keeping `body`).
  size_t consumed = 0;
  HttpError error{0, ""};
};

/// Decodes a complete chunked body at the start of `buffer` into `body`
/// (overwritten), ignoring chunk extensions and trailers. need_more until the
/// last chunk and trailer section are all in the buffer (with the complete chunks
/// so far in `body`, so a caller reading as bytes arrive decodes each byte once);
/// 413 once the decoded size passes `max_body`; 400 for malformed framing.
ChunkedResult decode_chunked(std::string_view buffer, size_t max_body, std::string& body);

/// The bytes of a response: status line, Date, Content-Type and Content-Length
/// (neither for 204), `Connection: close` unless `keep_alive`, then the body.
std::string format_response(const HttpResponse& response, bool keep_alive);
/// The head of a streamed response: as format_response's, with
/// `Transfer-Encoding: chunked` in place of Content-Length.
std::string format_stream_head(const HttpResponse& response, bool keep_alive);
/// One chunk of a chunked body (`data` must not be empty: that ends the body).
std::string format_chunk(std::string_view data);

} // namespace weir::runtime::rest
