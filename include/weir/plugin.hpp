// How a plugin shared library tells weir what it provides.
//
// A plugin is a shared library (`.so`) in one of the worker's `plugin.path`
// directories (or one level below, a folder per plugin, as Kafka Connect lays them
// out). At start-up weir dlopen()s each one and calls two C functions that
// WEIR_PLUGIN defines:
//
//   int  weir_plugin_sdk_version(void);                 // WEIR_SDK_VERSION it was built with
//   void weir_plugin_register(weir::PluginRegistrar*);  // adds its classes
//
// The version is checked first: a plugin built against another SDK version is
// refused before any of its C++ code runs, with both versions named. A file without
// these symbols is refused with the symbol's name and the file's path. weir does not
// start with a refused plugin in plugin.path: fix or remove it.
//
// Minimal plugin:
//
//   class MySink : public weir::Sink {
//   public:
//     static void define(weir::ConfigDef& def) { def.define("url", ...); }
//     void open(const weir::Config&, const weir::SinkContext&) override;
//     void put(weir::SinkBatch& batch) override;
//   };
//   static void register_plugin(weir::PluginRegistrar& r) {
//     r.add_sink<MySink>("com.example.MySinkConnector", {"MySink"}, "1.0.0");
//   }
//   WEIR_PLUGIN(register_plugin)
//
// A source registers its connector and task classes together (weir/source.hpp):
//
//   r.add_source<MyConnector, MyTask>("com.example.MySourceConnector", {"MySource"}, "1.0.0");
//
// Threading: registration runs once, on weir's main thread, before any connector
// starts. A plugin is never unloaded: objects and functions it hands to weir live as
// long as the process.
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weir/config.hpp"
#include "weir/converter.hpp"
#include "weir/sink.hpp"
#include "weir/source.hpp"
#include "weir/transform.hpp"
#include "weir/version.hpp"

namespace weir {

/// One sink connector class a plugin provides.
struct SinkDescriptor {
  /// Full class name connector configs use (`connector.class`), unique in the worker.
  std::string class_name;
  /// Short names that resolve too (like `FileStreamSink`).
  std::vector<std::string> aliases;
  /// The plugin's own version, listed by `GET /connector-plugins`.
  std::string version;
  /// Declares the connector's own keys (the common ones, `topics`, `errors.*`,
  /// converters, `transforms.*`, are weir's). Called once.
  std::function<void(ConfigDef&)> define;
  /// A new, unopened Sink for one task. Called once per task, possibly from several
  /// threads at once.
  std::function<std::unique_ptr<Sink>()> make;
  /// Instead of `make`, for an asynchronous sink: a new, unopened AsyncSink. Exactly
  /// one of the two is set.
  std::function<std::unique_ptr<AsyncSink>()> make_async = nullptr;
  /// What put() reads: JSON text as well as values (the default), or values only.
  SinkInput input = SinkInput::JsonText;
  /// An async sink's default for `max.in.flight.batches` (the batches put() but not
  /// completed yet, at most), which weir adds to its config keys.
  int max_in_flight = 4;
};

/// A sink class the registrar can describe by itself: a Sink with a default
/// constructor and a static `define(ConfigDef&)`.
template <class T>
concept SinkClass = std::derived_from<T, Sink> && std::default_initializable<T>
                    && requires(ConfigDef& def) { T::define(def); };

/// One source connector class a plugin provides (weir/source.hpp).
struct SourceDescriptor {
  /// Full class name connector configs use (`connector.class`), unique in the worker
  /// among sinks and sources.
  std::string class_name;
  std::vector<std::string> aliases;
  std::string version;
  /// Declares the connector's own keys, task-only keys included (the common ones,
  /// `topic.creation.*`, converters, `transforms.*`, ..., are weir's). Called once.
  std::function<void(ConfigDef&)> define;
  /// A SourceConnector, each time weir computes task configs.
  std::function<std::unique_ptr<SourceConnector>()> make_connector;
  /// A new, unstarted SourceTask. Called once per task, possibly from several threads
  /// at once.
  std::function<std::unique_ptr<SourceTask>()> make_task;
  /// Whether the connector supports exactly-once delivery (see weir/source.hpp).
  ExactlyOnce exactly_once = ExactlyOnce::Unsupported;
};

/// A source connector class the registrar can describe by itself: a SourceConnector
/// with a default constructor and a static `define(ConfigDef&)` ...
template <class T>
concept SourceConnectorClass = std::derived_from<T, SourceConnector> && std::default_initializable<T>
                               && requires(ConfigDef& def) { T::define(def); };
/// ... and its task class, with a default constructor.
template <class T>
concept SourceTaskClass = std::derived_from<T, SourceTask> && std::default_initializable<T>;

/// An asynchronous sink class the registrar can describe by itself, as SinkClass.
template <class T>
concept AsyncSinkClass = std::derived_from<T, AsyncSink> && std::default_initializable<T>
                         && requires(ConfigDef& def) { T::define(def); };

/// A sink class's input: its `static constexpr SinkInput input`, if it has one.
template <class T>
constexpr SinkInput sink_input_of() {
  if constexpr (requires { { T::input } -> std::convertible_to<SinkInput>; })
    return T::input;
  else
    return SinkInput::JsonText;
}

/// What weir_plugin_register() receives. Throwing from registration refuses the
/// plugin with the exception's message.
class PluginRegistrar {
public:
  virtual ~PluginRegistrar() = default;

  /// Adds a sink. A class name or alias that is already taken (by a built-in or
  /// another plugin) refuses the plugin.
  virtual void add_sink(SinkDescriptor sink) = 0;

  template <SinkClass T>
  void add_sink(std::string class_name, std::vector<std::string> aliases, std::string version) {
    SinkDescriptor d{std::move(class_name), std::move(aliases), std::move(version),
                     [](ConfigDef& def) { T::define(def); },
                     [] { return std::unique_ptr<Sink>(new T()); }};
    d.input = sink_input_of<T>();
    add_sink(std::move(d));
  }

  /// Adds an asynchronous sink. Its `static constexpr int max_in_flight`, if any, is
  /// the default of `max.in.flight.batches`.
  template <AsyncSinkClass T>
  void add_sink(std::string class_name, std::vector<std::string> aliases, std::string version) {
    SinkDescriptor d{std::move(class_name), std::move(aliases), std::move(version),
                     [](ConfigDef& def) { T::define(def); }, nullptr};
    d.make_async = [] { return std::unique_ptr<AsyncSink>(new T()); };
    d.input = sink_input_of<T>();
    if constexpr (requires { { T::max_in_flight } -> std::convertible_to<int>; })
      d.max_in_flight = T::max_in_flight;
    add_sink(std::move(d));
  }

  /// Adds a source. Names are checked as for sinks, against every sink and source.
  virtual void add_source(SourceDescriptor source) = 0;

  template <SourceConnectorClass C, SourceTaskClass T>
  void add_source(std::string class_name, std::vector<std::string> aliases, std::string version,
                  ExactlyOnce exactly_once = ExactlyOnce::Unsupported) {
    add_source(SourceDescriptor{std::move(class_name), std::move(aliases), std::move(version),
                                [](ConfigDef& def) { C::define(def); },
                                [] { return std::unique_ptr<SourceConnector>(new C()); },
                                [] { return std::unique_ptr<SourceTask>(new T()); }, exactly_once});
  }

  /// Adds a single message transform (weir/transform.hpp). Names are checked as for
  /// sinks, against built-in and plugin transformations.
  virtual void add_transformation(TransformationDescriptor transformation) = 0;

  template <TransformationClass T>
  void add_transformation(std::string class_name, std::vector<std::string> aliases, std::string version) {
    add_transformation(TransformationDescriptor{
        std::move(class_name), std::move(aliases), std::move(version), [](ConfigDef& def) { T::define(def); },
        [](const Config& config) { return std::unique_ptr<Transformation>(new T(config)); }});
  }

  /// Adds a converter (weir/converter.hpp), usable as `key.converter` /
  /// `value.converter`; names are checked against built-in and plugin converters.
  virtual void add_converter(ConverterDescriptor converter) = 0;

  template <ConverterClass T>
  void add_converter(std::string class_name, std::vector<std::string> aliases, std::string version) {
    add_converter(ConverterDescriptor{
        std::move(class_name), std::move(aliases), std::move(version), [](ConfigDef& def) { T::define(def); },
        [](const Config& config, bool is_key) { return std::unique_ptr<Converter>(new T(config, is_key)); }});
  }

  /// Adds a header converter, usable as `header.converter`.
  virtual void add_header_converter(HeaderConverterDescriptor converter) = 0;

  template <HeaderConverterClass T>
  void add_header_converter(std::string class_name, std::vector<std::string> aliases, std::string version) {
    add_header_converter(HeaderConverterDescriptor{
        std::move(class_name), std::move(aliases), std::move(version), [](ConfigDef& def) { T::define(def); },
        [](const Config& config) { return std::unique_ptr<HeaderConverter>(new T(config)); }});
  }

  /// Adds a predicate, checked against built-in and plugin predicates.
  virtual void add_predicate(PredicateDescriptor predicate) = 0;

  template <PredicateClass T>
  void add_predicate(std::string class_name, std::vector<std::string> aliases, std::string version) {
    add_predicate(PredicateDescriptor{
        std::move(class_name), std::move(aliases), std::move(version), [](ConfigDef& def) { T::define(def); },
        [](const Config& config) { return std::unique_ptr<Predicate>(new T(config)); }});
  }
};

} // namespace weir

extern "C" {
/// The entry points' types, for the loader.
using weir_plugin_sdk_version_fn = int (*)();
using weir_plugin_register_fn = void (*)(weir::PluginRegistrar*);
}

/// Defines the plugin's two entry points; `fn` is `void fn(weir::PluginRegistrar&)`.
/// Use it once per plugin, in one source file.
#define WEIR_PLUGIN(fn)                                                                    \
  extern "C" __attribute__((visibility("default"))) int weir_plugin_sdk_version() {      \
    return WEIR_SDK_VERSION;                                                               \
  }                                                                                        \
  extern "C" __attribute__((visibility("default"))) void weir_plugin_register(           \
    weir::PluginRegistrar* registrar) {                                                    \
    fn(*registrar);                                                                        \
  }
