#include "connectors/datagen/datagen.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <random>
#include <span>
#include <stdexcept>

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

/// printf into `arena`: the strings of a record live with its batch.
template <class... Args>
data::Value text(data::Arena& arena, const char* fmt, Args... args) {
  char buf[128];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  return data::Value::string(arena.copy({buf, static_cast<size_t>(n < 0 ? 0 : std::min<int>(n, sizeof buf - 1))}));
}

/// `whole`.`cents` as the double the same decimal text reads as (not whole + cents / 100,
/// which may differ in the last bit).
data::Value decimal(uint64_t whole, uint64_t cents) {
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%llu.%02llu", static_cast<unsigned long long>(whole),
                        static_cast<unsigned long long>(cents));
  double d = 0;
  std::from_chars(buf, buf + n, d);
  return data::Value::float64(d);
}

data::Value str(const char* s) { return data::Value::string(s); } // static storage
data::Value i64(uint64_t v) { return data::Value::int64(static_cast<int64_t>(v)); }

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

const data::SchemaPtr& value_schema(Quickstart q) {
  using data::SchemaBuilder;
  using data::Type;
  namespace schemas = data::schemas;
  auto of = [](Type t) { return schemas::of(t); };
  auto record = [](const char* name, std::initializer_list<std::pair<const char*, data::SchemaPtr>> fields) {
    auto b = SchemaBuilder::struct_().name(name);
    for (const auto& [field, schema] : fields)
      b.field(field, schema);
    return b.build();
  };
  static const std::array<data::SchemaPtr, 4> all{
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

// The draws come in a fixed order, the one earlier versions drew them in, so a
// sequence resumed from an offset stored by them goes on with the same records.
Generated generate(Quickstart q, uint64_t seed, int task, uint64_t n, data::Arena& arena) {
  using data::Value;
  Rng r{mix(seed ^ mix(static_cast<uint64_t>(task) + 1)) ^ mix(n)};
  const auto& schema = *value_schema(q);
  Value v = Value::structure(arena, schema);
  auto f = v.fields();
  Value key;
  switch (q) {
    case Quickstart::Users: {
      auto user = r.below(1000);
      auto* first = r.pick(first_names);
      auto* last = r.pick(last_names);
      auto phone = r.below(10000);
      Value interest[2];
      interest[1] = str(r.pick(interests));
      interest[0] = str(r.pick(interests));
      auto* plan = r.pick(plans);
      auto* gender = r.pick(genders);
      auto region = r.below(10);
      auto registered = epoch_2026 - r.below(400ull * 86400000);
      key = text(arena, "User_%llu", ull(user));
      f[0] = i64(registered);
      f[1] = key;
      f[2] = text(arena, "Region_%llu", ull(region));
      f[3] = str(gender);
      f[4] = text(arena, "%s %s", first, last);
      f[5] = text(arena, "%s.%s%llu@example.com", first, last, ull(user));
      f[6] = str(plan);
      f[7] = Value::array_of(arena, std::span<const Value>{interest});
      Value contact = Value::structure(arena, *schema.fields()[8].schema);
      contact.fields()[0] = text(arena, "+1-555-%04llu", ull(phone));
      f[8] = contact;
      break;
    }
    case Quickstart::Pageviews: {
      auto user = r.below(1000);
      auto page = r.below(100);
      auto duration = r.below(120000);
      auto* browser = r.pick(browsers);
      auto* referrer = r.pick(referrers);
      auto viewed = epoch_2026 + n * 37 + r.below(1000);
      key = text(arena, "Page_%llu", ull(page));
      f[0] = i64(viewed);
      f[1] = text(arena, "User_%llu", ull(user));
      f[2] = key;
      f[3] = text(arena, "https://shop.example.com/p/%llu", ull(page));
      f[4] = str(referrer);
      f[5] = text(arena, "Mozilla/5.0 %s", browser);
      f[6] = i64(duration);
      break;
    }
    case Quickstart::Orders: {
      auto city = r.below(8);
      auto order = n * 64 + static_cast<uint64_t>(task);
      auto zip = 10000 + r.below(90000);
      auto price_cents = r.below(100);
      auto price = r.below(500);
      auto units_cents = r.below(100);
      auto units = r.below(10);
      auto item = r.below(1000);
      auto ordered = epoch_2026 + n * 53 + r.below(1000);
      key = text(arena, "%llu", ull(order));
      f[0] = i64(ordered);
      f[1] = i64(order);
      f[2] = text(arena, "Item_%llu", ull(item));
      f[3] = decimal(units, units_cents);
      f[4] = decimal(price, price_cents);
      f[5] = str("EUR");
      Value address = Value::structure(arena, *schema.fields()[6].schema);
      address.fields()[0] = str(cities[city]);
      address.fields()[1] = str(states[city]);
      address.fields()[2] = i64(zip);
      f[6] = address;
      break;
    }
    case Quickstart::UserEvents: {
      auto user = r.below(50000);
      auto cents = r.below(100);
      auto amount = r.below(500);
      auto session = r.next() & 0xffffffffu;
      auto* region = r.pick(regions);
      auto* kind = r.pick(kinds);
      key = text(arena, "user-%05llu", ull(user));
      f[0] = i64(n);
      f[1] = key;
      f[2] = str(kind);
      f[3] = str(region);
      f[4] = text(arena, "s-%08llx", ull(session));
      f[5] = decimal(amount, cents);
      f[6] = i64(epoch_2026 + n * 10);
      f[7] = text(arena, "user%llu@example.com", ull(user));
      break;
    }
  }
  return {key, v};
}

std::vector<TaskConfig> DatagenConnector::task_configs(const Config&, int max_tasks) {
  return std::vector<TaskConfig>(static_cast<size_t>(std::max(1, max_tasks)));
}

namespace {

SourceMap partition_of(int task) { return {{"task.id", data::Value::int64(task)}}; }

} // namespace

void DatagenTask::start(const Config& config, const SourceContext& context, const OffsetReader& offsets) {
  topic_ = config.get_string("kafka.topic");
  max_interval_ms_ = config.get_long("max.interval");
  iterations_ = config.get_long("iterations");
  task_ = context.task;
  std::string q = config.get_string("quickstart");
  for (auto& c : q)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  quickstart_ = q == "users"       ? Quickstart::Users
                : q == "pageviews" ? Quickstart::Pageviews
                : q == "orders"    ? Quickstart::Orders
                                   : Quickstart::UserEvents;
  auto seed = config.get_long("random.seed");
  seed_ = seed >= 0 ? static_cast<uint64_t>(seed) : std::random_device{}();
  if (auto stored = offsets.offset(partition_of(task_))) {
    auto it = std::find_if(stored->begin(), stored->end(), [](const auto& e) { return e.first == "current.iteration"; });
    if (it == stored->end() || !it->second.is_integer() || it->second.as_int() < 0)
      throw std::runtime_error("DatagenConnector: the stored offset of task " + std::to_string(task_)
                               + " is not {\"current.iteration\": N}");
    next_ = static_cast<uint64_t>(it->second.as_int());
  }
  due_ = std::chrono::steady_clock::now();
}

DatagenTask::Poll DatagenTask::poll(SourceOutput& out) {
  const uint64_t limit = iterations_ < 1 ? UINT64_MAX : static_cast<uint64_t>(iterations_);
  const auto& schema = value_schema(quickstart_);
  auto now = std::chrono::steady_clock::now();
  size_t added = 0;
  while (next_ < limit && due_ <= now && out.has_room()) {
    auto [key, value] = generate(quickstart_, seed_, task_, next_, out.arena());
    SourceRecord record;
    record.topic = topic_;
    record.key = key;
    record.key_schema = data::schemas::string();
    record.value = value;
    record.value_schema = schema;
    out.add(std::move(record));
    ++added;
    ++next_;
    if (max_interval_ms_ > 0) {
      // A random pause before the next record, as Confluent's connector sleeps.
      due_ += std::chrono::milliseconds{mix(seed_ ^ mix(next_)) % uint64_t(max_interval_ms_ + 1)};
      now = std::chrono::steady_clock::now();
    }
  }
  if (added > 0)
    out.set_offset(partition_of(task_), {{"current.iteration", data::Value::int64(static_cast<int64_t>(next_))}});
  if (next_ >= limit)
    return Poll::End;
  return added > 0 && due_ <= now ? Poll::Ready : Poll::Idle;
}

void register_datagen(PluginRegistrar& r) {
  // Record n of a task is a function of the seed and n: an offset names every record exactly.
  r.add_source<DatagenConnector, DatagenTask>("io.confluent.kafka.connect.datagen.DatagenConnector",
                                              {"DatagenConnector", "Datagen"}, WEIR_VERSION,
                                              ExactlyOnce::Supported);
}

} // namespace weir::connectors::datagen
