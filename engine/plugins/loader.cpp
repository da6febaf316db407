#include "engine/plugins/loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "engine/connector_registry.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/plugins/sink_adapter.hpp"
#include "engine/plugins/source_adapter.hpp"
#include "runtime/convert/plugin_converter.hpp"
#include "transforms/plugin_components.hpp"
#include "transforms/transform_registry.hpp"

namespace weir::engine::plugins {

namespace {

namespace fs = std::filesystem;

/// The key that bounds an async sink's batches in flight (what its task grants as
/// credit), unless the plugin declared it itself.
void define_in_flight(ConfigDef& def, int default_batches) {
  if (def.find(in_flight_key))
    return;
  def.define(std::string{in_flight_key}, ConfigType::Int, std::to_string(default_batches), Importance::Medium,
             "Batches the sink may have written but not completed at once; the task's "
             "memory grows with it.",
             validators::range(1, 1024));
}

/// A plugin's sink as a connector registry entry. The entry's functions share `sink`.
SinkPlugin sink_entry(std::shared_ptr<const LoadedSink> sink) {
  const auto& d = sink->descriptor;
  return {
    .class_name = d.class_name,
    .aliases = d.aliases,
    .version = d.version,
    .definition = [sink]() -> const ConfigDef& { return sink->definition; },
    .validate = [sink](const StringMap& config) {
      return sink->definition.validate(config, pipeline::plugin_passthrough());
    },
    .make_writer = [sink](const StringMap& config, const std::string& connector, int task) {
      return make_sink_writer(*sink, config, connector, task);
    },
    .path = sink->path,
  };
}

/// A plugin's source as a connector registry entry: its SourceConnector makes the
/// task configs, each the connector's config plus the task's own keys.
SourcePlugin source_entry(std::shared_ptr<const LoadedSource> source) {
  const auto& d = source->descriptor;
  auto task_configs = [source](const StringMap& config, int max_tasks) {
    auto parsed = source->definition.parse(config, pipeline::source_plugin_passthrough());
    auto connector = source->descriptor.make_connector();
    if (!connector)
      throw std::runtime_error("source " + source->descriptor.class_name + " (" + source->path
                               + "): its connector factory returned no SourceConnector");
    auto own = connector->task_configs(parsed, max_tasks);
    if (own.empty() || own.size() > static_cast<size_t>(std::max(1, max_tasks)))
      throw std::runtime_error("source " + source->descriptor.class_name + " returned "
                               + std::to_string(own.size()) + " task configs for tasks.max="
                               + std::to_string(max_tasks) + " (it must return 1 to tasks.max)");
    std::vector<StringMap> out;
    out.reserve(own.size());
    for (auto& task : own) {
      StringMap merged = config;
      for (auto& [key, value] : task)
        merged[key] = std::move(value);
      out.push_back(std::move(merged));
    }
    return out;
  };
  return {
    .class_name = d.class_name,
    .aliases = d.aliases,
    .version = d.version,
    .definition = [source]() -> const ConfigDef& { return source->definition; },
    .validate = [source](const StringMap& config) {
      return source->definition.validate(config, pipeline::source_plugin_passthrough());
    },
    .task_configs = task_configs,
    .make_task = [source](const StringMap& config, const std::string& connector, int task)
      -> std::unique_ptr<connector_api::SourceTask> {
      return std::make_unique<SourceAdapter>(*source, config, connector, task);
    },
    .exactly_once = d.exactly_once == ExactlyOnce::Supported,
    .path = source->path,
  };
}

/// The plugin's own ConfigDef, or a PluginError naming the class.
ConfigDef definition_of(const std::string& path, const std::string& class_name,
                        const std::function<void(ConfigDef&)>& define) {
  ConfigDef def;
  try {
    define(def);
  } catch (const std::exception& e) {
    throw PluginError("plugin " + path + ": the config definition of " + class_name + " failed: " + e.what());
  }
  return def;
}

/// The registry entry `make()` builds for a plugin's component, or a PluginError.
template <class Descriptor, class Make>
auto component(const std::string& path, const Descriptor& d, std::string_view kind, Make make) {
  try {
    return make();
  } catch (const std::exception& e) {
    throw PluginError("plugin " + path + ": the " + std::string(kind) + " " + d.class_name
                      + " cannot be registered: " + e.what());
  }
}

/// Collects what one plugin registers; checks names as they come.
class Registrar final : public PluginRegistrar {
public:
  explicit Registrar(std::string path, std::string kind = "plugin") : path_(std::move(path)), kind_(std::move(kind)) {}

  void add_sink(SinkDescriptor sink) override {
    if (sink.class_name.empty())
      throw PluginError("plugin " + path_ + " registers a sink with an empty class name");
    if (!sink.make == !sink.make_async || !sink.define)
      throw PluginError("plugin " + path_ + " registers sink " + sink.class_name
                        + " without a config definition or without exactly one factory"
                        + " (make or make_async)");
    if (sink.make_async && sink.max_in_flight < 1)
      throw PluginError("plugin " + path_ + " registers sink " + sink.class_name
                        + " with max_in_flight " + std::to_string(sink.max_in_flight)
                        + " (at least 1)");
    check_connector_names(sink);
    auto def = definition_of(path_, sink.class_name, sink.define);
    if (sink.make_async)
      define_in_flight(def, sink.max_in_flight);
    added_.push_back(LoadedSink{std::move(sink), std::move(def), path_});
  }

  void add_source(SourceDescriptor source) override {
    if (source.class_name.empty())
      throw PluginError("plugin " + path_ + " registers a source with an empty class name");
    if (!source.make_connector || !source.make_task || !source.define)
      throw PluginError("plugin " + path_ + " registers source " + source.class_name
                        + " without its connector or task factory or its config definition");
    check_connector_names(source);
    auto def = definition_of(path_, source.class_name, source.define);
    added_sources_.push_back(LoadedSource{std::move(source), std::move(def), path_, kind_});
  }

  void add_transformation(TransformationDescriptor t) override {
    check_component(t.class_name, t.aliases, "transformation", [](std::string_view n) {
      return transforms::find_transformation(n).has_value();
    });
    transformations_.push_back(component(path_, t, "transformation", [&] {
      return transforms::plugin_transformation(t, path_);
    }));
  }

  void add_predicate(PredicateDescriptor p) override {
    check_component(p.class_name, p.aliases, "predicate", [](std::string_view n) {
      return transforms::find_predicate(n).has_value();
    });
    predicates_.push_back(component(path_, p, "predicate", [&] { return transforms::plugin_predicate(p, path_); }));
  }

  void add_converter(ConverterDescriptor c) override {
    check_component(c.class_name, c.aliases, "converter", [](std::string_view n) {
      return runtime::convert::find_converter(n) != nullptr;
    });
    converters_.push_back(component(path_, c, "converter", [&] { return runtime::convert::plugin_converter(c, path_); }));
  }

  void add_header_converter(HeaderConverterDescriptor c) override {
    check_component(c.class_name, c.aliases, "header converter", [](std::string_view n) {
      return runtime::convert::find_header_converter(n) != nullptr;
    });
    header_converters_.push_back(
      component(path_, c, "header converter", [&] { return runtime::convert::plugin_header_converter(c, path_); }));
  }

  size_t count() const {
    return added_.size() + added_sources_.size() + transformations_.size() + predicates_.size() + converters_.size()
           + header_converters_.size();
  }

  /// Keeps what the plugin registered; nothing is kept before every name was checked.
  void commit() {
    // A plugin's classes are logged once each; a built-in's (DatagenConnector) are no news.
    auto say = [&](std::string_view kind, const std::string& name, const std::string& version) {
      if (path_ == builtin_path)
        spdlog::debug("built-in {} {} registered through the plugin SDK", kind, name);
      else
        spdlog::info("loaded {} plugin {} version {} from {}", kind, name, version, path_);
    };
    for (auto& s : added_) {
      say("sink connector", s.descriptor.class_name, s.descriptor.version);
      engine::add_sink(sink_entry(std::make_shared<const LoadedSink>(std::move(s))));
    }
    for (auto& s : added_sources_) {
      say("source connector", s.descriptor.class_name, s.descriptor.version);
      engine::add_source(source_entry(std::make_shared<const LoadedSource>(std::move(s))));
    }
    for (auto& t : transformations_) {
      say("transformation", t.name, t.version);
      transforms::add_transformation(std::move(t));
    }
    for (auto& p : predicates_) {
      say("predicate", p.name, p.version);
      transforms::add_predicate(std::move(p));
    }
    for (auto& c : converters_) {
      say("converter", c.class_name, c.version);
      runtime::convert::add_converter(std::move(c));
    }
    for (auto& c : header_converters_) {
      say("header converter", c.class_name, c.version);
      runtime::convert::add_header_converter(std::move(c));
    }
  }

private:
  /// A transformation's or predicate's names must be new to the worker and to this plugin.
  template <class Taken>
  void check_component(const std::string& class_name, const std::vector<std::string>& aliases,
                       std::string_view kind, Taken taken) {
    if (class_name.empty())
      throw PluginError("plugin " + path_ + " registers a " + std::string(kind) + " with an empty class name");
    std::vector<std::string> names{class_name};
    names.insert(names.end(), aliases.begin(), aliases.end());
    for (const auto& name : names) {
      if (taken(name))
        throw PluginError("plugin " + path_ + " registers " + std::string(kind) + " class " + name
                          + ", which is already taken (a built-in's or another plugin's name)");
      if (std::find(names_.begin(), names_.end(), std::string(kind) + ":" + name) != names_.end())
        throw PluginError("plugin " + path_ + " registers " + std::string(kind) + " class " + name + " twice");
      names_.push_back(std::string(kind) + ":" + name);
    }
  }


  /// A sink's or source's names must be new among every connector (built-in or
  /// plugin, sink or source) and in this plugin.
  template <class Descriptor>
  void check_connector_names(const Descriptor& d) {
    std::vector<std::string> all{d.class_name};
    all.insert(all.end(), d.aliases.begin(), d.aliases.end());
    for (const auto& name : all)
      check_free(name);
  }

  /// Names the plugin file that registered a taken name, or says it is a built-in's.
  void check_free(const std::string& name) {
    const SinkPlugin* sink = find_sink(name);
    const SourcePlugin* source = sink ? nullptr : find_source(name);
    if (sink || source) {
      const std::string& other = sink ? sink->path : source->path;
      throw PluginError("plugin " + path_ + " registers connector class " + name
                        + (other.empty() || other == builtin_path ? ", which is a built-in connector's name"
                                                                  : ", which plugin " + other + " registered already"));
    }
    auto in = [&](const auto& added) {
      return std::any_of(added.begin(), added.end(), [&](const auto& l) {
        const auto& d = l.descriptor;
        return d.class_name == name || std::find(d.aliases.begin(), d.aliases.end(), name) != d.aliases.end();
      });
    };
    if (in(added_) || in(added_sources_))
      throw PluginError("plugin " + path_ + " registers connector class " + name + " twice");
  }

  std::string path_;
  std::string kind_;
  std::vector<LoadedSink> added_;
  std::vector<LoadedSource> added_sources_;
  std::vector<transforms::TransformationInfo> transformations_;
  std::vector<transforms::PredicateInfo> predicates_;
  std::vector<runtime::convert::ConverterInfo> converters_;
  std::vector<runtime::convert::HeaderConverterInfo> header_converters_;
  std::vector<std::string> names_; ///< "kind:name" of this plugin's transformations and predicates
};

/// Runs a registration function on `registrar` and keeps what it registered, or
/// throws PluginError naming `path` and keeps nothing.
template <class Register>
void register_through(Registrar& registrar, const std::string& path, Register&& register_fn) {
  try {
    register_fn(registrar);
  } catch (const PluginError&) {
    throw; // registered code may be referenced by now: never dlclose after this point
  } catch (const std::exception& e) {
    throw PluginError("plugin " + path + ": registration failed: " + e.what());
  } catch (...) {
    throw PluginError("plugin " + path + ": registration threw a non-standard exception");
  }
  if (registrar.count() == 0)
    spdlog::warn("plugin {} registers nothing", path);
  registrar.commit();
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

} // namespace

void load_plugin(const std::string& path) {
  dlerror();
  // RTLD_LOCAL: two plugins may use the same symbol names for their own code.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw PluginError("cannot load plugin " + path + ": " + dl_error());
  auto refuse = [&](const std::string& message) {
    dlclose(handle); // none of its code ran or is referenced yet
    throw PluginError(message);
  };
  dlerror();
  auto version_fn = reinterpret_cast<weir_plugin_sdk_version_fn>(dlsym(handle, "weir_plugin_sdk_version"));
  if (!version_fn)
    refuse("plugin " + path + " has no symbol weir_plugin_sdk_version: not a weir plugin "
           "(a plugin defines its entry points with WEIR_PLUGIN, see weir/plugin.hpp)");
  auto register_fn = reinterpret_cast<weir_plugin_register_fn>(dlsym(handle, "weir_plugin_register"));
  if (!register_fn)
    refuse("plugin " + path + " has no symbol weir_plugin_register: not a weir plugin "
           "(a plugin defines its entry points with WEIR_PLUGIN, see weir/plugin.hpp)");
  int version = version_fn();
  if (version != sdk_version)
    refuse("plugin " + path + " was built against weir SDK version " + std::to_string(version)
           + ", but this weir provides SDK version " + std::to_string(sdk_version)
           + ": rebuild the plugin against SDK version " + std::to_string(sdk_version));

  Registrar registrar{path};
  register_through(registrar, path, [&](PluginRegistrar& r) { register_fn(&r); });
}

void register_builtin(void (*register_fn)(PluginRegistrar&), std::string kind) {
  Registrar registrar{std::string{builtin_path}, std::move(kind)};
  register_through(registrar, std::string{builtin_path}, register_fn);
}

size_t load_plugins(const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  auto add_libraries = [&](const fs::path& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".so" && entry.is_regular_file(ec))
        files.push_back(entry.path().string());
    if (ec)
      throw PluginError("cannot read plugin directory " + dir.string() + ": " + ec.message());
  };
  for (const auto& dir : dirs) {
    if (dir.empty())
      continue;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      // As Kafka Connect does: worker files list the usual places whether or not they
      // exist on this machine.
      spdlog::warn("plugin.path: {} {}; ignoring it", dir,
                   fs::exists(dir, ec) ? "is not a directory" : "does not exist");
      continue;
    }
    add_libraries(dir);
    std::set<fs::path> subdirs; // sorted: the load order does not depend on the file system
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_directory(ec))
        subdirs.insert(entry.path());
    for (const auto& sub : subdirs)
      add_libraries(sub);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (const auto& f : files)
    load_plugin(f);
  return files.size();
}

} // namespace weir::engine::plugins
