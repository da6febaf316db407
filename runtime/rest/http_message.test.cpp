#include <boost/test/unit_test.hpp>

#include <random>

#include "runtime/rest/http_message.hpp"

using namespace weir::runtime::rest;

namespace {

RequestHead parsed(std::string_view head) {
  auto result = parse_request_head(head);
  if (auto* error = std::get_if<HttpError>(&result)) BOOST_FAIL("unexpected error: " + error->message);
  return std::get<RequestHead>(result);
}

// Random edits of valid requests: bytes replaced, inserted, removed; runs cut out.
std::string mutate(std::string text, std::mt19937& random) {
  static constexpr std::string_view alphabet = "\r\n :;/%?=&{}\"0123456789aAfFzZ\t\x01\x7f\xff-";
  int edits = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < edits && !text.empty(); ++i) {
    size_t at = random() % text.size();
    char c = alphabet[random() % alphabet.size()];
    switch (random() % 4) {
      case 0: text[at] = c; break;
      case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
      case 2: text.erase(at, 1); break;
      default: text.erase(at, random() % 8); break;
    }
  }
  return text;
}

} // namespace

BOOST_AUTO_TEST_SUITE(http_message)

BOOST_AUTO_TEST_CASE(request_head_fields) {
  RequestHead head = parsed("PUT /connectors/a/config?x=1 HTTP/1.1\r\nHost: h\r\nCONTENT-LENGTH:  12 \r\n"
                            "Connection: Keep-Alive, Upgrade\r\nExpect: 100-Continue");
  BOOST_TEST(head.request.method == "PUT");
  BOOST_TEST(head.request.path() == "/connectors/a/config");
  BOOST_TEST(head.request.query() == "x=1");
  BOOST_TEST(*head.request.header("content-length") == "12");
  BOOST_TEST(*head.content_length == 12u);
  BOOST_TEST(head.keep_alive);
  BOOST_TEST(head.expect_continue);
  BOOST_TEST(!head.chunked);
  BOOST_TEST(!parsed("GET / HTTP/1.1\r\nConnection: close").keep_alive);
  BOOST_TEST(!parsed("GET / HTTP/1.0").keep_alive);
  BOOST_TEST(parsed("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked").chunked);
  // The same Content-Length twice is allowed (RFC 9112), two different ones are not.
  BOOST_TEST(*parsed("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3").content_length == 3u);
}

BOOST_AUTO_TEST_CASE(chunked_decoding) {
  std::string body;
  std::string wire = "3\r\nabc\r\n2;name=value\r\nde\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  ChunkedResult done = decode_chunked(wire, 100, body);
  BOOST_TEST((done.state == ChunkedResult::State::done));
  BOOST_TEST(body == "abcde");
  BOOST_TEST(wire.substr(done.consumed) == "NEXT");
  // Every proper prefix needs more.
  size_t end = wire.size() - 4;
  for (size_t n = 0; n < end; ++n)
    BOOST_TEST((decode_chunked(wire.substr(0, n), 100, body).state == ChunkedResult::State::need_more));
  ChunkedResult big = decode_chunked("ffffffffffffffffff\r\n", 100, body);
  BOOST_TEST((big.state == ChunkedResult::State::error));
  BOOST_TEST(big.error.status == 400); // beyond size_t: malformed
  BOOST_TEST(decode_chunked("65\r\n", 100, body).error.status == 413);
  // Too long a size line or trailer is refused however TCP cut it.
  std::string long_line = "1;" + std::string(1100, 'e') + "\r\nx\r\n0\r\n\r\n";
  BOOST_TEST(decode_chunked(long_line, 100, body).error.message == "Malformed chunked body");
  BOOST_TEST(decode_chunked(long_line.substr(0, 1050), 100, body).error.message == "Malformed chunked body");
  std::string long_trailer = "0\r\n" + std::string(5000, 't') + "\r\n" + std::string(5000, 't') + "\r\n\r\n";
  BOOST_TEST(decode_chunked(long_trailer, 100, body).error.message == "Chunked trailer is too large");
  BOOST_TEST(decode_chunked(long_trailer.substr(0, 9000), 100, body).error.message == "Chunked trailer is too large");
  std::string fits = "1;" + std::string(1000, 'e') + "\r\nx\r\n0\r\n" + std::string(8000, 't') + "\r\n\r\n";
  BOOST_TEST((decode_chunked(fits, 100, body).state == ChunkedResult::State::done));
  for (size_t cut : {size_t{1}, size_t{1003}, size_t{1004}, fits.size() / 2, fits.size() - 1})
    BOOST_TEST((decode_chunked(fits.substr(0, cut), 100, body).state == ChunkedResult::State::need_more), cut);
}

BOOST_AUTO_TEST_CASE(responses) {
  const std::string body = R"({"error_code":404,"message":"Connector \"a\" not found"})";
  std::string bytes = format_response(error_response(404, "Connector \"a\" not found"), false);
  BOOST_TEST(bytes.substr(0, 24) == "HTTP/1.1 404 Not Found\r\n");
  BOOST_TEST(bytes.find("\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n" + body) != std::string::npos);
  BOOST_TEST(bytes.substr(bytes.size() - body.size()) == body);
  std::string empty = format_response(empty_response(204), true);
  BOOST_TEST(empty.find("Content-Length") == std::string::npos);
  BOOST_TEST(empty.find("Connection") == std::string::npos);
  BOOST_TEST(format_response(empty_response(202), true).find("Content-Length: 0\r\n") != std::string::npos);
}

// Malformed input of every kind yields a request or a 4xx/5xx, never a crash.
BOOST_AUTO_TEST_CASE(random_garbage_is_answered_not_crashed_on) {
  std::mt19937 random(7);
  const std::vector<std::string> seeds = {
      "GET /connectors?expand=status HTTP/1.1\r\nHost: 127.0.0.1:8083\r\nAccept: */*",
      "POST /connectors HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 42",
      "PUT /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\nConnection: keep-alive",
  };
  const std::string chunked = "4\r\nwxyz\r\n10;x=y\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\n";
  int requests = 0;
  int errors = 0;
  for (int i = 0; i < 20000; ++i) {
    auto result = parse_request_head(mutate(seeds[static_cast<size_t>(i) % seeds.size()], random));
    if (auto* error = std::get_if<HttpError>(&result)) {
      ++errors;
      BOOST_TEST_REQUIRE((error->status >= 400 && error->status < 600));
      BOOST_TEST_REQUIRE(!error->message.empty());
    } else {
      ++requests;
      BOOST_TEST_REQUIRE(std::get<RequestHead>(result).request.target.front() == '/');
    }
    std::string body;
    ChunkedResult decoded = decode_chunked(mutate(chunked, random), 64, body);
    BOOST_TEST_REQUIRE(body.size() <= 64u);
    if (decoded.state == ChunkedResult::State::error)
      BOOST_TEST_REQUIRE((decoded.error.status == 400 || decoded.error.status == 413));
  }
  // Both outcomes were exercised.
  BOOST_TEST(requests > 1000);
  BOOST_TEST(errors > 1000);
}

BOOST_AUTO_TEST_SUITE_END()
