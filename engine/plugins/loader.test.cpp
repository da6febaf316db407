// The plugin loader and the Sink adapter (issue 9), with the test plugins of
// tests/plugins/ (paths from the environment, set by tests/plugins/meson.build):
// a plugin built against another SDK version is refused naming both versions; a
// library without entry points is refused naming the symbol and the file; a loaded
// sink is listed and found like a built-in and writes through the pipeline's
// SinkWriter interface, its rejected records becoming TASK_PUT record errors.
#include "engine/plugins/loader.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "connectors/datagen/datagen.hpp"
#include "engine/connector_registry.hpp"
#include "engine/plugins/loader.hpp"
#include "runtime/convert/converter.hpp"

using namespace weir;

namespace {

std::string env_path(const char* name) {
  const char* p = std::getenv(name);
  BOOST_REQUIRE_MESSAGE(p && *p, name << " is not set (tests/plugins/meson.build sets it)");
  return p;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const weir::engine::plugins::PluginError& e) {
    return e.what();
  }
  BOOST_FAIL("no PluginError was thrown");
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A temporary directory, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/weir-plugins-test-XXXXXX";
    BOOST_REQUIRE(::mkdtemp(tmpl));
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

} // namespace

BOOST_AUTO_TEST_SUITE(plugin_loader)

BOOST_AUTO_TEST_CASE(another_sdk_version_is_refused_naming_both_versions) {
  auto path = env_path("WEIR_FUTURE_SDK_SINK");
  auto message = error_of([&] { weir::engine::plugins::load_plugin(path); });
  BOOST_TEST_MESSAGE(message);
  auto theirs = "SDK version " + std::to_string(WEIR_SDK_VERSION + 1);
  auto ours = "SDK version " + std::to_string(WEIR_SDK_VERSION);
  BOOST_TEST(contains(message, path), message);
  BOOST_TEST(contains(message, "built against weir " + theirs), message);
  BOOST_TEST(contains(message, "this weir provides " + ours), message);
  BOOST_TEST(!contains(message, "registration"), "its register function ran: " << message);
}

BOOST_AUTO_TEST_CASE(a_source_plugin_of_another_sdk_version_is_refused_before_it_registers) {
  // Its registration would clash with the built-in FileStreamSource.
  auto path = env_path("WEIR_FUTURE_SDK_SOURCE");
  auto message = error_of([&] { weir::engine::plugins::load_plugin(path); });
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(contains(message, path), message);
  BOOST_TEST(contains(message, "built against weir SDK version " + std::to_string(WEIR_SDK_VERSION + 1)), message);
  BOOST_TEST(contains(message, "this weir provides SDK version " + std::to_string(WEIR_SDK_VERSION)), message);
  BOOST_TEST(!contains(message, "FileStreamSource"), "its register function ran: " << message);
}

BOOST_AUTO_TEST_CASE(a_library_without_entry_points_is_refused_naming_the_symbol_and_file) {
  auto path = env_path("WEIR_NO_ENTRY_POINT");
  auto message = error_of([&] { weir::engine::plugins::load_plugin(path); });
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(contains(message, path), message);
  BOOST_TEST(contains(message, "no symbol weir_plugin_sdk_version"), message);
}

BOOST_AUTO_TEST_CASE(a_file_that_is_no_library_is_named) {
  TempDir dir;
  auto fake = dir.path / "broken.so";
  std::ofstream(fake) << "not an ELF file\n";
  auto message = error_of([&] { engine::plugins::load_plugins({dir.path.string()}); });
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(contains(message, "cannot load plugin " + fake.string()), message);
}

BOOST_AUTO_TEST_CASE(a_built_in_registered_through_the_sdk_is_checked_and_named_as_a_plugin_is) {
  // DatagenConnector is registered through the same registrar: its names are taken,
  // and the error says by whom.
  BOOST_REQUIRE(engine::find_source("DatagenConnector") != nullptr);
  auto message = error_of([] {
    engine::plugins::register_builtin([](PluginRegistrar& r) { connectors::datagen::register_datagen(r); },
                                      "datagen");
  });
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(contains(message, "connector class io.confluent.kafka.connect.datagen.DatagenConnector, which is a "
                               "built-in connector's name"),
             message);
  message = error_of([] {
    engine::plugins::register_builtin(
      [](PluginRegistrar& r) {
        r.add_source(SourceDescriptor{"com.example.Nameless", {}, "1", nullptr, nullptr, nullptr});
      },
      "example");
  });
  BOOST_TEST(contains(message, "without its connector or task factory"), message);
  BOOST_TEST(engine::find_source("com.example.Nameless") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_missing_directory_or_a_file_in_plugin_path_is_skipped_with_a_warning) {
  // Worker files list the usual plugin places whether or not they exist here
  // (Kafka Connect warns and goes on).
  TempDir dir;
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
    "captured", std::make_shared<spdlog::sinks::ostream_sink_st>(log)));
  auto missing = (dir.path / "absent").string();
  auto file = dir.path / "notes.txt";
  std::ofstream(file) << "a file, not a folder\n";
  size_t loaded = 99;
  std::string error;
  try {
    loaded = engine::plugins::load_plugins({missing, file.string(), dir.path.string()});
  } catch (const std::exception& e) {
    error = e.what();
  }
  spdlog::set_default_logger(previous);
  BOOST_TEST(error.empty(), error);
  BOOST_TEST(loaded == 0u);
  BOOST_TEST(contains(log.str(), "plugin.path: " + missing + " does not exist; ignoring it"), log.str());
  BOOST_TEST(contains(log.str(), "plugin.path: " + file.string() + " is not a directory; ignoring it"), log.str());
}

BOOST_AUTO_TEST_CASE(a_loaded_sink_is_listed_and_found_like_a_built_in) {
  TempDir dir;
  // Kafka Connect's layout: one folder per plugin under a plugin.path directory.
  std::filesystem::create_directories(dir.path / "throwing");
  std::filesystem::copy_file(env_path("WEIR_THROWING_SINK"), dir.path / "throwing" / "libthrowing.so");
  std::ofstream(dir.path / "README.txt") << "not a plugin: ignored\n";
  auto before = engine::sink_plugins().size();
  BOOST_TEST(engine::plugins::load_plugins({dir.path.string()}) == 1u);
  BOOST_TEST(engine::sink_plugins().size() == before + 1);

  const auto* by_class = engine::find_sink("org.weir.test.ThrowingSinkConnector");
  const auto* by_alias = engine::find_sink("ThrowingSink");
  BOOST_REQUIRE(by_class);
  BOOST_TEST(by_class == by_alias);
  BOOST_TEST(by_class->version == "0.0.1-test");
  BOOST_TEST(engine::find_sink("FileStreamSink") != nullptr); // built-ins still there
  BOOST_TEST(by_class->definition().find("throw.on") != nullptr);

  // Its config is validated like a built-in's: a missing key and a bad value are named.
  auto issues = by_class->validate({{"throw.kind", "sometimes"}});
  std::string all;
  for (const auto& i : issues)
    for (const auto& e : i.errors)
      all += e + "\n";
  BOOST_TEST(contains(all, "file"), all);
  BOOST_TEST(contains(all, "throw.kind"), all);

  // The same class again (here: the same file from another directory) is refused,
  // naming the plugin that has it.
  TempDir again;
  std::filesystem::copy_file(env_path("WEIR_THROWING_SINK"), again.path / "libcopy.so");
  auto message = error_of([&] { engine::plugins::load_plugins({again.path.string()}); });
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(contains(message, "registered already"), message);
  BOOST_TEST(contains(message, "throwing/libthrowing.so"), message);
  BOOST_TEST(engine::sink_plugins().size() == before + 1);
}

BOOST_AUTO_TEST_CASE(the_adapter_puts_json_text_and_maps_rejected_records_to_record_errors) {
  const auto* sink = engine::find_sink("ThrowingSink");
  BOOST_REQUIRE_MESSAGE(sink, "the previous case loads the plugin");
  TempDir dir;
  auto out = (dir.path / "out.txt").string();
  auto writer = sink->make_writer({{"file", out}, {"topics", "t"}, {"name", "c"}}, "c", 0);

  Batch raw;
  raw.append("t", 0, 10, 1000, "k1", R"({"id":1,"name":"a"})");
  raw.append("t", 0, 11, 1001, "k2", R"("reject me")");
  raw.append("t", 0, 12, 1002, std::nullopt, std::nullopt);
  runtime::convert::RecordCodec codec{
    runtime::convert::make_converter("org.apache.kafka.connect.storage.StringConverter", {}, true),
    runtime::convert::make_converter("org.apache.kafka.connect.json.JsonConverter",
                                     {{"schemas.enable", "false"}}, false)};
  auto batch = codec.decode(std::move(raw));
  writer->write(batch);

  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(text == "{\"id\":1,\"name\":\"a\"}\nnull\n");
  BOOST_TEST(batch[0].live());
  BOOST_TEST(!batch[1].live());
  BOOST_TEST(batch[2].live());
  BOOST_REQUIRE_EQUAL(batch.errors().size(), 1u);
  const auto& e = batch.errors().all()[0];
  BOOST_TEST(e.index == 1u);
  BOOST_TEST(runtime::data::to_string(e.stage) == "TASK_PUT");
  BOOST_TEST(e.class_name == "org.weir.test.ThrowingSinkConnector");
  BOOST_TEST(contains(e.message, "rejected by ThrowingSink"), e.message);

  // A throw from put() reaches the pipeline as a std::exception with its message,
  // and so does one that is not a std::exception, naming the sink.
  auto failure = [&](runtime::connector_api::SinkWriter& w, int64_t offset) -> std::string {
    Batch poison;
    poison.append("t", 1, offset, 1000, "k", R"("poison")");
    auto poisoned = codec.decode(std::move(poison));
    try {
      w.write(poisoned);
    } catch (const std::exception& ex) {
      return ex.what();
    }
    BOOST_FAIL("put() threw, write() did not");
    return {};
  };
  auto message = failure(*writer, 5);
  BOOST_TEST(contains(message, "refuses offset 5"), message);
  auto other = sink->make_writer({{"file", out}, {"throw.kind", "other"}}, "c", 1);
  message = failure(*other, 6);
  BOOST_TEST(contains(message, "non-standard exception from put()"), message);
  BOOST_TEST(contains(message, "org.weir.test.ThrowingSinkConnector"), message);
}

BOOST_AUTO_TEST_SUITE_END()
