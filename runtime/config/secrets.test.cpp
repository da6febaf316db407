#include <boost/test/unit_test.hpp>

#include "runtime/config/secrets.hpp"

using weir::runtime::hide_values;
using weir::runtime::is_secret_name;
using weir::runtime::only_references;
using weir::runtime::redact_credentials;

BOOST_AUTO_TEST_SUITE(secrets)

BOOST_AUTO_TEST_CASE(secret_names) {
  for (const char* key : {"password", "connection.password", "ssl.key.password", "sasl.password",
                          "consumer.override.sasl.jaas.config", "sasl.jaas.config",
                          "sasl.oauthbearer.client.secret", "producer.sasl.oauthbearer.client.credentials.client.secret",
                          "ssl.keystore.key", "admin.ssl.key.pem", "rest.auth.token", "cluster.secret",
                          "pg.sslpassword", "Connection.PASSWORD", "pwd"})
    BOOST_TEST_CONTEXT(key) { BOOST_TEST(is_secret_name(key)); }
  for (const char* key : {"connection.url", "connection.user", "ssl.key.location", "password.file.path",
                          "sasl.oauthbearer.token.endpoint.url", "topics", "secretive.flag", "sasl.jaas.config.x"})
    BOOST_TEST_CONTEXT(key) { BOOST_TEST(!is_secret_name(key)); }
}

BOOST_AUTO_TEST_CASE(references_only) {
  BOOST_TEST(only_references("${env:DB_PASS}"));
  BOOST_TEST(only_references("${file:/etc/a.properties:user}${file:/etc/a.properties:pw}"));
  BOOST_TEST(!only_references("x${env:DB_PASS}"));
  BOOST_TEST(!only_references("${topic}"));
  BOOST_TEST(!only_references("${env:A"));
  BOOST_TEST(!only_references(""));
}

BOOST_AUTO_TEST_CASE(credentials_in_urls_and_connection_strings) {
  struct Case {
    std::string in, out;
  };
  const std::vector<Case> cases = {
      {"jdbc:postgresql://alice:s3cret@db:5432/app", "jdbc:postgresql://alice:[hidden]@db:5432/app"},
      {"postgres://alice:p@ss/w:rd@db/app?sslmode=require", "postgres://alice:[hidden]@db/app?sslmode=require"},
      {"jdbc:postgresql://db/app?user=alice&password=s3cret&ssl=true",
       "jdbc:postgresql://db/app?user=alice&password=[hidden]&ssl=true"},
      {"jdbc:sqlserver://db;user=alice;Password=s3cret;db=x", "jdbc:sqlserver://db;user=alice;Password=[hidden];db=x"},
      {"host=db user=alice password='a b\\' c' dbname=app", "host=db user=alice password=[hidden] dbname=app"},
      {"password=s3cret", "password=[hidden]"},
      {"x?sslpassword=k&pwd=p", "x?sslpassword=[hidden]&pwd=[hidden]"},
      {"jdbc:postgresql://alice:${env:PW}@db/app?password=${file:/s.properties:pw}",
       "jdbc:postgresql://alice:${env:PW}@db/app?password=${file:/s.properties:pw}"},
      {"connect to postgresql://alice:s3cret@db:5432/app failed: timeout",
       "connect to postgresql://alice:[hidden]@db:5432/app failed: timeout"},
      {"http://host:8083/connectors", "http://host:8083/connectors"},
      {"jdbc:sqlite:/tmp/x.db", "jdbc:sqlite:/tmp/x.db"},
      {"alice@db and user:name", "alice@db and user:name"},
      {"mypassword=x", "mypassword=[hidden]"},
      {"nopassword", "nopassword"},
  };
  for (const auto& c : cases)
    BOOST_TEST_CONTEXT(c.in) { BOOST_TEST(redact_credentials(c.in) == c.out); }
}

BOOST_AUTO_TEST_CASE(values_and_pieces_of_them_are_hidden) {
  const std::vector<std::pair<std::string, std::string>> replacements{
      {"http://s3cret-host-name:1", "${file:/s/w.properties:l}"}, {"abc", "${env:SHORT}"}};
  const std::vector<std::string> secrets{"http://s3cret-host-name:1", "abc"};
  BOOST_TEST(hide_values("cannot listen on http://s3cret-host-name:1: cannot resolve s3cret-host-name: abc",
                         replacements, secrets) ==
             "cannot listen on ${file:/s/w.properties:l}: cannot resolve [hidden] abc"); // ":" is in the value too
  // A reference that shares pieces with a value (a path) is not taken for a leak.
  BOOST_TEST(hide_values("open /srv/secrets/out.txt", {{"/srv/secrets/out.txt", "${file:/srv/secrets/p:f}"}},
                         {"/srv/secrets/out.txt"}) == "open ${file:/srv/secrets/p:f}");
  BOOST_TEST(hide_values("nothing here", {}, {"a-long-secret"}) == "nothing here");
}

BOOST_AUTO_TEST_SUITE_END()
