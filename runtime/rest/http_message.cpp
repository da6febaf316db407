#include "runtime/rest/http_message.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>

#include "runtime/convert/json_text.hpp"

namespace weir::runtime::rest {

namespace {

using convert::append_int;
using convert::append_json_string;

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 9110 token characters: what a method and a header name may contain.
bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              std::string_view{"!#$%&'*+-.^_`|~"}.find(static_cast<char>(c)) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

bool has_control_chars(std::string_view s) noexcept {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool lists_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    if (iequals(trim_ows(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

HttpError bad(std::string message) { return {400, std::move(message)}; }

// Applies one header to the framing fields; an error if it makes the head invalid.
std::optional<HttpError> apply_framing(RequestHead& head, const Header& h) {
  const auto& [name, value] = h;
  if (name == "content-length") {
    size_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc{} || end != value.data() + value.size())
      return bad("Invalid Content-Length: " + value);
    if (head.content_length && *head.content_length != n) return bad("Conflicting Content-Length headers");
    head.content_length = n;
  } else if (name == "transfer-encoding") {
    if (!iequals(trim_ows(value), "chunked"))
      return HttpError{501, "Unsupported Transfer-Encoding: " + value + " (only chunked is)"};
    if (head.chunked) return bad("Repeated Transfer-Encoding header");
    head.chunked = true;
  } else if (name == "connection") {
    if (lists_token(value, "close")) head.keep_alive = false;
    else if (lists_token(value, "keep-alive")) head.keep_alive = true;
  } else if (name == "expect") {
    if (!iequals(trim_ows(value), "100-continue")) return HttpError{417, "Unsupported Expect: " + value};
    head.expect_continue = true;
  }
  return std::nullopt;
}

std::optional<HttpError> parse_request_line(std::string_view line, HttpRequest& request) {
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return bad("Malformed request line: expected METHOD TARGET HTTP/1.1");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return bad("Malformed request line: invalid method");
  if (target.empty() || target.front() != '/' || has_control_chars(target))
    return bad("Malformed request line: the target must be a path starting with '/'");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
    return bad("Malformed request line: invalid HTTP version");
  if (version[5] != '1' || version[7] > '1')
    return HttpError{505, "HTTP version not supported: " + std::string{version}};
  request.method = method;
  request.target = target;
  request.minor_version = version[7] - '0';
  return std::nullopt;
}

// Parses a chunk-size line's hex number (extensions after ';' ignored).
std::optional<size_t> chunk_size(std::string_view line) {
  line = trim_ows(line.substr(0, line.find(';')));
  size_t n = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), n, 16);
  if (line.empty() || ec != std::errc{} || end != line.data() + line.size()) return std::nullopt;
  return n;
}

void append_http_date(std::string& out) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  out.append(buf, n);
}

} // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

const std::string* HttpRequest::header(std::string_view lower_name) const noexcept {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return &value;
  return nullptr;
}

std::string_view HttpRequest::path() const noexcept {
  return std::string_view{target}.substr(0, target.find('?'));
}

std::string_view HttpRequest::query() const noexcept {
  size_t q = target.find('?');
  return q == std::string::npos ? std::string_view{} : std::string_view{target}.substr(q + 1);
}

HttpResponse error_response(int status, std::string_view message) {
  std::string body = "{\"error_code\":";
  append_int(status, body);
  body += ",\"message\":";
  append_json_string(message, body);
  body += '}';
  return json_response(status, std::move(body));
}

HttpResponse json_response(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse empty_response(int status) {
  HttpResponse response;
  response.status = status;
  response.content_type.clear();
  return response;
}

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::variant<RequestHead, HttpError> parse_request_head(std::string_view head) {
  RequestHead result;
  size_t eol = head.find("\r\n");
  if (auto error = parse_request_line(head.substr(0, eol), result.request)) return *error;
  result.keep_alive = result.request.minor_version >= 1;
  std::string_view rest = eol == std::string_view::npos ? std::string_view{} : head.substr(eol + 2);
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 2);
    if (line.empty()) return bad("Malformed header line");
    if (line.front() == ' ' || line.front() == '\t') return bad("Obsolete header line folding is not accepted");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
      return bad("Malformed header line");
    std::string_view value = trim_ows(line.substr(colon + 1));
    if (has_control_chars(value)) return bad("Control character in a header value");
    Header header{std::string{line.substr(0, colon)}, std::string{value}};
    std::transform(header.first.begin(), header.first.end(), header.first.begin(), lower);
    if (auto error = apply_framing(result, header)) return *error;
    result.request.headers.push_back(std::move(header));
  }
  if (result.chunked && result.content_length)
    return bad("Both Content-Length and Transfer-Encoding were sent");
  return result;
}

ChunkedResult decode_chunked(std::string_view buffer, size_t max_body, std::string& body) {
  using State = ChunkedResult::State;
  // A chunk-size line is short, a trailer section small: longer is garbage, refused
  // the same whether it arrived whole or cut anywhere (its '\r' without the '\n').
  constexpr size_t max_line = 1024, max_trailer = 8192;
  body.clear();
  size_t pos = 0;
  // need_more says where the complete data chunks end (`body` holds them).
  auto need_more = [&](size_t boundary) { return ChunkedResult{State::need_more, boundary, {0, ""}}; };
  size_t boundary = 0;
  for (;;) {
    size_t eol = buffer.find("\r\n", pos);
    if ((eol == std::string_view::npos && buffer.size() - pos > max_line + 1) ||
        (eol != std::string_view::npos && eol - pos > max_line))
      return {State::error, 0, bad("Malformed chunked body")};
    if (eol == std::string_view::npos) return need_more(boundary);
    auto size = chunk_size(buffer.substr(pos, eol - pos));
    if (!size) return {State::error, 0, bad("Malformed chunk size in chunked body")};
    pos = eol + 2;
    if (*size == 0) break;
    if (*size > max_body - body.size()) return {State::error, 0, {413, "Request body is too large"}};
    if (buffer.size() - pos < *size + 2) return need_more(boundary);
    body.append(buffer.substr(pos, *size));
    pos += *size;
    if (buffer.substr(pos, 2) != "\r\n") return {State::error, 0, bad("Missing CRLF after a chunk")};
    pos += 2;
    boundary = pos;
  }
  // Trailer fields, up to the empty line that ends the body.
  const size_t trailer_start = pos;
  for (;;) {
    size_t eol = buffer.find("\r\n", pos);
    size_t trailer_bytes = (eol == std::string_view::npos ? buffer.size() : eol + 2) - trailer_start;
    if (trailer_bytes > max_trailer) return {State::error, 0, bad("Chunked trailer is too large")};
    if (eol == std::string_view::npos) return need_more(boundary);
    bool last = eol == pos;
    pos = eol + 2;
    if (last) return {State::done, pos, {0, ""}};
  }
}

namespace {

// The status line and Date.
std::string status_line(int status) {
  std::string out = "HTTP/1.1 ";
  append_int(status, out);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\nDate: ";
  append_http_date(out);
  out += "\r\n";
  return out;
}

// The extra headers, Connection: close unless `keep_alive`, and the blank line.
void end_head(const HttpResponse& response, bool keep_alive, std::string& out) {
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
}

} // namespace

std::string format_stream_head(const HttpResponse& response, bool keep_alive) {
  std::string out = status_line(response.status);
  if (!response.content_type.empty()) out += "Content-Type: " + response.content_type + "\r\n";
  out += "Transfer-Encoding: chunked\r\n";
  end_head(response, keep_alive, out);
  return out;
}

std::string format_chunk(std::string_view data) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string size;
  for (size_t n = data.size(); n > 0; n /= 16) size.insert(size.begin(), digits[n % 16]);
  std::string out = size + "\r\n";
  out += data;
  out += "\r\n";
  return out;
}

std::string format_response(const HttpResponse& response, bool keep_alive) {
  std::string out = status_line(response.status);
  if (response.status != 204) {
    if (!response.content_type.empty()) out += "Content-Type: " + response.content_type + "\r\n";
    out += "Content-Length: ";
    append_int(static_cast<int64_t>(response.body.size()), out);
    out += "\r\n";
  }
  end_head(response, keep_alive, out);
  if (response.status != 204 && !response.head_only) out += response.body;
  return out;
}

} // namespace weir::runtime::rest
