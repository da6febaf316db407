#include "connectors/postgres_cdc/cdc_config.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir;
using namespace weir::connectors::postgres_cdc;

namespace {

std::map<std::string, std::string> base() {
  return {{"database.hostname", "127.0.0.1"}, {"database.user", "weir"}, {"database.dbname", "inventory"},
          {"topic.prefix", "inv"}};
}

ConfigDef def() {
  ConfigDef d;
  define_postgres_cdc(d);
  return d;
}

std::string first_error(const std::map<std::string, std::string>& raw) {
  auto issues = def().validate(raw);
  return issues.empty() || issues[0].errors.empty() ? "" : issues[0].errors[0];
}

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_cdc_config)

BOOST_AUTO_TEST_CASE(debeziums_keys_and_defaults) {
  auto c = CdcConfig::from(def().parse(base()));
  BOOST_TEST(c.port == 5432);
  BOOST_TEST(c.slot == "debezium");
  BOOST_TEST(c.publication == "dbz_publication");
  BOOST_TEST((c.publication_mode == PublicationMode::AllTables));
  BOOST_TEST((c.snapshot == SnapshotMode::Initial));
  BOOST_TEST(c.tombstones_on_delete);
  BOOST_TEST(!c.drop_slot_on_stop);
}

BOOST_AUTO_TEST_CASE(the_issue_config_parses) {
  auto raw = base();
  raw.insert({{"database.port", "5432"}, {"database.password", "secret"}, {"plugin.name", "pgoutput"},
              {"slot.name", "weir_inventory"}, {"publication.autocreate.mode", "filtered"},
              {"table.include.list", "public.customers,public.orders"}, {"snapshot.mode", "initial"}});
  auto c = CdcConfig::from(def().parse(raw));
  BOOST_TEST(c.captures("public", "customers"));
  BOOST_TEST(c.captures("PUBLIC", "Orders")); // Debezium matches case-insensitively
  BOOST_TEST(!c.captures("public", "customers_archive")); // anchored
  BOOST_TEST(!c.captures("public", "products"));
  BOOST_TEST((c.publication_mode == PublicationMode::Filtered));
}

BOOST_AUTO_TEST_CASE(exclude_list_wins) {
  auto raw = base();
  raw["table.exclude.list"] = "public\\.audit_.*";
  auto c = CdcConfig::from(def().parse(raw));
  BOOST_TEST(c.captures("public", "orders"));
  BOOST_TEST(!c.captures("public", "audit_log"));
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_key) {
  auto raw = base();
  raw["plugin.name"] = "decoderbufs";
  BOOST_TEST(first_error(raw).find("plugin.name") != std::string::npos);
  BOOST_TEST(first_error(raw).find("pgoutput plugin only") != std::string::npos);
  raw = base();
  raw["snapshot.mode"] = "always";
  BOOST_TEST(first_error(raw).find("snapshot.mode") != std::string::npos);
  raw = base();
  raw["slot.name"] = "Weir-Slot";
  BOOST_TEST(first_error(raw).find("lower-case letters") != std::string::npos);
  raw = base();
  raw["table.include.list"] = "public.(";
  BOOST_CHECK_THROW(CdcConfig::from(def().parse(raw)), ConfigError);
}

BOOST_AUTO_TEST_CASE(unknown_keys_get_a_suggestion) {
  auto raw = base();
  raw["slot.nmae"] = "x";
  BOOST_TEST(first_error(raw) == "Unknown configuration \"slot.nmae\"; did you mean \"slot.name\"?");
}

BOOST_AUTO_TEST_CASE(required_keys) {
  auto raw = base();
  raw.erase("topic.prefix");
  BOOST_TEST(first_error(raw).find("topic.prefix") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(libpq_keywords_never_log_the_password_and_ask_for_utc) {
  auto raw = base();
  raw["database.password"] = "secret";
  auto c = CdcConfig::from(def().parse(raw));
  auto kw = c.keywords(true);
  std::map<std::string, std::string> m(kw.begin(), kw.end());
  BOOST_TEST(m["replication"] == "database");
  BOOST_TEST(m["password"] == "secret");
  BOOST_TEST(m["options"].find("TimeZone=UTC") != std::string::npos);
  BOOST_TEST(c.keywords(false).size() == kw.size() - 1);
}

BOOST_AUTO_TEST_SUITE_END()
