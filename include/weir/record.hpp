// One record as a plugin reads and changes it: Kafka Connect's ConnectRecord (topic,
// partition, offset, timestamp, key and value with their schemas, headers), over
// weir's own decoded values (weir/data/value.hpp), with no JSON text in between.
//
// A Record is a handle, like a pointer: a const Record still lets the record be
// changed, and copying one copies the handle. It is valid only during the call that
// hands it out (Transformation::apply, Predicate::test, ...): keep nothing that
// points into it.
//
// Lifetime of what goes into a record: every string and container a record points
// to must live in its batch's arena() (or in static storage), and every schema must
// be kept alive by the batch: set_key/set_value with a SchemaPtr do that (retain()),
// set_topic and add_header copy their strings, copy() copies any other string.
// Values built with Value::map/array/structure(record.arena(), ...) are in the arena
// already.
//
// Threading: none; a batch and its records belong to one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "weir/data/arena.hpp"
#include "weir/data/schema.hpp"
#include "weir/data/value.hpp"

namespace weir {

/// Which part of a record a Key/Value component works on.
enum class Side : uint8_t { Key, Value };

enum class RecordState : uint8_t {
  Live,    ///< goes on downstream
  Dropped, ///< filtered out: absent downstream, but its offset counts as processed
  Failed,  ///< a record error was recorded; the connector's error policy decides
};

/// One header (Kafka Connect's Header: key, schema, value). Headers read from Kafka
/// are schemaless strings (or null); one a component adds may carry a schema.
struct Header {
  std::string_view key;
  data::Value value;
  const data::Schema* schema = nullptr; ///< nullptr: schemaless
};

using HeaderList = data::ArenaVector<Header>;

/// A record's fields as weir stores them in its batch. Plugins reach them through
/// Record; weir's own code uses them directly.
struct RecordData {
  std::string_view topic;
  int32_t partition = -1;  ///< -1: none (Kafka's null)
  int64_t offset = -1;
  int64_t timestamp = -1;  ///< milliseconds since the epoch; -1: none
  data::Value key;
  const data::Schema* key_schema = nullptr; ///< nullptr: schemaless
  data::Value value;
  const data::Schema* value_schema = nullptr;
  HeaderList headers;
  RecordState state = RecordState::Live;
  uint32_t raw_index = 0; ///< the record's index in the raw batch it was decoded from

  bool live() const noexcept { return state == RecordState::Live; }
  data::Value& get(Side s) noexcept { return s == Side::Key ? key : value; }
  const data::Value& get(Side s) const noexcept { return s == Side::Key ? key : value; }
  const data::Schema* schema(Side s) const noexcept { return s == Side::Key ? key_schema : value_schema; }
};

/// What the batch holding a record lends to code that changes it: its arena, and a
/// place to keep schemas and other owners alive while the batch lives.
class RecordBatch {
public:
  virtual data::Arena& arena() noexcept = 0;
  /// Keeps `schema` alive while the batch lives; returns the pointer a record stores.
  virtual const data::Schema* retain(const data::SchemaPtr& schema) = 0;

protected:
  ~RecordBatch() = default;
};

class Record {
public:
  Record(RecordData& record, RecordBatch& batch) noexcept
      : rec_(&record), batch_(&batch), arena_(&batch.arena()) {}

  std::string_view topic() const noexcept { return rec_->topic; }
  std::optional<int32_t> partition() const noexcept {
    return rec_->partition < 0 ? std::nullopt : std::optional<int32_t>(rec_->partition);
  }
  int64_t offset() const noexcept { return rec_->offset; }
  std::optional<int64_t> timestamp() const noexcept {
    return rec_->timestamp < 0 ? std::nullopt : std::optional<int64_t>(rec_->timestamp);
  }

  /// Key or value, mutable in place (its containers grow in arena()).
  data::Value& key() const noexcept { return rec_->key; }
  data::Value& value() const noexcept { return rec_->value; }
  data::Value& get(Side s) const noexcept { return rec_->get(s); }
  /// The schema, or nullptr for a schemaless key or value.
  const data::Schema* key_schema() const noexcept { return rec_->key_schema; }
  const data::Schema* value_schema() const noexcept { return rec_->value_schema; }
  const data::Schema* schema(Side s) const noexcept { return rec_->schema(s); }
  /// Headers in order; erase with headers().erase_if(...), add with add_header().
  HeaderList& headers() const noexcept { return rec_->headers; }

  /// The batch's arena: where new strings and containers go.
  data::Arena& arena() const noexcept { return *arena_; }
  /// A copy of `s` in the arena.
  std::string_view copy(std::string_view s) const { return arena_->copy(s); }
  /// Keeps `schema` alive for the batch's lifetime; returns the raw pointer to store.
  const data::Schema* retain(const data::SchemaPtr& schema) const { return batch_->retain(schema); }

  /// Replaces key or value and its schema (retained; nullptr: schemaless).
  void set(Side s, data::Value v, const data::SchemaPtr& schema) const;
  /// Same, with a schema the batch already keeps alive (from schema(), retain()).
  void set(Side s, data::Value v, const data::Schema* retained_schema) const noexcept {
    if (s == Side::Key) {
      rec_->key = v;
      rec_->key_schema = retained_schema;
    } else {
      rec_->value = v;
      rec_->value_schema = retained_schema;
    }
  }
  void set_key(data::Value v, const data::SchemaPtr& schema = nullptr) const { set(Side::Key, v, schema); }
  void set_value(data::Value v, const data::SchemaPtr& schema = nullptr) const { set(Side::Value, v, schema); }
  /// Routes the record to another topic (copied).
  void set_topic(std::string_view topic) const { rec_->topic = arena_->copy(topic); }
  /// Milliseconds since the epoch; std::nullopt: none.
  void set_timestamp(std::optional<int64_t> ts) const noexcept { rec_->timestamp = ts ? *ts : -1; }
  /// Appends a header (the key is copied; `value`'s memory follows the rules above).
  void add_header(std::string_view key, data::Value value, const data::SchemaPtr& schema = nullptr) const;

protected:
  RecordData* rec_;
  RecordBatch* batch_;
  data::Arena* arena_;
};

} // namespace weir
