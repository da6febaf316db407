#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/config/providers.hpp"
#include "weir/config.hpp"

using weir::runtime::ConfigProviders;
using Raw = std::map<std::string, std::string>;
namespace fs = std::filesystem;

namespace {

// A directory that lives for one test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("weir-providers-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path / "secrets"); }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

const std::string file_class = "org.apache.kafka.common.config.provider.FileConfigProvider";
const std::string env_class = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

ConfigProviders file_and_env(Raw extra = {}) {
  Raw worker{{"config.providers", "file, env"},
             {"config.providers.file.class", file_class},
             {"config.providers.env.class", env_class}};
  worker.merge(extra);
  return ConfigProviders::from_config(worker);
}

template <class F>
std::string failure(F&& f, std::string* key = nullptr) {
  try {
    f();
  } catch (const weir::ConfigError& e) {
    if (key) *key = e.key();
    return e.what();
  }
  return "(no error)";
}

} // namespace

BOOST_AUTO_TEST_SUITE(providers)

// The hole of issue 20: without config.providers nothing resolves, whoever sends it.
BOOST_AUTO_TEST_CASE(without_config_providers_references_stay_as_written) {
  ::setenv("WEIR_TEST_USER", "alice", 1);
  const Raw raw{{"connection.url", "${file:/etc/passwd:root}"},
                {"connection.user", "${env:WEIR_TEST_USER}"},
                {"other", "${file:/etc/hostname:x}-${topic}"}};
  for (const auto& providers : {ConfigProviders{}, ConfigProviders::from_config({{"bootstrap.servers", "x"}})}) {
    auto resolved = providers.resolve(raw);
    BOOST_TEST((resolved.values == raw));
    BOOST_TEST(resolved.secret_keys.empty());
  }
}

BOOST_AUTO_TEST_CASE(env_and_file_references) {
  ::setenv("WEIR_TEST_USER", "alice", 1);
  ::setenv("WEIR_TEST_EMPTY", "", 1);
  TempDir dir;
  const std::string file = dir.write("secrets/db.properties", "db.password=s3cret\nurl.host = db.internal\n");
  auto resolved = file_and_env().resolve({
      {"connection.user", "${env:WEIR_TEST_USER}"},
      {"connection.password", "${file:" + file + ":db.password}"},
      {"connection.url", "jdbc:postgresql://${file:" + file + ":url.host}:5432/${env:WEIR_TEST_USER}?x"},
      {"empty", "[${env:WEIR_TEST_EMPTY}]"},
      {"topic.format", "${topic}-${timestamp}"},
      {"unterminated", "${env:WEIR_TEST_USER"},
      {"plain", "$ {not} $"},
  });
  BOOST_TEST((resolved.values == Raw{
      {"connection.user", "alice"},
      {"connection.password", "s3cret"},
      {"connection.url", "jdbc:postgresql://db.internal:5432/alice?x"},
      {"empty", "[]"},
      {"topic.format", "${topic}-${timestamp}"},
      {"unterminated", "${env:WEIR_TEST_USER"},
      {"plain", "$ {not} $"},
  }));
  BOOST_TEST((resolved.secret_keys ==
              std::set<std::string>{"connection.user", "connection.password", "connection.url", "empty"}));
}

BOOST_AUTO_TEST_CASE(a_provider_is_known_by_the_name_the_worker_gives_it) {
  TempDir dir;
  const std::string file = dir.write("secrets/db.properties", "pw=s3cret\n");
  auto providers = ConfigProviders::from_config({{"config.providers", "vault"},
                                                 {"config.providers.vault.class", "FileConfigProvider"}});
  auto resolved = providers.resolve({{"a", "${vault:" + file + ":pw}"}, {"b", "${file:" + file + ":pw}"}});
  BOOST_TEST(resolved.values.at("a") == "s3cret");
  BOOST_TEST(resolved.values.at("b") == "${file:" + file + ":pw}");
}

BOOST_AUTO_TEST_CASE(replacements_are_not_rescanned) {
  ::setenv("WEIR_TEST_NESTED", "${env:HOME}", 1);
  BOOST_TEST(file_and_env().resolve({{"k", "${env:WEIR_TEST_NESTED}"}}).values.at("k") == "${env:HOME}");
}

// Kafka's ConfigTransformer keeps a reference nothing answers as literal text.
BOOST_AUTO_TEST_CASE(unresolvable_references_stay_as_written) {
  ::unsetenv("WEIR_TEST_UNSET");
  ::setenv("WEIR_TEST_PRIVATE", "hidden-value", 1);
  ::setenv("DB_PASS", "allowed-value", 1);
  TempDir dir;
  const std::string allowed = dir.write("secrets/db.properties", "present=1\n");
  const std::string outside = dir.write("outside.properties", "present=2\n");
  fs::create_symlink(outside, dir.path / "secrets" / "link.properties");
  const std::string secrets = (dir.path / "secrets").string();
  auto providers = file_and_env({{"config.providers.file.param.allowed.paths", secrets},
                                 {"config.providers.env.param.allowlist.pattern", "^DB_"}});
  const std::vector<std::string> kept = {
      "${env:WEIR_TEST_UNSET}",                             // unset
      "${env:WEIR_TEST_PRIVATE}",                           // not allowed by the pattern
      "${vault:secret/db:pw}",                              // no such provider
      "${file:" + allowed + ":absent}",                     // no such key
      "${file:present}",                                    // no path
      "${file:" + outside + ":present}",                    // outside allowed.paths
      "${file:" + secrets + "/../outside.properties:present}", // climbs out
      "${file:" + secrets + "/link.properties:present}",    // a link leading out
      "${file:" + secrets + "x/db.properties:present}",     // a sibling sharing the prefix
  };
  for (const auto& value : kept) {
    BOOST_TEST_CONTEXT(value) {
      auto resolved = providers.resolve({{"k", value}});
      BOOST_TEST(resolved.values.at("k") == value);
      BOOST_TEST(resolved.secret_keys.empty());
    }
  }
  BOOST_TEST(providers.resolve({{"k", "${env:DB_PASS}"}}).values.at("k") == "allowed-value");
  BOOST_TEST(providers.resolve({{"k", "${file:" + allowed + ":present}"}}).values.at("k") == "1");
  BOOST_TEST(providers.unlimited_file_providers().empty());
  BOOST_TEST((file_and_env().unlimited_file_providers() == std::vector<std::string>{"file"}));
}

BOOST_AUTO_TEST_CASE(errors_name_the_key_never_a_value) {
  TempDir dir;
  const std::string missing = (dir.path / "secrets" / "missing.properties").string();
  struct Case {
    std::string value;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"${file:" + missing + ":k}",
       "Configuration \"connection.password\": Cannot read config file " + missing +
           ": No such file or directory"},
      {"${env:a:b}", "Configuration \"connection.password\": the path \"a\" is not supported by "
                     "EnvVarConfigProvider (write ${env:NAME})"},
      {"${file:/dev/zero:k}", "Configuration \"connection.password\": /dev/zero is not a regular file, "
                              "which the file config provider reads"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.value) {
      std::string key;
      BOOST_TEST(failure([&] { file_and_env().resolve({{"connection.password", c.value}}); }, &key) == c.message);
      BOOST_TEST(key == "connection.password");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_bad_worker_provider_config_names_its_key) {
  TempDir dir;
  struct Case {
    Raw worker;
    std::string key;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"config.providers", "file"}}, "config.providers.file.class",
       "Missing required configuration \"config.providers.file.class\": config.providers lists \"file\""},
      {{{"config.providers", "dir"}, {"config.providers.dir.class", "DirectoryConfigProvider"}},
       "config.providers.dir.class",
       "Invalid value DirectoryConfigProvider for configuration config.providers.dir.class: weir's config "
       "providers are " + file_class + " and " + env_class},
      {{{"config.providers.file.class", file_class}}, "config.providers.file.class",
       "Configuration \"config.providers.file.class\" is set, but config.providers does not list \"file\""},
      {{{"config.providers", "file"}, {"config.providers.file.class", file_class},
        {"config.providers.file.param.allowed.path", "/tmp"}},
       "config.providers.file.param.allowed.path",
       "Unknown configuration \"config.providers.file.param.allowed.path\": " + file_class +
           " takes only the param allowed.paths"},
      {{{"config.providers", "file"}, {"config.providers.file.class", file_class},
        {"config.providers.file.param.allowed.paths", "secrets"}},
       "config.providers.file.param.allowed.paths",
       "Invalid value secrets for configuration config.providers.file.param.allowed.paths: the path is "
       "not absolute"},
      {{{"config.providers", "file"}, {"config.providers.file.class", file_class},
        {"config.providers.file.param.allowed.paths", (dir.path / "nope").string()}},
       "config.providers.file.param.allowed.paths",
       "Invalid value " + (dir.path / "nope").string() +
           " for configuration config.providers.file.param.allowed.paths: the path does not exist"},
      {{{"config.providers", "env"}, {"config.providers.env.class", env_class},
        {"config.providers.env.param.allowlist.pattern", "(DB"}},
       "config.providers.env.param.allowlist.pattern", ""},
      {{{"config.providers", "env"}, {"config.providers.env.klass", env_class}},
       "config.providers.env.klass",
       "Unknown configuration \"config.providers.env.klass\": expected config.providers.env.class or "
       "config.providers.env.param.NAME"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.key) {
      std::string key;
      auto message = failure([&] { ConfigProviders::from_config(c.worker); }, &key);
      BOOST_TEST(key == c.key);
      if (c.message.empty())
        BOOST_TEST(message.rfind("Invalid value (DB for configuration " + c.key + ": ", 0) == 0);
      else
        BOOST_TEST(message == c.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(scrub_takes_provided_values_out_of_messages) {
  TempDir dir;
  const std::string file = dir.write("secrets/s.properties", "root=x:0:0:root:/root:/bin/bash\nhost=db.internal\n");
  const std::string ref = "${file:" + file + ":root}";
  auto resolved = file_and_env().resolve({{"connection.url", ref},
                                          {"db", "jdbc:postgresql://${file:" + file + ":host}/db"}});
  // The whole value, and a provided piece of a value, read back as written.
  BOOST_TEST(resolved.scrub("Invalid value x:0:0:root:/root:/bin/bash for configuration connection.url") ==
             "Invalid value " + ref + " for configuration connection.url");
  BOOST_TEST(resolved.scrub("cannot reach db.internal") == "cannot reach ${file:" + file + ":host}");
  // A piece of a value, quoted, is hidden; the rest of the message stays.
  BOOST_TEST(resolved.scrub("bad scheme in 'x:0:0:root:/ro'") == "bad scheme in '[hidden]'");
  BOOST_TEST(resolved.scrub("host db.internal: unknown; no 0:root:/root:/bin here") ==
             "host ${file:" + file + ":host}: unknown; no [hidden] here");
  BOOST_TEST(resolved.scrub("nothing secret") == "nothing secret");
  auto error = resolved.scrub(weir::ConfigError("connection.url", "Invalid value x:0:0:root:/root:/bin/bash"));
  BOOST_TEST(error.key() == "connection.url");
  BOOST_TEST(std::string{error.what()} == "Invalid value " + ref);
}

BOOST_AUTO_TEST_SUITE_END()
