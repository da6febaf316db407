#include <boost/test/unit_test.hpp>

#include "runtime/rest/router.hpp"

using namespace weir::runtime::rest;

namespace {

HttpRequest make(std::string method, std::string target) {
  HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  return request;
}

// A router whose handlers echo which route matched and its parameters.
Router echo_router() {
  Router router;
  auto echo = [](std::string route) {
    return [route](const RouteRequest& request) {
      std::string body = route;
      for (const auto& [name, value] : request.params) body += " " + name + "=" + value;
      return json_response(200, body);
    };
  };
  router.add("GET", "/connectors", echo("list"));
  router.add("POST", "/connectors", echo("create"));
  router.add("GET", "/connectors/{connector}", echo("info"));
  router.add("DELETE", "/connectors/{connector}", echo("delete"));
  router.add("GET", "/connectors/{connector}/tasks/{task}/status", echo("task"));
  router.add("PUT", "/connectors/{connector}/topics/reset", echo("reset"));
  router.add("PUT", "/connectors/{connector}/{action}/reset", echo("generic"));
  router.add("GET", "/", echo("root"));
  return router;
}

} // namespace

BOOST_AUTO_TEST_SUITE(router)

BOOST_AUTO_TEST_CASE(matches_literals_and_parameters) {
  Router router = echo_router();
  BOOST_TEST(router.dispatch(make("GET", "/connectors")).body == "list");
  BOOST_TEST(router.dispatch(make("POST", "/connectors")).body == "create");
  BOOST_TEST(router.dispatch(make("GET", "/")).body == "root");
  BOOST_TEST(router.dispatch(make("GET", "/connectors/a")).body == "info connector=a");
  BOOST_TEST(router.dispatch(make("GET", "/connectors/a/tasks/3/status")).body ==
             "task connector=a task=3");
  // One trailing slash is ignored, as JAX-RS does.
  BOOST_TEST(router.dispatch(make("GET", "/connectors/")).body == "list");
}

BOOST_AUTO_TEST_CASE(literal_segments_win_over_parameters) {
  Router router = echo_router();
  BOOST_TEST(router.dispatch(make("PUT", "/connectors/a/topics/reset")).body == "reset connector=a");
  BOOST_TEST(router.dispatch(make("PUT", "/connectors/a/other/reset")).body ==
             "generic action=other connector=a");
}

BOOST_AUTO_TEST_CASE(decodes_each_segment_after_splitting) {
  Router router = echo_router();
  BOOST_TEST(router.dispatch(make("GET", "/connectors/my%20conn%2Fx")).body == "info connector=my conn/x");
  BOOST_TEST(router.dispatch(make("GET", "/connectors/a+b")).body == "info connector=a+b");
  HttpResponse bad = router.dispatch(make("GET", "/connectors/bad%zz"));
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body == R"({"error_code":400,"message":"Malformed percent-escape in the request path"})");
}

BOOST_AUTO_TEST_CASE(unknown_paths_are_404_and_other_methods_405) {
  Router router = echo_router();
  HttpResponse missing = router.dispatch(make("GET", "/nope"));
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.body == R"({"error_code":404,"message":"HTTP 404 Not Found"})");
  BOOST_TEST(router.dispatch(make("GET", "/connectors//tasks/1/status")).status == 404);

  HttpResponse wrong = router.dispatch(make("PUT", "/connectors/a"));
  BOOST_TEST(wrong.status == 405);
  BOOST_TEST(wrong.body == R"({"error_code":405,"message":"HTTP 405 Method Not Allowed"})");
  BOOST_REQUIRE(wrong.headers.size() == 1u);
  BOOST_TEST(wrong.headers[0].first == "Allow");
  BOOST_TEST(wrong.headers[0].second == "GET, DELETE");
}

BOOST_AUTO_TEST_CASE(query_parameters_repeat_and_decode) {
  auto query = QueryParams::parse("expand=status&expand=info&name=a+b%21&flag&=x&");
  BOOST_TEST(query.all("expand") == (std::vector<std::string>{"status", "info"}));
  BOOST_TEST(*query.get("name") == "a b!");
  BOOST_TEST(*query.get("flag") == "");
  BOOST_TEST(!query.get("missing"));
  BOOST_CHECK_THROW(QueryParams::parse("a=%4"), RestError);
}

BOOST_AUTO_TEST_CASE(handler_errors_become_kafka_connect_error_bodies) {
  Router router;
  router.add("GET", "/rest", [](const RouteRequest&) -> HttpResponse { throw RestError(409, "taken"); });
  router.add("GET", "/other", [](const RouteRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
  BOOST_TEST(router.dispatch(make("GET", "/rest")).body == R"({"error_code":409,"message":"taken"})");
  HttpResponse other = router.dispatch(make("GET", "/other"));
  BOOST_TEST(other.status == 500);
  BOOST_TEST(other.body == R"({"error_code":500,"message":"boom"})");
}

BOOST_AUTO_TEST_CASE(percent_encoding_round_trips) {
  BOOST_TEST(percent_encode("a b/c~") == "a%20b%2Fc~");
  BOOST_TEST(*percent_decode(percent_encode("x y%z/é"), false) == "x y%z/é");
  BOOST_TEST(!percent_decode("%", false));
  BOOST_TEST(!percent_decode("%a", false));
}

BOOST_AUTO_TEST_SUITE_END()
