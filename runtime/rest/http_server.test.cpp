#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <memory>
#include <random>
#include <thread>

#include "runtime/rest/http_server.hpp"
#include "tests/support/http_client.hpp"
#include "weir/config.hpp"

using namespace weir::runtime::rest;
using weir::runtime::rest::test::TestClient;

namespace {

// Answers every request with its method, target and body, so framing is visible.
HttpResponse echo(const HttpRequest& request) {
  if (request.target == "/throw") throw RestError(409, "conflicting");
  if (request.target == "/crash") throw std::runtime_error("handler failed");
  return json_response(200, request.method + " " + request.target + " [" + request.body + "]");
}

// Holds handler calls until opened, counting the calls that are waiting.
struct Gate {
  std::promise<void> opened;
  std::shared_future<void> open_future = opened.get_future().share();
  std::atomic<int> entered{0};

  void pass() {
    ++entered;
    open_future.wait();
  }
  void wait_for(int calls) const {
    while (entered < calls) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  void open() { opened.set_value(); }
};

HttpServerOptions local(HttpServerOptions options = {}) {
  options.listener = "http://127.0.0.1:0";
  return options;
}

} // namespace

BOOST_AUTO_TEST_SUITE(http_server)

BOOST_AUTO_TEST_CASE(listener_values) {
  Listener plain = parse_listener("http://127.0.0.1:8083");
  BOOST_TEST(plain.host == "127.0.0.1");
  BOOST_TEST(plain.port == 8083);
  BOOST_TEST(parse_listener("http://[::1]:0").host == "::1");
  BOOST_TEST(parse_listener("HTTP://:9000").host == "");
  BOOST_TEST(parse_listener("http://localhost:65535").port == 65535);
  BOOST_TEST(parse_listener("https://127.0.0.1:8443").tls);
  BOOST_TEST(!parse_listener("http://127.0.0.1:8443").tls);
  BOOST_CHECK_THROW(parse_listener("ftp://127.0.0.1:8443"), weir::ConfigError);
  BOOST_CHECK_THROW(parse_listener("http://127.0.0.1"), weir::ConfigError);
  BOOST_CHECK_THROW(parse_listener("http://127.0.0.1:70000"), weir::ConfigError);
  BOOST_CHECK_THROW(parse_listener("http://a:1,http://b:2"), weir::ConfigError);
  BOOST_CHECK_THROW(parse_listener("127.0.0.1:8083"), weir::ConfigError);
}

BOOST_AUTO_TEST_CASE(an_https_listener_without_good_pem_material_names_the_key) {
  auto key_of = [](HttpServerOptions options) {
    options.listener = "https://127.0.0.1:0";
    try {
      HttpServer server(options, echo);
    } catch (const weir::ConfigError& e) {
      return std::string{e.key()} + ": " + e.what();
    }
    return std::string{"no error"};
  };
  BOOST_TEST(key_of({}).rfind("listeners.https.ssl.keystore.certificate.chain: ", 0) == 0);
  HttpServerOptions garbage;
  garbage.tls = TlsOptions{};
  garbage.tls->certificate_chain = "not a certificate";
  garbage.tls->private_key = "not a key";
  auto message = key_of(garbage);
  BOOST_TEST(message.rfind("listeners.https.ssl.keystore.certificate.chain: ", 0) == 0, message);
  BOOST_TEST(message.find("no PEM certificate") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(ephemeral_port_and_keep_alive) {
  HttpServer server(local(), echo);
  BOOST_TEST(server.port() != 0);
  TestClient client(server.port());
  for (int i = 0; i < 3; ++i) {
    auto response = client.request("GET", "/x?i=" + std::to_string(i));
    BOOST_TEST(response.status == 200);
    BOOST_TEST(response.body == "GET /x?i=" + std::to_string(i) + " []");
    BOOST_TEST(*response.header("content-type") == "application/json");
    BOOST_TEST(!response.header("connection"));
  }
  auto post = client.request("POST", "/y", "{\"a\":1}");
  BOOST_TEST(post.body == "POST /y [{\"a\":1}]");
}

BOOST_AUTO_TEST_CASE(pipelined_requests_are_answered_in_order) {
  HttpServer server(local(), echo);
  TestClient client(server.port());
  client.send_raw("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                  "PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                  "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  BOOST_TEST(client.read_response().body == "GET /a []");
  BOOST_TEST(client.read_response().body == "PUT /b [abc]");
  auto last = client.read_response();
  BOOST_TEST(last.body == "GET /c []");
  BOOST_TEST(*last.header("connection") == "close");
  BOOST_TEST(client.closed_by_server());
}

BOOST_AUTO_TEST_CASE(requests_split_anywhere_are_framed_the_same) {
  HttpServer server(local(), echo);
  const std::string requests = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                               "PUT /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                               "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n1\r\nf\r\n0\r\n\r\n"
                               "GET /d HTTP/1.1\r\n\r\n";
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    TestClient client(server.port());
    for (size_t at = 0; at < requests.size();) {
      size_t n = 1 + random() % 9;
      client.send_raw(std::string_view{requests}.substr(at, n));
      at += n;
      if (random() % 4 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    BOOST_TEST(client.read_response().body == "GET /a []");
    BOOST_TEST(client.read_response().body == "PUT /b [abc]");
    BOOST_TEST(client.read_response().body == "POST /c [def]");
    BOOST_TEST(client.read_response().body == "GET /d []");
  }
}

BOOST_AUTO_TEST_CASE(http_1_0_closes_unless_asked_to_keep_alive) {
  HttpServer server(local(), echo);
  TestClient kept(server.port());
  kept.send_raw("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  auto first = kept.read_response();
  BOOST_TEST(first.status == 200);
  BOOST_TEST(*first.header("connection") == "keep-alive");
  kept.send_raw("GET /b HTTP/1.0\r\n\r\n");
  BOOST_TEST(kept.read_response().body == "GET /b []");
  BOOST_TEST(kept.closed_by_server());
}

BOOST_AUTO_TEST_CASE(chunked_bodies_and_expect_continue) {
  HttpServer server(local(), echo);
  TestClient client(server.port());
  client.send_raw("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "4;ext=1\r\nabcd\r\n");
  client.send_raw("A\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n");
  BOOST_TEST(client.read_response().body == "POST /c [abcd0123456789]");

  client.send_raw("PUT /e HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
  BOOST_TEST(client.read_response().status == 100);
  client.send_raw("ok");
  BOOST_TEST(client.read_response().body == "PUT /e [ok]");
}

BOOST_AUTO_TEST_CASE(malformed_requests_get_400_with_a_json_error) {
  HttpServer server(local(), echo);
  struct Case {
    std::string bytes;
    int status;
    std::string message;
  };
  std::vector<Case> cases = {
      {"GARBAGE\r\n\r\n", 400, "Malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"GET /a b HTTP/1.1\r\n\r\n", 400, "Malformed request line: expected METHOD TARGET HTTP/1.1"},
      {"GET a HTTP/1.1\r\n\r\n", 400, "Malformed request line: the target must be a path starting with '/'"},
      {"GET / HTTP/x\r\n\r\n", 400, "Malformed request line: invalid HTTP version"},
      {"GET / HTTP/2.0\r\n\r\n", 505, "HTTP version not supported: HTTP/2.0"},
      {"G(T / HTTP/1.1\r\n\r\n", 400, "Malformed request line: invalid method"},
      {"GET / HTTP/1.1\r\nNo colon\r\n\r\n", 400, "Malformed header line"},
      {"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "Malformed header line"},
      {"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, "Obsolete header line folding is not accepted"},
      {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Invalid Content-Length: -1"},
      {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400,
       "Conflicting Content-Length headers"},
      {"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
       "Both Content-Length and Transfer-Encoding were sent"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
       "Unsupported Transfer-Encoding: gzip (only chunked is)"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "Malformed chunk size in chunked body"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", 400, "Missing CRLF after a chunk"},
      {std::string("GET / HTTP/1.1\r\nA: \x01\r\n\r\n"), 400, "Control character in a header value"},
  };
  for (const auto& c : cases) {
    TestClient client(server.port());
    client.send_raw(c.bytes);
    auto response = client.read_response();
    BOOST_TEST_CONTEXT(c.bytes) {
      BOOST_TEST(response.status == c.status);
      BOOST_TEST(response.body == R"({"error_code":)" + std::to_string(c.status) + R"(,"message":")" +
                                      c.message + R"("})");
      BOOST_TEST(*response.header("connection") == "close");
      BOOST_TEST(client.closed_by_server());
    }
  }
  // The server is still serving after all that.
  TestClient client(server.port());
  BOOST_TEST(client.request("GET", "/ok").status == 200);
}

BOOST_AUTO_TEST_CASE(size_limits) {
  HttpServerOptions options = local();
  options.max_header_bytes = 1024;
  options.max_body_bytes = 100;
  HttpServer server(options, echo);
  {
    TestClient client(server.port());
    auto response = client.request("GET", "/" + std::string(2000, 'a'));
    BOOST_TEST(response.status == 431);
    BOOST_TEST(response.body == R"({"error_code":431,"message":"Request header is larger than 1024 bytes"})");
  }
  {
    TestClient client(server.port());
    auto response = client.request("POST", "/big", std::string(101, 'x'));
    BOOST_TEST(response.status == 413);
    BOOST_TEST(response.body == R"({"error_code":413,"message":"Request body is larger than 100 bytes"})");
    BOOST_TEST(client.closed_by_server());
  }
  {
    TestClient client(server.port());
    client.send_raw("POST /big HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n" + std::string(100, 'x') +
                    "\r\n1\r\nx\r\n0\r\n\r\n");
    auto response = client.read_response();
    BOOST_TEST(response.status == 413);
    BOOST_TEST(response.body == R"({"error_code":413,"message":"Request body is too large"})");
  }
  TestClient client(server.port());
  BOOST_TEST(client.request("POST", "/fits", std::string(100, 'x')).status == 200);
}

BOOST_AUTO_TEST_CASE(requests_waiting_for_a_handler_count_against_the_buffered_bytes) {
  Gate gate;
  HttpServerOptions options = local();
  options.max_handler_threads = 1;
  options.max_buffered_bytes = 10'000;
  HttpServer server(options, [&](const HttpRequest& request) {
    gate.pass();
    return json_response(200, std::to_string(request.body.size()));
  });
  TestClient busy(server.port());
  busy.send_raw("PUT /a HTTP/1.1\r\nContent-Length: 1\r\n\r\nx");
  gate.wait_for(1);
  TestClient queued(server.port()); // complete, waits for the only handler thread
  queued.send_raw("PUT /b HTTP/1.1\r\nContent-Length: 6000\r\n\r\n" + std::string(6000, 'b'));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestClient over(server.port());
  over.send_raw("PUT /c HTTP/1.1\r\nContent-Length: 6000\r\n\r\n" + std::string(6000, 'c'));
  BOOST_TEST(over.read_response().status == 503);
  gate.open();
  BOOST_TEST(busy.read_response().body == "1");
  BOOST_TEST(queued.read_response().body == "6000");
}

// A burst of requests that each hold their handler (taps stream for seconds) gets
// a thread each while threads are to spare: none waits behind another.
BOOST_AUTO_TEST_CASE(a_burst_of_long_requests_gets_a_handler_thread_each) {
  Gate gate;
  HttpServer server(local(), [&](const HttpRequest& request) {
    if (request.target == "/slow")
      gate.pass();
    return json_response(200, "{}");
  });
  TestClient fast(server.port());
  BOOST_TEST(fast.request("GET", "/fast").status == 200); // its thread waits, idle, for the burst
  std::vector<std::unique_ptr<TestClient>> slow;
  for (int i = 0; i < 16; ++i) {
    slow.push_back(std::make_unique<TestClient>(server.port()));
    slow.back()->send_raw("GET /slow HTTP/1.1\r\n\r\n");
  }
  for (int waited = 0; gate.entered < 16 && waited < 1000; ++waited) // at most 10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  BOOST_TEST(gate.entered == 16);
  BOOST_TEST(fast.request("GET", "/fast").status == 200);
  gate.open();
  for (auto& client : slow)
    BOOST_TEST(client->read_response().status == 200);
}

BOOST_AUTO_TEST_CASE(handler_exceptions_become_error_bodies) {
  HttpServer server(local(), echo);
  TestClient client(server.port());
  auto rest = client.request("GET", "/throw");
  BOOST_TEST(rest.status == 409);
  BOOST_TEST(rest.body == R"({"error_code":409,"message":"conflicting"})");
  auto crash = client.request("GET", "/crash");
  BOOST_TEST(crash.status == 500);
  BOOST_TEST(crash.body == R"({"error_code":500,"message":"handler failed"})");
  BOOST_TEST(client.request("GET", "/after").status == 200); // same connection still served
}

BOOST_AUTO_TEST_CASE(bearer_token) {
  HttpServerOptions options = local();
  options.bearer_token = "s3cret";
  HttpServer server(options, echo);
  TestClient client(server.port());
  auto missing = client.request("GET", "/x");
  BOOST_TEST(missing.status == 401);
  BOOST_TEST(missing.body ==
             R"({"error_code":401,"message":"Authentication required: send the header 'Authorization: Bearer <token>'"})");
  BOOST_TEST(*missing.header("www-authenticate") == "Bearer realm=\"weir\"");
  auto wrong = client.request("GET", "/x", "", "Authorization: Bearer s3cres\r\n");
  BOOST_TEST(wrong.status == 401);
  BOOST_TEST(wrong.body == R"({"error_code":401,"message":"Invalid bearer token"})");
  auto basic = client.request("GET", "/x", "", "Authorization: Basic czNjcmV0\r\n");
  BOOST_TEST(basic.body ==
             R"({"error_code":401,"message":"Unsupported authorization scheme: expected 'Authorization: Bearer <token>'"})");
  auto good = client.request("GET", "/x", "", "authorization: bearer s3cret\r\n");
  BOOST_TEST(good.status == 200);
  BOOST_TEST(good.body == "GET /x []");
  // A refused request with a body closes the connection (its body is never read).
  auto refused = client.request("POST", "/x", "{}");
  BOOST_TEST(refused.status == 401);
  BOOST_TEST(client.closed_by_server());
}

BOOST_AUTO_TEST_CASE(no_token_means_no_authentication) {
  HttpServer server(local(), echo);
  TestClient client(server.port());
  BOOST_TEST(client.request("GET", "/x", "", "Authorization: Bearer anything\r\n").status == 200);
}

BOOST_AUTO_TEST_CASE(at_the_cap_a_new_connection_takes_an_idle_ones_place) {
  HttpServerOptions options = local();
  options.max_connections = 2;
  HttpServer server(options, echo);
  TestClient half(server.port());
  half.send_raw("GET /half HTTP/1.1\r\n");
  TestClient idle(server.port());
  BOOST_TEST(idle.request("GET", "/idle").status == 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // back to waiting for a request
  TestClient fresh(server.port());
  BOOST_TEST(fresh.request("GET", "/fresh").status == 200);
  BOOST_TEST(idle.closed_by_server()); // the idle one made way, though it is newer
  half.send_raw("\r\n");
  BOOST_TEST(half.read_response().body == "GET /half []");
}

BOOST_AUTO_TEST_CASE(at_the_cap_the_oldest_half_sent_connection_makes_way_with_503) {
  HttpServerOptions options = local();
  options.max_connections = 2;
  HttpServer server(options, echo);
  TestClient older(server.port());
  older.send_raw("GET /older HTTP/1.1\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestClient newer(server.port());
  newer.send_raw("GET /newer HTTP/1.1\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestClient fresh(server.port());
  BOOST_TEST(fresh.request("GET", "/fresh").status == 200);
  auto evicted = older.read_response();
  BOOST_TEST(evicted.status == 503);
  BOOST_TEST(older.closed_by_server());
  newer.send_raw("\r\n");
  BOOST_TEST(newer.read_response().body == "GET /newer []");
}

BOOST_AUTO_TEST_CASE(when_every_connection_is_being_answered_a_new_one_gets_503) {
  Gate gate;
  HttpServerOptions options = local();
  options.max_connections = 2;
  HttpServer server(options, [&](const HttpRequest&) {
    gate.pass();
    return json_response(200, "done");
  });
  TestClient a(server.port());
  TestClient b(server.port());
  a.send_raw("GET /a HTTP/1.1\r\n\r\n");
  b.send_raw("GET /b HTTP/1.1\r\n\r\n");
  gate.wait_for(2);
  TestClient c(server.port());
  auto refused = c.request("GET", "/c");
  BOOST_TEST(refused.status == 503);
  BOOST_TEST(refused.body ==
             R"({"error_code":503,"message":"Too many connections: this server serves at most 2 at once; retry later"})");
  BOOST_TEST(c.closed_by_server());
  gate.open();
  BOOST_TEST(a.read_response().status == 200);
  BOOST_TEST(b.read_response().status == 200);
}

BOOST_AUTO_TEST_CASE(slow_and_idle_connections_hold_no_handler_thread) {
  // One handler thread and many clients trickling half a request: a complete
  // request from another client is still answered at once.
  HttpServerOptions options = local();
  options.max_handler_threads = 1;
  HttpServer server(options, echo);
  std::vector<std::unique_ptr<TestClient>> slow;
  for (int i = 0; i < 100; ++i) {
    slow.push_back(std::make_unique<TestClient>(server.port()));
    if (i % 2 == 0) slow.back()->send_raw("GET /slow HTTP/1.1\r\nX-A: ");
  }
  for (int round = 0; round < 3; ++round) {
    for (auto& c : slow) c->send_raw("a");
    TestClient client(server.port());
    BOOST_TEST(client.request("GET", "/health").body == "GET /health []");
  }
}

BOOST_AUTO_TEST_CASE(unauthenticated_clients_are_answered_without_a_handler) {
  Gate gate;
  HttpServerOptions options = local();
  options.bearer_token = "t";
  options.max_handler_threads = 1;
  HttpServer server(options, [&](const HttpRequest& request) {
    if (request.target == "/block") gate.pass();
    return json_response(200, "ok");
  });
  TestClient busy(server.port());
  busy.send_raw("GET /block HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n");
  // The only handler thread is busy, yet a request without the token is refused now.
  TestClient stranger(server.port());
  BOOST_TEST(stranger.request("GET", "/x").status == 401);
  gate.open();
  BOOST_TEST(busy.read_response().status == 200);
}

BOOST_AUTO_TEST_CASE(idle_and_slow_connections_time_out) {
  HttpServerOptions options = local();
  options.idle_timeout = std::chrono::milliseconds(200);
  options.read_timeout = std::chrono::milliseconds(300);
  HttpServer server(options, echo);
  TestClient idle(server.port());
  BOOST_TEST(idle.closed_by_server()); // nothing sent: closed without a response
  TestClient slow(server.port());
  slow.send_raw("GET /slow HTTP/1.1\r\n");
  auto response = slow.read_response();
  BOOST_TEST(response.status == 408);
  BOOST_TEST(response.body == R"({"error_code":408,"message":"The request did not arrive in time"})");
  // A body trickling in: the whole request is due within read_timeout of its first byte.
  TestClient trickle(server.port());
  trickle.send_raw("PUT /slow HTTP/1.1\r\nContent-Length: 10\r\n\r\n");
  for (int i = 0; i < 3; ++i) {
    trickle.send_raw("x");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  BOOST_TEST(trickle.read_response().status == 408);
}

BOOST_AUTO_TEST_CASE(request_bytes_held_across_connections_are_bounded) {
  HttpServerOptions options = local();
  options.max_buffered_bytes = 10'000;
  HttpServer server(options, echo);
  TestClient first(server.port());
  first.send_raw("PUT /a HTTP/1.1\r\nContent-Length: 20000\r\n\r\n" + std::string(6000, 'a'));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TestClient second(server.port());
  second.send_raw("PUT /b HTTP/1.1\r\nContent-Length: 20000\r\n\r\n" + std::string(6000, 'b'));
  auto refused = second.read_response();
  BOOST_TEST(refused.status == 503);
  BOOST_TEST(refused.body ==
             R"({"error_code":503,"message":"The server is receiving too many requests at once; retry later"})");
  // The first was within the bound so far; once its own bytes pass it, it is refused too.
  first.send_raw(std::string(14000, 'a'));
  BOOST_TEST(first.read_response().status == 503);
  TestClient small(server.port());
  BOOST_TEST(small.request("PUT", "/c", "fits").body == "PUT /c [fits]");
}

BOOST_AUTO_TEST_CASE(stop_closes_open_connections_and_joins_every_thread) {
  std::promise<void> entered;
  std::promise<void> release;
  auto released = release.get_future().share();
  auto server = std::make_unique<HttpServer>(local(), [&](const HttpRequest& request) {
    if (request.target == "/block") {
      entered.set_value();
      released.wait();
    }
    return json_response(200, "done");
  });
  TestClient idle(server->port());
  BOOST_TEST(idle.request("GET", "/warm").status == 200); // kept alive, then idle
  TestClient partial(server->port());
  partial.send_raw("GET /partial HTTP/1.1\r\n"); // a request half sent
  TestClient busy(server->port());
  busy.send_raw("GET /block HTTP/1.1\r\n\r\n");
  entered.get_future().wait();

  auto stopped = std::async(std::launch::async, [&] { server.reset(); });
  BOOST_TEST(idle.closed_by_server());
  BOOST_TEST(partial.closed_by_server());
  // The request in the handler is finished and answered before the server goes.
  release.set_value();
  stopped.get();
  auto last = busy.read_response();
  BOOST_TEST(last.status == 200);
  BOOST_TEST(*last.header("connection") == "close");
  BOOST_TEST(busy.closed_by_server());
}

BOOST_AUTO_TEST_CASE(garbage_on_the_wire_never_takes_the_server_down) {
  HttpServerOptions options = local();
  options.max_body_bytes = 1024;
  HttpServer server(options, echo);
  std::mt19937 random(11);
  int answered = 0;
  for (int i = 0; i < 300; ++i) {
    std::string blob(random() % 300, '\0');
    for (char& c : blob) c = static_cast<char>(random());
    if (i % 3 == 1) blob = "POST /x HTTP/1.1\r\n" + blob + "\r\n\r\n";
    if (i % 3 == 2) blob = "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + blob;
    TestClient client(server.port());
    client.send_raw(blob);
    client.finish_sending();
    // Whatever comes back is whole HTTP responses, then the end of the connection.
    for (auto response = client.read_response(); response.status != 0; response = client.read_response()) {
      BOOST_TEST_REQUIRE((response.status == 200 || response.status >= 400));
      ++answered;
    }
  }
  // Every complete head (a third of the blobs) got an answer; incomplete requests
  // ended by the client are closed without one.
  BOOST_TEST(answered >= 100);
  TestClient client(server.port());
  BOOST_TEST(client.request("GET", "/alive").body == "GET /alive []");
}

// A streamed answer: "first\n", then (once `release` is set) "second\n"; a stream
// that throws before or after its first piece; one that waits for its client to go.
struct Streams {
  std::atomic<bool> release{false}, saw_gone{false}, write_refused{false}, ended{false};

  HttpResponse operator()(const HttpRequest& request) {
    HttpResponse response{200, {}, {}, "application/x-ndjson"};
    if (request.target == "/two")
      response.stream = [this](ResponseStream& out) {
        out.write("first\n");
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds{5});
        out.write("second\n");
      };
    else if (request.target == "/fail-first")
      response.stream = [](ResponseStream&) { throw RestError(404, "Stage x not found in task c-0"); };
    else if (request.target == "/fail-later")
      response.stream = [](ResponseStream& out) {
        out.write("one\n");
        throw std::runtime_error("broken");
      };
    else if (request.target == "/until-gone")
      response.stream = [this](ResponseStream& out) {
        out.write("hello\n");
        for (int i = 0; i < 1000 && !out.gone(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds{10});
        saw_gone = out.gone();
        write_refused = !out.write("late\n");
        ended = true;
      };
    else
      response.stream = [](ResponseStream&) {}; // nothing at all
    return response;
  }
};

BOOST_AUTO_TEST_CASE(a_streamed_answer_arrives_piece_by_piece_as_chunks) {
  Streams streams;
  HttpServer server(local(), std::ref(streams));
  TestClient client(server.port());
  BOOST_REQUIRE(client.send_raw("GET /two HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto head = client.read_head();
  BOOST_TEST(head.status == 200);
  BOOST_TEST(*head.header("transfer-encoding") == "chunked");
  BOOST_TEST(*head.header("content-type") == "application/x-ndjson");
  BOOST_TEST(head.header("content-length") == nullptr);
  // The first piece is readable while the producer still waits to write the second.
  std::vector<std::string> pieces;
  bool ended = client.read_chunks([&](const std::string& data) {
    pieces.push_back(data);
    streams.release = true;
    return true;
  });
  BOOST_TEST(ended);
  BOOST_TEST((pieces == std::vector<std::string>{"first\n", "second\n"}));
  // The connection stays usable.
  auto empty = client.request("GET", "/nothing");
  BOOST_TEST(empty.status == 200);
  BOOST_TEST(empty.body.empty());
  BOOST_TEST(*empty.header("content-length") == "0");
}

BOOST_AUTO_TEST_CASE(a_stream_that_fails_first_answers_its_error_and_later_cuts_the_body_short) {
  Streams streams;
  HttpServer server(local(), std::ref(streams));
  TestClient client(server.port());
  auto failed = client.request("GET", "/fail-first");
  BOOST_TEST(failed.status == 404);
  BOOST_TEST(failed.body == R"({"error_code":404,"message":"Stage x not found in task c-0"})");
  TestClient later(server.port());
  BOOST_REQUIRE(later.send_raw("GET /fail-later HTTP/1.1\r\nHost: x\r\n\r\n"));
  BOOST_TEST(later.read_head().status == 200);
  std::string body;
  BOOST_TEST(!later.read_chunks([&](const std::string& data) {
    body += data;
    return true;
  }));
  BOOST_TEST(body == "one\n");
  BOOST_TEST(later.closed_by_server());
}

BOOST_AUTO_TEST_CASE(http_1_0_gets_a_streamed_answer_whole) {
  Streams streams;
  streams.release = true;
  HttpServer server(local(), std::ref(streams));
  TestClient client(server.port());
  BOOST_REQUIRE(client.send_raw("GET /two HTTP/1.0\r\n\r\n"));
  auto response = client.read_response();
  BOOST_TEST(response.status == 200);
  BOOST_TEST(response.header("transfer-encoding") == nullptr);
  BOOST_TEST(response.body == "first\nsecond\n");
}

BOOST_AUTO_TEST_CASE(a_stream_sees_its_client_go) {
  Streams streams;
  HttpServer server(local(), std::ref(streams));
  {
    TestClient client(server.port());
    BOOST_REQUIRE(client.send_raw("GET /until-gone HTTP/1.1\r\nHost: x\r\n\r\n"));
    BOOST_TEST(client.read_head().status == 200);
  } // the client closes its connection
  // Seen while the server runs (a stopping server also counts as gone).
  for (int i = 0; i < 500 && !streams.ended; ++i) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  BOOST_TEST(streams.ended);
  BOOST_TEST(streams.saw_gone);
  BOOST_TEST(streams.write_refused);
}

BOOST_AUTO_TEST_CASE(bind_failure_throws) {
  HttpServer first(local(), echo);
  HttpServerOptions taken;
  taken.listener = "http://127.0.0.1:" + std::to_string(first.port());
  BOOST_CHECK_THROW(HttpServer(taken, echo), std::system_error);
}

BOOST_AUTO_TEST_SUITE_END()
