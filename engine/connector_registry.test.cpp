#include "engine/connector_registry.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::engine;

BOOST_AUTO_TEST_SUITE(source_registry)

BOOST_AUTO_TEST_CASE(full_class_names_and_aliases_resolve) {
  for (auto name : {"org.apache.kafka.connect.file.FileStreamSourceConnector", "FileStreamSource",
                    "io.confluent.kafka.connect.datagen.DatagenConnector", "DatagenConnector",
                    "io.confluent.connect.jdbc.JdbcSourceConnector", "JdbcSourceConnector",
                    "io.debezium.connector.postgresql.PostgresConnector", "PostgresConnector"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto* p = find_source(name);
      BOOST_REQUIRE(p);
      BOOST_TEST(find_sink(name) == nullptr); // sources and sinks never share a name
    }
  }
  BOOST_TEST(find_source("FileStreamSink") == nullptr);
  BOOST_TEST(find_source("NoSuchConnector") == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
