#include "connectors/datagen/datagen.hpp"

#include "runtime/data/errors.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <random>

namespace weir::connectors::datagen {

namespace {

/// splitmix64: a tiny, good mixer; every record seeds its own stream from it.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Rng {
public:
  explicit Rng(uint64_t state) : s_(state) {}
  uint64_t next() { return s_ = mix(s_); }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  template <size_t N>
  const char* pick(const char* const (&items)[N]) { return items[below(N)]; }

private:
  uint64_t s_;
};

constexpr const char* genders[] = {"MALE", "FEMALE", "OTHER"};
constexpr const char* first_names[] = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald",
                                       "Frances", "Ken", "Margaret", "Dennis", "Radia", "Linus"};
constexpr const char* last_names[] = {"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov",
                                      "Knuth", "Allen", "Thompson", "Hamilton", "Ritchie"};
constexpr const char* plans[] = {"free", "basic", "pro", "enterprise"};
constexpr const char* interests[] = {"news", "sports", "movies", "travel", "games", "music"};
constexpr const char* referrers[] = {"https://www.google.com/", "https://news.ycombinator.com/",
                                     "https://twitter.com/", "direct", "https://duckduckgo.com/"};
constexpr const char* browsers[] = {"Firefox/132.0", "Chrome/131.0", "Safari/18.1", "Edge/131.0"};
constexpr const char* cities[] = {"Berlin", "Lisbon", "Austin", "Osaka", "Nairobi", "Quito",
                                  "Oslo", "Perth"};
constexpr const char* states[] = {"BE", "LI", "TX", "OS", "NA", "PI", "OS", "WA"};
constexpr const char* kinds[] = {"page_view", "click", "signup", "purchase", "logout"};
constexpr const char* regions[] = {"eu-west", "us-east", "ap-south", "sa-east"};

constexpr uint64_t epoch_2026 = 1767225600000ull; // 2026-01-01T00:00:00Z in ms

template <class... Args>
void format(std::string& out, const char* fmt, Args... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  out.assign(buf, static_cast<size_t>(n < 0 ? 0 : std::min<int>(n, sizeof buf - 1)));
}

using ull = unsigned long long;

} // namespace

void define_datagen(ConfigDef& def) {
  def.define("kafka.topic", ConfigType::String, Importance::High, "Topic to write to",
             validators::non_empty());
  def.define("quickstart", ConfigType::String, Importance::High,
             "Name of quickstart to use: users, pageviews, orders or user-events",
             validators::one_of({"users", "pageviews", "orders", "user-events"}, true));
  def.define("max.interval", ConfigType::Long, "500", Importance::Medium,
             "Max interval between messages (ms)", validators::range(0, std::nullopt));
  def.define("iterations", ConfigType::Long, "-1", Importance::Medium,
             "Number of messages to send from each task, or less than 1 for unlimited");
  def.define("schema.keyfield", ConfigType::String, "", Importance::Low,
             "Name of field to use as the message key (default: the quickstart's id field)",
             validators::one_of({"", "userid", "pageid", "orderid", "itemid", "user_id",
                                 "event_id"}));
  def.define("random.seed", ConfigType::Long, "-1", Importance::Low,
             "Seed of the generator; the same seed gives the same records. -1: a seed from "
             "the clock.");
}

const runtime::data::SchemaPtr& value_schema(Quickstart q) {
  using runtime::data::SchemaBuilder;
  using runtime::data::Type;
  namespace schemas = runtime::data::schemas;
  auto of = [](Type t) { return schemas::of(t); };
  auto record = [](const char* name, std::initializer_list<std::pair<const char*, runtime::data::SchemaPtr>> fields) {
    auto b = SchemaBuilder::struct_().name(name);
    for (const auto& [field, schema] : fields)
      b.field(field, schema);
    return b.build();
  };
  static const std::array<runtime::data::SchemaPtr, 4> all{
      record("ksql.users", {{"registertime", of(Type::Int64)},
                            {"userid", of(Type::String)},
                            {"regionid", of(Type::String)},
                            {"gender", of(Type::String)},
                            {"name", of(Type::String)},
                            {"email", of(Type::String)},
                            {"plan", of(Type::String)},
                            {"interests", SchemaBuilder::array(of(Type::String)).build()},
                            {"contactinfo", record("ksql.contactinfo", {{"phone", of(Type::String)}})}}),
      record("ksql.pageviews", {{"viewtime", of(Type::Int64)},
                                {"userid", of(Type::String)},
                                {"pageid", of(Type::String)},
                                {"url", of(Type::String)},
                                {"referrer", of(Type::String)},
                                {"user_agent", of(Type::String)},
                                {"duration_ms", of(Type::Int64)}}),
      record("ksql.orders", {{"ordertime", of(Type::Int64)},
                             {"orderid", of(Type::Int64)},
                             {"itemid", of(Type::String)},
                             {"orderunits", of(Type::Float64)},
                             {"price", of(Type::Float64)},
                             {"currency", of(Type::String)},
                             {"address", record("ksql.address", {{"city", of(Type::String)},
                                                                 {"state", of(Type::String)},
                                                                 {"zipcode", of(Type::Int64)}})}}),
      record("weir.user_events", {{"event_id", of(Type::Int64)},
                                  {"user_id", of(Type::String)},
                                  {"event", of(Type::String)},
                                  {"region", of(Type::String)},
                                  {"session", of(Type::String)},
                                  {"amount", of(Type::Float64)},
                                  {"ts", of(Type::Int64)},
                                  {"email", of(Type::String)}}),
  };
  return all[static_cast<size_t>(q)];
}

namespace {

/// The decoded JSON of a rendered value as a value of `schema` (render() writes every
/// field with its JSON type, so only numbers need a conversion).
runtime::data::Value as_schema(const runtime::data::Value& v, const runtime::data::Schema& schema,
                               runtime::data::Arena& arena) {
  using runtime::data::Type;
  using runtime::data::Value;
  switch (schema.type()) {
    case Type::Float64: return Value::float64(v.is_integer() ? static_cast<double>(v.as_int()) : v.as_double());
    case Type::Struct: {
      Value out = Value::structure(arena, schema);
      for (const auto& f : schema.fields()) {
        const Value* x = v.find(f.name);
        if (x == nullptr)
          throw runtime::data::DataError("DatagenConnector: field " + f.name + " missing from a rendered record");
        out.fields()[f.index] = as_schema(*x, *f.schema, arena);
      }
      return out;
    }
    default: return v;
  }
}

} // namespace

void DatagenTask::decode(runtime::data::DecodedBatch& batch, uint32_t index) {
  auto& rec = batch[index];
  const auto& ref = batch.raw()[rec.raw_index];
  const auto& schema = value_schema(quickstart_);
  rec.value = as_schema(json_.decode(batch.raw().bytes(ref.value), batch.arena()), *schema, batch.arena());
  rec.value_schema = batch.retain(schema);
}

void render(Quickstart q, uint64_t seed, int task, uint64_t n, std::string& key, std::string& value) {
  Rng r{mix(seed ^ mix(static_cast<uint64_t>(task) + 1)) ^ mix(n)};
  switch (q) {
    case Quickstart::Users: {
      auto user = r.below(1000);
      auto* first = r.pick(first_names);
      auto* last = r.pick(last_names);
      format(key, "User_%llu", ull(user));
      format(value,
             R"({"registertime":%llu,"userid":"User_%llu","regionid":"Region_%llu",)"
             R"("gender":"%s","name":"%s %s","email":"%s.%s%llu@example.com","plan":"%s",)"
             R"("interests":["%s","%s"],"contactinfo":{"phone":"+1-555-%04llu"}})",
             ull(epoch_2026 - r.below(400ull * 86400000)), ull(user), ull(r.below(10)),
             r.pick(genders), first, last, first, last, ull(user), r.pick(plans), r.pick(interests),
             r.pick(interests), ull(r.below(10000)));
      break;
    }
    case Quickstart::Pageviews: {
      auto user = r.below(1000);
      auto page = r.below(100);
      format(key, "Page_%llu", ull(page));
      format(value,
             R"({"viewtime":%llu,"userid":"User_%llu","pageid":"Page_%llu",)"
             R"("url":"https://shop.example.com/p/%llu","referrer":"%s",)"
             R"("user_agent":"Mozilla/5.0 %s","duration_ms":%llu})",
             ull(epoch_2026 + n * 37 + r.below(1000)), ull(user), ull(page), ull(page),
             r.pick(referrers), r.pick(browsers), ull(r.below(120000)));
      break;
    }
    case Quickstart::Orders: {
      auto city = r.below(8);
      auto order = n * 64 + static_cast<uint64_t>(task);
      format(key, "%llu", ull(order));
      format(value,
             R"({"ordertime":%llu,"orderid":%llu,"itemid":"Item_%llu","orderunits":%llu.%02llu,)"
             R"("price":%llu.%02llu,"currency":"EUR","address":{"city":"%s","state":"%s",)"
             R"("zipcode":%llu}})",
             ull(epoch_2026 + n * 53 + r.below(1000)), ull(order), ull(r.below(1000)),
             ull(r.below(10)), ull(r.below(100)), ull(r.below(500)), ull(r.below(100)),
             cities[city], states[city], ull(10000 + r.below(90000)));
      break;
    }
    case Quickstart::UserEvents: {
      auto user = r.below(50000);
      format(key, "user-%05llu", ull(user));
      format(value,
             R"({"event_id":%llu,"user_id":"user-%05llu","event":"%s","region":"%s",)"
             R"("session":"s-%08llx","amount":%llu.%02llu,"ts":%llu,"email":"user%llu@example.com"})",
             ull(n), ull(user), r.pick(kinds), r.pick(regions), ull(r.next() & 0xffffffffu),
             ull(r.below(500)), ull(r.below(100)), ull(epoch_2026 + n * 10), ull(user));
      break;
    }
  }
}

DatagenTask::DatagenTask(const Config& config, int task)
  : topic_(config.get_string("kafka.topic")), max_interval_ms_(config.get_long("max.interval")),
    iterations_(config.get_long("iterations")), task_(task) {
  std::string q = config.get_string("quickstart");
  for (auto& c : q)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  quickstart_ = q == "users"       ? Quickstart::Users
                : q == "pageviews" ? Quickstart::Pageviews
                : q == "orders"    ? Quickstart::Orders
                                   : Quickstart::UserEvents;
  auto seed = config.get_long("random.seed");
  seed_ = seed >= 0 ? static_cast<uint64_t>(seed) : std::random_device{}();
  partition_ = "{\"task.id\":" + std::to_string(task) + "}";
}

void DatagenTask::start(const runtime::connector_api::OffsetMap& stored) {
  auto it = stored.find(partition_);
  if (it != stored.end()) {
    const auto& text = it->second;
    auto at = text.find("\"current.iteration\":");
    uint64_t n = 0;
    if (at == std::string::npos
        || std::from_chars(text.data() + at + 20, text.data() + text.size(), n).ec != std::errc{})
      throw std::runtime_error("DatagenConnector: stored offset " + text
                               + " is not {\"current.iteration\": N}");
    next_ = n;
  }
  due_ = std::chrono::steady_clock::now();
}

DatagenTask::Status DatagenTask::poll(runtime::connector_api::SourceRecords& out) {
  const uint64_t limit = iterations_ < 1 ? UINT64_MAX : static_cast<uint64_t>(iterations_);
  auto now = std::chrono::steady_clock::now();
  while (next_ < limit && due_ <= now) {
    render(quickstart_, seed_, task_, next_, key_, value_);
    if (!out.has_room(key_.size() + value_.size()))
      break;
    out.add(topic_, key_, value_);
    ++next_;
    if (max_interval_ms_ > 0) {
      // A random pause before the next record, as Confluent's connector sleeps.
      due_ += std::chrono::milliseconds{mix(seed_ ^ mix(next_)) % uint64_t(max_interval_ms_ + 1)};
      now = std::chrono::steady_clock::now();
    }
  }
  if (out.size() > 0) {
    offset_text_ = "{\"current.iteration\":" + std::to_string(next_) + "}";
    out.set_offset(partition_, offset_text_);
  }
  if (next_ >= limit)
    return Status::end;
  return out.size() > 0 && due_ <= now ? Status::ready : Status::idle;
}

} // namespace weir::connectors::datagen
