// Fuzzing of the REST server's request parsing (runtime/rest/http_message.hpp: the
// pure framing functions the server calls; the sockets around them are not fuzzed).
// The input is what a client sends: the head up to the first blank line, as the
// server cuts it, then the body.
// - parse_request_head: a head or an error with a 4xx/5xx status; a parsed head has
//   a method, lower-case header names, and never both framings (request smuggling);
// - decode_chunked (for a chunked head): done, need_more or a 400/413 error; done
//   consumed no more than it was given and decoded no more than max_body; and the
//   server reads a body as it arrives, so every shorter prefix of a body that
//   decodes whole must answer need_more (else the outcome depends on how TCP cut it),
//   and decoding resumed from where the prefix's complete chunks end (as the server
//   does) must give the same body as decoding it whole.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "runtime/rest/http_message.hpp"
#include "tests/fuzz/report.hpp"

using namespace weir::runtime::rest;

constexpr std::string_view harness = "http_request";

namespace {

constexpr size_t max_body = 4096;

void check_body(std::string_view body, std::string_view input) {
  std::string decoded;
  ChunkedResult whole = decode_chunked(body, max_body, decoded);
  switch (whole.state) {
    case ChunkedResult::State::need_more: return;
    case ChunkedResult::State::error:
      if (whole.error.status != 400 && whole.error.status != 413)
        weir::fuzz::finding(harness, "decode_chunked: an error status other than 400 or 413", input, std::to_string(whole.error.status));
      return;
    case ChunkedResult::State::done: break;
  }
  if (whole.consumed > body.size() || decoded.size() > max_body)
    weir::fuzz::finding(harness, "decode_chunked: consumed or decoded too much", input);
  // Prefixes as a server may see them: a few cut points, the last byte included.
  std::string partial;
  for (size_t cut : {whole.consumed - 1, whole.consumed / 2, whole.consumed / 3, size_t{1}}) {
    if (cut >= whole.consumed)
      continue;
    ChunkedResult r = decode_chunked(body.substr(0, cut), max_body, partial);
    if (r.state != ChunkedResult::State::need_more) {
      weir::fuzz::finding(harness, "decode_chunked: a prefix of a complete body does not ask for more", input,
           "prefix of " + std::to_string(cut) + " bytes: " + (r.state == ChunkedResult::State::done ? "done" : r.error.message));
      continue;
    }
    // The server goes on from where the prefix's complete chunks ended (each byte
    // decoded once): that must give the same body, ending at the same byte.
    std::string rest;
    ChunkedResult resumed = decode_chunked(body.substr(r.consumed), max_body - partial.size(), rest);
    if (r.consumed > cut || resumed.state != ChunkedResult::State::done || partial + rest != decoded
        || r.consumed + resumed.consumed != whole.consumed)
      weir::fuzz::finding(harness, "decode_chunked: decoding resumed after a prefix differs from decoding whole", input,
           "prefix of " + std::to_string(cut) + " bytes");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t head_end = input.find("\r\n\r\n");
  std::string_view head = input.substr(0, head_end);
  std::string_view body = head_end == std::string_view::npos ? std::string_view{} : input.substr(head_end + 4);

  auto parsed = parse_request_head(head);
  if (auto* error = std::get_if<HttpError>(&parsed)) {
    if (error->status < 400 || error->status > 599 || error->message.empty())
      weir::fuzz::finding(harness, "parse_request_head: an error without a 4xx/5xx status and a message", input,
           std::to_string(error->status) + " " + error->message);
    return 0;
  }
  const RequestHead& h = std::get<RequestHead>(parsed);
  if (h.request.method.empty() || h.request.target.empty())
    weir::fuzz::finding(harness, "parse_request_head: a request without method or target", input);
  if (h.chunked && h.content_length)
    weir::fuzz::finding(harness, "parse_request_head: both Content-Length and chunked", input);
  for (const auto& [name, value] : h.request.headers)
    if (name.empty() || std::any_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
      weir::fuzz::finding(harness, "parse_request_head: a header name not in lower case", input, name);
  (void)h.request.path();
  (void)h.request.query();
  if (h.chunked)
    check_body(body, input);
  return 0;
}
