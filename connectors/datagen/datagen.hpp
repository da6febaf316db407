// DatagenConnector (io.confluent.kafka.connect.datagen.DatagenConnector): mock data
// of realistic shape, for demos and benchmarks. Keys follow Confluent's connector:
// `kafka.topic`, `quickstart`, `max.interval`, `iterations`, `schema.keyfield`;
// weir adds `random.seed`, which makes the output deterministic.
//
// Quickstarts (values are JSON objects of ~150-250 bytes, decoded schemaless):
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

#include "runtime/pipeline/source_task.hpp"
#include "weir/config.hpp"

namespace weir::connectors::datagen {

enum class Quickstart { Users, Pageviews, Orders, UserEvents };

/// Declares Confluent's keys plus `random.seed`.
void define_datagen(ConfigDef& def);

/// Renders record `n` into `key` and `value` (cleared first); deterministic in its
/// arguments. Returns nothing: both strings keep their capacity across calls.
void render(Quickstart q, uint64_t seed, int task, uint64_t n, std::string& key,
            std::string& value);

class DatagenTask : public runtime::pipeline::SourceTask {
public:
  DatagenTask(const Config& config, int task);

  void start(const runtime::pipeline::OffsetMap& stored) override;
  Status poll(runtime::pipeline::SourceRecords& out) override;
  runtime::pipeline::Form key_form() const noexcept override {
    return runtime::pipeline::Form::String;
  }
  runtime::pipeline::Form value_form() const noexcept override {
    return runtime::pipeline::Form::Json;
  }
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
};

} // namespace weir::connectors::datagen
