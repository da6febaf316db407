// DatagenConnector (io.confluent.kafka.connect.datagen.DatagenConnector): mock data
// of realistic shape, for demos and benchmarks. Keys follow Confluent's connector:
// `kafka.topic`, `quickstart`, `max.interval`, `iterations`, `schema.keyfield`;
// weir adds `random.seed`, which makes the output deterministic.
//
// Written against the public SDK only (weir/source.hpp, weir/plugin.hpp) and
// registered through a weir::PluginRegistrar, exactly as a plugin in plugin.path is:
// it is the built-in that shows a plugin author a complete source.
//
// Quickstarts (values of ~150-250 bytes as JSON, structs with a Connect schema as
// Confluent's datagen gives them, so JsonConverter with schemas.enable=true writes the
// schema and schema'd sinks downstream work; the schemas are named ksql.users,
// ksql.pageviews, ksql.orders and weir.user_events; keys are STRINGs):
//   users       registertime, userid, regionid, gender, name, email, plan, ...
//   pageviews   viewtime, userid, pageid, url, referrer, duration_ms, ...
//   orders      ordertime, orderid, itemid, orderunits, price, address{...}
//   user-events event_id, user_id, event, region, session, amount, ts, email
//
// Record n of task t depends only on (random.seed, t, n), so a restart that resumes
// at its stored offset ({"current.iteration": n} under {"task.id": t}) continues
// the very same sequence; hence exactly-once support. Each task sends `iterations`
// records (-1: forever), waiting a random 0..max.interval ms before each one.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "weir/config.hpp"
#include "weir/data/arena.hpp"
#include "weir/data/schema.hpp"
#include "weir/data/value.hpp"
#include "weir/plugin.hpp"
#include "weir/source.hpp"

namespace weir::connectors::datagen {

enum class Quickstart { Users, Pageviews, Orders, UserEvents };

/// Declares Confluent's keys plus `random.seed`.
void define_datagen(ConfigDef& def);

/// The Connect schema of a quickstart's values (a struct).
const data::SchemaPtr& value_schema(Quickstart q);

/// Record `n` of task `task`: a STRING key and a struct of value_schema(q), their
/// strings in `arena` (or static). Deterministic in its arguments.
struct Generated {
  data::Value key;
  data::Value value;
};
Generated generate(Quickstart q, uint64_t seed, int task, uint64_t n, data::Arena& arena);

/// Every task generates its own `iterations` records, as Confluent's connector does.
class DatagenConnector : public SourceConnector {
public:
  static void define(ConfigDef& def) { define_datagen(def); }
  std::vector<TaskConfig> task_configs(const Config& config, int max_tasks) override;
};

class DatagenTask : public SourceTask {
public:
  void start(const Config& config, const SourceContext& context, const OffsetReader& offsets) override;
  Poll poll(SourceOutput& out) override;

  /// The iteration the next record has.
  uint64_t next() const noexcept { return next_; }

private:
  Quickstart quickstart_ = Quickstart::Users;
  std::string topic_;
  int64_t max_interval_ms_ = 0;
  int64_t iterations_ = -1;
  uint64_t seed_ = 0;
  int task_ = 0;
  uint64_t next_ = 0;
  std::chrono::steady_clock::time_point due_;
};

/// Adds DatagenConnector (aliases DatagenConnector, Datagen) to `r`.
void register_datagen(PluginRegistrar& r);

} // namespace weir::connectors::datagen
