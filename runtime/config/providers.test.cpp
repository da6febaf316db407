#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/config/providers.hpp"
#include "weir/config.hpp"

using weir::runtime::resolve_providers;
using Raw = std::map<std::string, std::string>;

namespace {

// A properties file that lives for one test.
struct TempFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("weir-secrets-" + std::to_string(::getpid()) + ".properties");
  explicit TempFile(const std::string& text) { std::ofstream(path) << text; }
  ~TempFile() { std::filesystem::remove(path); }
};

std::string failure(const Raw& raw, std::string* key = nullptr) {
  try {
    resolve_providers(raw);
  } catch (const weir::ConfigError& e) {
    if (key) *key = e.key();
    return e.what();
  }
  return "(no error)";
}

} // namespace

BOOST_AUTO_TEST_SUITE(providers)

BOOST_AUTO_TEST_CASE(env_and_file_references) {
  ::setenv("WEIR_TEST_USER", "alice", 1);
  ::setenv("WEIR_TEST_EMPTY", "", 1);
  TempFile secrets("db.password=s3cret\nurl.host = db.internal\n");
  const std::string file = secrets.path.string();
  auto resolved = resolve_providers({
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

BOOST_AUTO_TEST_CASE(replacements_are_not_rescanned) {
  ::setenv("WEIR_TEST_NESTED", "${env:HOME}", 1);
  BOOST_TEST(resolve_providers({{"k", "${env:WEIR_TEST_NESTED}"}}).values.at("k") == "${env:HOME}");
}

BOOST_AUTO_TEST_CASE(errors_name_the_key_and_what_is_missing) {
  ::unsetenv("WEIR_TEST_UNSET");
  TempFile secrets("present=1\n");
  const std::string file = secrets.path.string();
  const std::string missing_file = file + ".missing";
  struct Case {
    std::string value;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"${env:WEIR_TEST_UNSET}",
       "Configuration \"connection.password\": environment variable WEIR_TEST_UNSET is not set"},
      {"x ${vault:secret/db:pw} y",
       "Configuration \"connection.password\": unknown config provider \"vault\" in "
       "${vault:secret/db:pw} (built-in providers: env, file)"},
      {"${file:" + file + ":absent}",
       "Configuration \"connection.password\": key \"absent\" not found in file " + file},
      {"${file:" + missing_file + ":k}",
       "Configuration \"connection.password\": Cannot read config file " + missing_file +
           ": No such file or directory"},
      {"${file:present}",
       "Configuration \"connection.password\": the file provider needs a path, as in "
       "${file:PATH:KEY}, in ${file:present}"},
      {"${env:a:b}", "Configuration \"connection.password\": the env provider takes no path, in ${env:a:b}"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.value) {
      std::string key;
      BOOST_TEST(failure({{"connection.password", c.value}}, &key) == c.message);
      BOOST_TEST(key == "connection.password");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
