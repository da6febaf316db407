#include "runtime/convert/avro_converter.hpp"

#include <map>
#include <unordered_map>

#include "runtime/convert/avro_binary.hpp"
#include "runtime/convert/avro_compatibility.hpp"
#include "runtime/convert/avro_schema.hpp"
#include "runtime/convert/schema_registry_client.hpp"
#include "runtime/convert/text.hpp"

namespace weir::runtime::convert {

using namespace runtime::data;

namespace {

constexpr std::string_view strategy_package = "io.confluent.kafka.serializers.subject.";
enum class Strategy { TopicName, RecordName, TopicRecordName };

Strategy strategy(const std::string& name) {
  std::string_view n = trim(name);
  if (n.starts_with(strategy_package))
    n.remove_prefix(strategy_package.size());
  if (n == "RecordNameStrategy") return Strategy::RecordName;
  if (n == "TopicRecordNameStrategy") return Strategy::TopicRecordName;
  return Strategy::TopicName;
}

std::vector<std::string> strategies() {
  std::vector<std::string> all;
  for (std::string_view s : {"TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"}) {
    all.emplace_back(s);
    all.push_back(std::string(strategy_package) + std::string(s));
  }
  return all;
}

constexpr size_t header_size = 5; // magic byte + 4-byte schema id

} // namespace

struct AvroConverter::Impl {
  SchemaRegistryClient registry;
  bool is_key;
  bool auto_register;
  bool use_latest;
  bool latest_strict;
  Strategy subject_strategy;
  avro::WriteOptions write;
  size_t cache_size;

  /// Writer's schemas as the registry holds them, and as read for one subject (with
  /// that subject's version).
  std::unordered_map<int32_t, std::pair<std::string, std::shared_ptr<const avro::ParsedSchema>>> by_id;
  std::map<std::pair<int32_t, std::string>, std::shared_ptr<const avro::ParsedSchema>> by_subject;
  /// Where a record is written: the schema id, and with use.latest.version the
  /// subject's latest schema when it is not the record's own (null otherwise).
  struct Target {
    int32_t id = 0;
    std::shared_ptr<const avro::ParsedSchema> latest;
  };
  struct Written {
    SchemaPtr schema; ///< keeps the key's address from being reused
    std::string subject;
    Target target;
  };
  std::unordered_map<const Schema*, std::vector<Written>> ids;
  std::unordered_map<const Schema*, std::pair<SchemaPtr, std::string>> json;
  // The last answer of each way: consecutive records mostly share topic and schema,
  // and then cost no string building or map lookup.
  struct {
    const Schema* schema = nullptr;
    std::string topic;
    Target target;
  } last_written;
  struct {
    int32_t id = -1;
    std::string topic;
    const avro::ParsedSchema* parsed = nullptr;
  } last_read;

  const std::string& avro_json(const Schema& s) {
    auto it = json.find(&s);
    if (it == json.end()) {
      if (json.size() >= cache_size)
        json.clear();
      it = json.emplace(&s, std::pair{s.shared_from_this(), avro::schema_json(s, write)}).first;
    }
    return it->second.second;
  }

  std::string subject(const std::string& topic, const std::string& record_name) const {
    switch (subject_strategy) {
      case Strategy::TopicName: return topic + (is_key ? "-key" : "-value");
      case Strategy::RecordName: return record_name;
      case Strategy::TopicRecordName: return topic + "-" + record_name;
    }
    return {};
  }

  const Target& target_for(const std::string& topic, const Schema& s) {
    if (last_written.schema == &s && last_written.topic == topic)
      return last_written.target;
    Target t = lookup_target(topic, s);
    last_written = {&s, topic, std::move(t)}; // `ids` holds `s`, so its address is not reused
    return last_written.target;
  }

  // As Confluent's serializer: auto.register.schemas comes first, use.latest.version
  // only applies without it. The latest schema is cached with the id for the
  // converter's life (Confluent's default latest.cache.ttl.sec=-1 never expires it).
  Target lookup_target(const std::string& topic, const Schema& s) {
    std::string subj = subject(topic, avro::record_name(s, write));
    auto& known = ids[&s];
    for (const auto& w : known)
      if (w.subject == subj)
        return w.target;
    const std::string& text = avro_json(s);
    Target t;
    if (auto_register)
      t.id = registry.register_schema(subj, text);
    else if (use_latest)
      t = latest_target(subj, s, text);
    else
      t.id = registry.lookup_schema(subj, text).id;
    if (ids.size() >= cache_size) {
      ids.clear();
      last_written.schema = nullptr;
    }
    ids[&s].push_back({s.shared_from_this(), std::move(subj), t});
    return t;
  }

  // AbstractKafkaSchemaSerDe.lookupLatestVersion: the subject's latest schema, checked
  // (latest.compatibility.strict) to read what the record's own schema writes.
  Target latest_target(const std::string& subj, const Schema& s, const std::string& text) {
    auto latest = registry.latest(subj);
    auto parsed = avro::ParsedSchema::parse(latest.schema, write.connect_meta_data, std::nullopt,
                                            write.enhanced_schema_support);
    if (parsed->connect()->equals(s))
      return {latest.id, nullptr}; // the record's own schema: written as it is
    if (latest_strict) {
      auto own = avro::ParsedSchema::parse(text, write.connect_meta_data, std::nullopt, write.enhanced_schema_support);
      std::string errors;
      for (const auto& e : avro::incompatibilities(parsed->root(), own->root()))
        errors += (errors.empty() ? "" : ",") + e;
      if (!errors.empty())
        throw DataError("Incompatible schema of type 'AVRO'. Set latest.compatibility.strict=false to disable this "
                        "check. Error messages: " + errors);
    }
    return {latest.id, std::move(parsed)};
  }

  // As Confluent's deserializer for a converter: the writer's schema by id, then its
  // version under the subject the strategy names (POST /subjects/{subject}), which
  // becomes the Connect schema's version where the schema carries no connect.version.
  const avro::ParsedSchema& schema_for(int32_t id, const std::string& topic) {
    if (last_read.id == id && last_read.topic == topic)
      return *last_read.parsed;
    const avro::ParsedSchema& parsed = lookup_schema(id, topic);
    last_read = {id, topic, &parsed};
    return parsed;
  }

  const avro::ParsedSchema& lookup_schema(int32_t id, const std::string& topic) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      std::string text = registry.schema_by_id(id);
      auto parsed = avro::ParsedSchema::parse(text, write.connect_meta_data, std::nullopt, write.enhanced_schema_support);
      if (by_id.size() >= cache_size)
        by_id.clear();
      it = by_id.emplace(id, std::pair{std::move(text), std::move(parsed)}).first;
    }
    const auto& [text, plain] = it->second;
    std::pair<int32_t, std::string> key{id, subject(topic, plain->record_name())};
    auto found = by_subject.find(key);
    if (found == by_subject.end()) {
      auto version = registry.lookup_schema(key.second, text).version;
      auto parsed = avro::ParsedSchema::parse(text, write.connect_meta_data, version, write.enhanced_schema_support);
      if (by_subject.size() >= cache_size) {
        by_subject.clear();
        last_read.parsed = nullptr;
        last_read.id = -1;
      }
      found = by_subject.emplace(std::move(key), std::move(parsed)).first;
    }
    return *found->second;
  }
};

const ConfigDef& AvroConverter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.group("Schema Registry")
        .define("schema.registry.url", ConfigType::List, Importance::High,
                "Comma-separated list of Schema Registry URLs (http://host:port), tried in order.",
                validators::non_empty())
        .define("auto.register.schemas", ConfigType::Boolean, "true", Importance::Medium,
                "Register a record's schema under its subject when it is not there yet.")
        .define("use.latest.version", ConfigType::Boolean, "false", Importance::Low,
                "With auto.register.schemas=false: write each record in the subject's latest schema "
                "(fields matched by name, missing ones as their defaults) under its id, instead of "
                "looking up the record's own schema.")
        .define("latest.compatibility.strict", ConfigType::Boolean, "true", Importance::Low,
                "With use.latest.version: refuse a record whose schema the latest schema cannot read "
                "(Avro schema resolution: the latest must be backward compatible with it).")
        .define("key.subject.name.strategy", ConfigType::String,
                "io.confluent.kafka.serializers.subject.TopicNameStrategy", Importance::Medium,
                "How the subject of a key schema is named.", validators::one_of(strategies()))
        .define("value.subject.name.strategy", ConfigType::String,
                "io.confluent.kafka.serializers.subject.TopicNameStrategy", Importance::Medium,
                "How the subject of a value schema is named.", validators::one_of(strategies()))
        .define("basic.auth.credentials.source", ConfigType::String, "URL", Importance::Medium,
                "Where basic auth credentials come from: URL (user:password@ in the URL) or USER_INFO.",
                validators::one_of({"URL", "USER_INFO"}))
        .define("basic.auth.user.info", ConfigType::Password, "", Importance::Medium,
                "user:password for basic auth, with basic.auth.credentials.source=USER_INFO.");
    d.group("Avro data")
        .define("enhanced.avro.schema.support", ConfigType::Boolean, "false", Importance::Low,
                "Write Connect strings that came from Avro enums (io.confluent.connect.avro.Enum "
                "parameters) back as those enums, and name Union struct fields of records, enums and "
                "fixed by their full names, namespace included.")
        .define("connect.meta.data", ConfigType::Boolean, "true", Importance::Low,
                "Write the connect.* properties (name, version, doc, parameters, default) into Avro schemas.")
        .define("schemas.cache.config", ConfigType::Int, "1000", Importance::Low,
                "How many schemas are cached each way.", validators::range(1, std::nullopt))
        .define("scrub.invalid.names", ConfigType::Boolean, "false", Importance::Low,
                "Rewrite record, field and namespace names Avro refuses as Confluent's AvroData does "
                "(e.g. address.city -> address_city); when false, such a name fails the record.")
        .define("converter.type", ConfigType::String, "value", Importance::Low,
                "How this converter will be used: key, value or header.",
                validators::one_of({"key", "value", "header"}, true));
    return d;
  }();
  return def;
}

AvroConverter::AvroConverter(const Config& c, bool is_key) {
  SchemaRegistryClient::Options o;
  // The registry client checks the URLs; its complaint names the key.
  for (const auto& url : c.get_list("schema.registry.url"))
    if (!trim(url).empty())
      o.urls.emplace_back(trim(url));
  if (c.get_string("basic.auth.credentials.source") == "USER_INFO")
    o.user_info = c.get_password("basic.auth.user.info").value();
  auto client = [&] {
    try {
      return SchemaRegistryClient(std::move(o));
    } catch (const std::invalid_argument& e) {
      throw ConfigError("schema.registry.url", e.what());
    }
  };
  std::unique_ptr<Impl> impl(new Impl{client(), is_key, c.get_bool("auto.register.schemas"),
                                      c.get_bool("use.latest.version"), c.get_bool("latest.compatibility.strict"),
                                      strategy(c.get_string(is_key ? "key.subject.name.strategy"
                                                                   : "value.subject.name.strategy")),
                                      avro::WriteOptions{c.get_bool("connect.meta.data"), c.get_bool("scrub.invalid.names"),
                                                         c.get_bool("enhanced.avro.schema.support")},
                                      static_cast<size_t>(c.get_int("schemas.cache.config")), {}, {}, {}, {}, {}, {}});
  impl_ = std::move(impl);
}

AvroConverter::~AvroConverter() = default;

void AvroConverter::to_connect(const std::optional<std::string_view>& bytes, DecodedBatch& batch, Value& out,
                               const Schema*& schema) {
  out = Value();
  schema = nullptr;
  if (!bytes)
    return;
  auto fail = [&](const std::string& what) -> DataError {
    return DataError("Failed to deserialize data for topic " + topic_ + " to Avro: " + what);
  };
  if (bytes->size() < header_size)
    throw fail("Unknown magic byte! (the record is " + std::to_string(bytes->size()) +
               " bytes, shorter than the 5-byte header of magic byte and schema id)");
  if ((*bytes)[0] != 0)
    throw fail("Unknown magic byte! (found " + std::to_string(static_cast<uint8_t>((*bytes)[0])) + ", expected 0)");
  const auto* p = reinterpret_cast<const uint8_t*>(bytes->data());
  const auto id = static_cast<int32_t>((uint32_t{p[1]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 8) | p[4]);
  try {
    const auto& parsed = impl_->schema_for(id, topic_);
    out = avro::decode(parsed.root(), bytes->substr(header_size), batch.arena());
    schema = batch.retain(parsed.connect());
  } catch (const DataError& e) {
    throw fail("schema id " + std::to_string(id) + ": " + e.what());
  }
}

bool AvroConverter::from_connect(const Value& v, const Schema* schema, std::string& out) {
  if (v.is_null()) {
    // A Kafka null, as Confluent writes it, unless the schema says the value is required.
    if (schema != nullptr && !schema->optional())
      throw DataError("Failed to serialize Avro data from topic " + topic_ + " : Found null value for non-optional schema");
    return false;
  }
  if (schema == nullptr)
    throw DataError("Failed to serialize Avro data from topic " + topic_ +
                    ": the value has no Connect schema, and Avro needs one (read the records with a "
                    "converter that gives schemas, e.g. JsonConverter with schemas.enable=true)");
  try {
    const auto& [id, latest] = impl_->target_for(topic_, *schema);
    out += '\0';
    out += static_cast<char>((id >> 24) & 0xFF);
    out += static_cast<char>((id >> 16) & 0xFF);
    out += static_cast<char>((id >> 8) & 0xFF);
    out += static_cast<char>(id & 0xFF);
    if (latest)
      avro::encode_as(latest->root(), v, out);
    else
      avro::encode(*schema, v, out, impl_->write.enhanced_schema_support);
  } catch (const DataError& e) {
    throw DataError("Failed to serialize Avro data from topic " + topic_ + " : " + e.what());
  }
  return true;
}

} // namespace weir::runtime::convert
