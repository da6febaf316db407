#include "connectors/jdbc/postgres_url.hpp"

#include <boost/test/unit_test.hpp>

#include "weir/config.hpp"

using namespace weir;
using namespace weir::connectors::jdbc;

namespace {

// The ConfigError message of parsing `url`, or "" when it parses.
std::string error_of(std::string_view url) {
  try {
    parse_postgres_url(url);
  } catch (const ConfigError& e) {
    BOOST_TEST(e.key() == "connection.url");
    return e.what();
  }
  return "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_postgres_url)

BOOST_AUTO_TEST_CASE(host_port_and_database) {
  auto c = parse_postgres_url("jdbc:postgresql://db.internal:6543/analytics");
  BOOST_TEST(c.get("host") == "db.internal");
  BOOST_TEST(c.get("port") == "6543");
  BOOST_TEST(c.get("dbname") == "analytics");
  BOOST_TEST(c.describe() == "host=db.internal port=6543 dbname=analytics");
}

BOOST_AUTO_TEST_CASE(defaults_as_pgjdbc) {
  auto c = parse_postgres_url("jdbc:postgresql://db/");
  BOOST_TEST(c.get("port") == "5432");
  BOOST_TEST(c.get("dbname").empty());
  auto local = parse_postgres_url("jdbc:postgresql:analytics");
  BOOST_TEST(local.get("host") == "localhost");
  BOOST_TEST(local.get("port") == "5432");
  BOOST_TEST(local.get("dbname") == "analytics");
  BOOST_TEST(parse_postgres_url("jdbc:postgresql:///x").get("host") == "localhost");
}

BOOST_AUTO_TEST_CASE(several_hosts_and_target_server_type) {
  auto c = parse_postgres_url("jdbc:postgresql://h1:5432,h2,[::1]:5433/db?targetServerType=primary");
  BOOST_TEST(c.get("host") == "h1,h2,::1");
  BOOST_TEST(c.get("port") == "5432,5432,5433");
  BOOST_TEST(c.get("target_session_attrs") == "read-write");
  BOOST_TEST(parse_postgres_url("jdbc:postgresql://h/db?targetServerType=preferSecondary").get(
                 "target_session_attrs") == "prefer-standby");
  BOOST_TEST(error_of("jdbc:postgresql://h/db?targetServerType=leader").find("targetServerType") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(parameters_become_libpq_keywords) {
  auto c = parse_postgres_url(
      "jdbc:postgresql://h/db?user=u&password=p%40ss&sslmode=verify-full&sslrootcert=/etc/ca.pem"
      "&connectTimeout=7&ApplicationName=my+app&currentSchema=my%20schema&prepareThreshold=5&madeUp=1");
  BOOST_TEST(c.get("user") == "u");
  BOOST_TEST(c.get("password") == "p@ss");
  BOOST_TEST(c.get("sslmode") == "verify-full");
  BOOST_TEST(c.get("sslrootcert") == "/etc/ca.pem");
  BOOST_TEST(c.get("connect_timeout") == "7");
  BOOST_TEST(c.get("application_name") == "my app");
  BOOST_TEST(c.get("options") == "-c search_path=my\\ schema");
  // Unknown and PgJDBC-only parameters are ignored, as PgJDBC ignores unknown ones.
  BOOST_TEST(c.ignored == (std::vector<std::string>{"prepareThreshold", "madeUp"}), boost::test_tools::per_element());
  BOOST_TEST(c.describe().find("p@ss") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(connection_user_and_password_win) {
  auto c = parse_postgres_url("jdbc:postgresql://h/db?user=u&password=p", "weir", "secret");
  BOOST_TEST(c.get("user") == "weir");
  BOOST_TEST(c.get("password") == "secret");
  auto kept = parse_postgres_url("jdbc:postgresql://h/db?user=u&password=p", "", "");
  BOOST_TEST(kept.get("user") == "u");
  BOOST_TEST(kept.get("password") == "p");
}

BOOST_AUTO_TEST_CASE(malformed_urls_name_the_key_never_the_password) {
  BOOST_TEST(error_of("jdbc:postgresql://h:99999/db").find("bad port '99999'") != std::string::npos);
  BOOST_TEST(error_of("jdbc:postgresql://h:x/db").find("bad port") != std::string::npos);
  BOOST_TEST(error_of("jdbc:postgresql://h1,,h2/db").find("empty host") != std::string::npos);
  BOOST_TEST(error_of("jdbc:postgresql://[::1/db").find("IPv6") != std::string::npos);
  BOOST_TEST(error_of("jdbc:mysql://h/db").find("jdbc:postgresql:") != std::string::npos);
  auto bad_escape = error_of("jdbc:postgresql://h/db?password=s3cr%zz");
  BOOST_TEST(bad_escape.find("percent escape in parameter password") != std::string::npos);
  BOOST_TEST(bad_escape.find("s3cr") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
