// The web console's files over real HTTP: served at /ui without the bearer token
// (the page asks for it), revalidated by ETag, while the API beside it still needs
// the token.
#include <boost/test/unit_test.hpp>

#include "runtime/rest/connect_api.hpp"
#include "runtime/rest/console.hpp"
#include "tests/support/fake_herder.hpp"
#include "tests/support/http_client.hpp"

using namespace weir::runtime::rest;
using weir::runtime::rest::test::FakeHerder;
using weir::runtime::rest::test::TestClient;

namespace {

struct Console {
  explicit Console(std::string token = "") : server(herder, options(std::move(token))), client(server.port()) {}
  static HttpServerOptions options(std::string token) {
    HttpServerOptions http;
    http.listener = "http://127.0.0.1:0";
    http.bearer_token = std::move(token);
    return http;
  }
  FakeHerder herder;
  ConnectRestServer server;
  TestClient client;
};

HttpRequest get(std::string target) {
  HttpRequest request;
  request.method = "GET";
  request.target = std::move(target);
  return request;
}

} // namespace

BOOST_AUTO_TEST_CASE(serves_the_page_and_its_files_with_an_etag) {
  Console console;
  auto page = console.client.request("GET", "/ui");
  BOOST_TEST(page.status == 200);
  BOOST_TEST(*page.header("content-type") == "text/html; charset=utf-8");
  BOOST_TEST(*page.header("cache-control") == "no-cache");
  BOOST_TEST(page.body.find("/ui/console.js") != std::string::npos);
  BOOST_TEST(console.client.request("GET", "/ui/").body == page.body);

  auto script = console.client.request("GET", "/ui/console.js");
  BOOST_TEST(script.status == 200);
  BOOST_TEST(*script.header("content-type") == "text/javascript; charset=utf-8");
  const std::string etag = *script.header("etag");
  BOOST_TEST(etag.size() == 22u); // 20 hex digits in quotes
  auto again = console.client.request("GET", "/ui/console.js", "", "if-none-match: " + etag + "\r\n");
  BOOST_TEST(again.status == 304);
  BOOST_TEST(again.body.empty());
  auto changed = console.client.request("GET", "/ui/console.js", "", "if-none-match: \"other\"\r\n");
  BOOST_TEST(changed.status == 200);

  auto missing = console.client.request("GET", "/ui/nothing.js");
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.body == R"({"error_code":404,"message":"HTTP 404 Not Found: the console has no file nothing.js"})");
}

BOOST_AUTO_TEST_CASE(head_answers_as_get_without_the_body) {
  Console console{"s3cret"};
  auto page = console.client.request("GET", "/ui");
  // The HEAD's answer has the GET's headers and no body: the next answer on the same
  // connection starts right after its head.
  console.client.send_raw("HEAD /ui HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  auto head = console.client.read_head();
  BOOST_TEST(head.status == 200);
  BOOST_TEST(*head.header("content-type") == "text/html; charset=utf-8");
  BOOST_TEST(*head.header("content-length") == std::to_string(page.body.size()));
  BOOST_TEST(console.client.request("GET", "/ui/").body == page.body);

  console.client.send_raw("HEAD /connectors HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  BOOST_TEST(console.client.read_head().status == 401); // the API still needs the token
  BOOST_TEST(console.client.request("GET", "/ui/nothing.js").status == 404);
}

BOOST_AUTO_TEST_CASE(the_page_needs_no_token_but_the_api_does) {
  Console console{"s3cret"};
  BOOST_TEST(console.client.request("GET", "/ui").status == 200);
  BOOST_TEST(console.client.request("GET", "/ui/console.css").status == 200);
  BOOST_TEST(console.client.request("GET", "/connectors").status == 401);
  BOOST_TEST(console.client.request("GET", "/ui/../connectors").status == 401);
  BOOST_TEST(console.client.request("GET", "/ui/%2e%2e").status == 401);
  BOOST_TEST(console.client.request("PUT", "/ui").status == 401);
  BOOST_TEST(console.client.request("GET", "/connectors", "", "authorization: Bearer s3cret\r\n").status == 200);
}

BOOST_AUTO_TEST_CASE(which_requests_are_the_consoles) {
  BOOST_TEST(is_console_request(get("/ui")));
  BOOST_TEST(is_console_request(get("/ui/")));
  BOOST_TEST(is_console_request(get("/ui/console.js?v=1")));
  BOOST_TEST(!is_console_request(get("/ui/.hidden")));
  BOOST_TEST(!is_console_request(get("/ui/a/b")));
  BOOST_TEST(!is_console_request(get("/uix")));
  BOOST_TEST(!is_console_request(get("/connectors")));
}
