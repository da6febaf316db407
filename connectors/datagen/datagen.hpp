// DatagenConnector (io.confluent.kafka.connect.datagen.DatagenConnector): mock data
// of realistic shape, for demos and benchmarks. Keys follow Confluent's connector:
// `kafka.topic`, `quickstart`, `max.interval`, `iterations`, `schema.keyfield`;
// weir adds `random.seed`, which makes the output deterministic.
//
// Quickstarts (values of ~150-250 bytes, structs with a Connect schema as Confluent's
// datagen gives them, so JsonConverter with schemas.enable=true writes the schema and
// schema'd sinks downstream work; the schemas are named ksql.users, ksql.pageviews,
// ksql.orders and weir.user_events):
//   users       registertime, userid, regionid, gender, name, email, plan, ...
//   pageviews   viewtime, userid, pageid, url, referrer, duration_ms, ...
//   orders      ordertime, orderid, itemid, orderunits, price, address{...}
//   user-events event_id, user_id, event, region, session, amount, ts, email
//
// Record n of task t depends only on (random.seed, t, n), so a restart that resumes
// at its stored offset ({"current.iteration": n} under {"task.id": t}) continues
// the very same sequence. Each task sends `iterations` records (-1: forever),
// waiting a random 0..max.interval ms before each one.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "runtime/convert/json_fast_decode.hpp"
#include "runtime/data/schema.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "weir/config.hpp"

namespace weir::connectors::datagen {

enum class Quickstart { Users, Pageviews, Orders, UserEvents };

/// Declares Confluent's keys plus `random.seed`.
void define_datagen(ConfigDef& def);

/// Renders record `n` into `key` and `value` (JSON text of the value's fields, cleared
/// first); deterministic in its arguments. Both strings keep their capacity.
void render(Quickstart q, uint64_t seed, int task, uint64_t n, std::string& key,
            std::string& value);

/// The Connect schema of a quickstart's values (a struct, fields in render() order).
const runtime::data::SchemaPtr& value_schema(Quickstart q);

class DatagenTask : public runtime::connector_api::SourceTask {
public:
  DatagenTask(const Config& config, int task);

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  runtime::connector_api::Form key_form() const noexcept override {
    return runtime::connector_api::Form::String;
  }
  runtime::connector_api::Form value_form() const noexcept override {
    return runtime::connector_api::Form::Custom;
  }
  /// The rendered JSON as a struct of value_schema().
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  std::string_view kind() const noexcept override { return "datagen"; }

  uint64_t next() const noexcept { return next_; }

private:
  Quickstart quickstart_;
  std::string topic_;
  int64_t max_interval_ms_;
  int64_t iterations_;
  uint64_t seed_;
  int task_;
  std::string partition_;
  uint64_t next_ = 0;
  std::chrono::steady_clock::time_point due_;
  std::string key_, value_, offset_text_;
  runtime::convert::FastJsonDecoder json_;
};

} // namespace weir::connectors::datagen
