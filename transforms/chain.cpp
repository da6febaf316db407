#include "transforms/chain.hpp"

#include <algorithm>

#include "runtime/convert/text.hpp"
#include "transforms/transform_registry.hpp"

namespace weir::transforms {

using namespace runtime::data;
using runtime::convert::invalid_value_message;
using runtime::convert::trim;
using Raw = std::map<std::string, std::string>;

TransformStage::TransformStage(std::string alias, std::string class_name,
                               std::unique_ptr<Transformation> smt,
                               std::unique_ptr<Predicate> predicate, bool negate)
    : alias_(std::move(alias)), class_name_(std::move(class_name)), smt_(std::move(smt)),
      predicate_(std::move(predicate)), negate_(negate) {}

void TransformStage::apply(DecodedBatch& batch, RecordErrors& errors) {
  auto fail = [&](uint32_t i, const std::exception& e) {
    errors.add(i, ErrorStage::Transformation, class_name_, e);
    batch[i].state = RecordState::Failed;
  };
  if (!predicate_) {
    // The SMT loops over the batch itself; a record that throws is marked, and the
    // loop resumes after it.
    for (uint32_t i = 0; i < batch.size(); ++i) {
      try {
        smt_->apply_from(batch, i);
      } catch (const std::exception& e) {
        fail(i, e);
      }
    }
    return;
  }
  for (uint32_t i = 0; i < batch.size(); ++i) {
    auto& rec = batch[i];
    if (!rec.live())
      continue;
    RecordView view(batch, i);
    try {
      if (predicate_->test(view) == negate_)
        continue;
      if (!smt_->apply(view))
        rec.state = RecordState::Dropped;
    } catch (const std::exception& e) {
      fail(i, e);
    }
  }
}

void Chain::apply_all(DecodedBatch& batch) {
  for (auto& s : stages_)
    s->apply(batch);
}

namespace {

const ConfigDef& list_keys_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    define_chain_keys(d);
    return d;
  }();
  return def;
}

// The component's own keys: everything under `prefix` except the chain's own.
Raw own_keys(const Raw& all, const std::string& prefix) {
  Raw out;
  for (auto it = all.lower_bound(prefix); it != all.end() && it->first.starts_with(prefix); ++it) {
    std::string key = it->first.substr(prefix.size());
    if (key == "type" || key == "predicate" || key == "negate")
      continue;
    out.emplace(std::move(key), it->second);
  }
  return out;
}

// Parses a component's config so that every error names the full key the user wrote
// (`transforms.mask.fields`), then parses it again plainly for the component.
Config parse_component(const ConfigDef& def, const Raw& own, const std::string& prefix) {
  ConfigDef prefixed;
  for (auto key : def.keys()) {
    key.name = prefix + key.name;
    prefixed.define(std::move(key));
  }
  Raw as_given;
  for (const auto& [k, v] : own)
    as_given.emplace(prefix + k, v);
  prefixed.parse(as_given);
  return def.parse(own);
}

// Re-throws a component constructor's ConfigError with the full key name.
template <class Make>
auto construct(const std::string& prefix, std::string_view class_name, Make&& make) {
  try {
    return make();
  } catch (const ConfigError& e) {
    if (e.key().empty()) {
      std::string key = prefix.substr(0, prefix.size() - 1);
      throw ConfigError(key, "Invalid configuration for " + key + " (" + std::string(class_name) + "): " + e.what());
    }
    std::string full = prefix + e.key();
    std::string message = e.what();
    std::string from = "configuration " + e.key();
    if (auto pos = message.find(from); pos != std::string::npos)
      message.replace(pos, from.size(), "configuration " + full);
    throw ConfigError(full, message);
  }
}

const std::string& required(const Raw& all, const std::string& key) {
  auto it = all.find(key);
  if (it == all.end() || trim(it->second).empty())
    throw ConfigError(key, "Missing required configuration \"" + key + "\" which has no default value.");
  return it->second;
}

void check_unique(const std::vector<std::string>& aliases, const std::string& key) {
  for (size_t i = 0; i < aliases.size(); ++i)
    if (std::find(aliases.begin(), aliases.begin() + i, aliases[i]) != aliases.begin() + i)
      throw ConfigError(key, invalid_value_message(key, aliases[i], "Duplicate alias provided."));
}

struct PredicateFactory {
  const PredicateInfo* info;
  std::string prefix;
  std::string class_name;
  Config config;
};

} // namespace

Chain Chain::from_config(const Raw& all) {
  Raw lists;
  for (const char* k : {"transforms", "predicates"})
    if (auto it = all.find(k); it != all.end())
      lists.emplace(k, it->second);
  Config list_config = list_keys_def().parse(lists);
  auto transform_aliases = list_config.get_list("transforms");
  auto predicate_aliases = list_config.get_list("predicates");
  check_unique(transform_aliases, "transforms");
  check_unique(predicate_aliases, "predicates");

  std::map<std::string, PredicateFactory> predicate_factories;
  for (const auto& alias : predicate_aliases) {
    std::string prefix = "predicates." + alias + ".";
    const std::string& type = required(all, prefix + "type");
    auto resolved = find_predicate(type);
    if (!resolved)
      throw ConfigError(prefix + "type", invalid_value_message(prefix + "type", type,
                                                               "Class " + std::string(trim(type)) + " could not be found."));
    Config config = parse_component(resolved->info->config_def(), own_keys(all, prefix), prefix);
    // Construct once now, so a bad predicate config fails before anything runs.
    construct(prefix, resolved->class_name, [&] { return resolved->info->make(config); });
    predicate_factories.emplace(alias, PredicateFactory{resolved->info, prefix, resolved->class_name, config});
  }

  Chain chain;
  for (const auto& alias : transform_aliases) {
    std::string prefix = "transforms." + alias + ".";
    const std::string& type = required(all, prefix + "type");
    auto resolved = find_transformation(type);
    if (!resolved)
      throw ConfigError(prefix + "type", invalid_value_message(prefix + "type", type,
                                                               "Class " + std::string(trim(type)) + " could not be found."));
    Config config = parse_component(resolved->info->config_def(), own_keys(all, prefix), prefix);
    auto smt = construct(prefix, resolved->class_name, [&] { return resolved->info->make(config, resolved->side); });

    std::unique_ptr<Predicate> predicate;
    bool negate = false;
    if (auto it = all.find(prefix + "predicate"); it != all.end() && !trim(it->second).empty()) {
      std::string name(trim(it->second));
      auto f = predicate_factories.find(name);
      if (f == predicate_factories.end())
        throw ConfigError(prefix + "predicate",
                          invalid_value_message(prefix + "predicate", name,
                                                "Predicate alias '" + name + "' is not listed in 'predicates'"));
      auto& pf = f->second;
      predicate = construct(pf.prefix, pf.class_name, [&] { return pf.info->make(pf.config); });
      if (auto n = all.find(prefix + "negate"); n != all.end()) {
        ConfigDef negate_def;
        negate_def.define(prefix + "negate", ConfigType::Boolean, "false", Importance::Low, "");
        negate = negate_def.parse({{n->first, n->second}}).get_bool(prefix + "negate");
      }
    }
    chain.stages_.push_back(std::make_shared<TransformStage>(alias, resolved->class_name, std::move(smt),
                                                             std::move(predicate), negate));
  }
  return chain;
}

void define_chain_keys(ConfigDef& def) {
  def.define("transforms", ConfigType::List, "", Importance::Low,
             "Aliases for the transformations to be applied to records.")
      .define("predicates", ConfigType::List, "", Importance::Low,
              "Aliases for the predicates used by transformations.");
}

ParseOptions chain_passthrough() { return ParseOptions{{"transforms.", "predicates."}, {}}; }

} // namespace weir::transforms
