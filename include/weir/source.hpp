// The base classes of a custom source: a SourceConnector that splits the work into
// task configs, and a SourceTask that reads one share of it into records.
//
// They mirror Kafka Connect's SourceConnector and SourceTask. The connector part is
// stateless here: weir calls task_configs() on a fresh SourceConnector whenever it
// (re)computes the tasks (the connector is created, its config changes, or it is
// restarted), and drops it afterwards.
//
// A task's life: start() once, with its config and the offsets weir stored for the
// connector; then poll() again and again; commit() / commit_records() between polls
// as Kafka acknowledges what was polled; stop() once when the task ends. A SourceTask
// is destroyed right after stop().
//
// Threading: every call on one SourceTask object comes from one thread at a time
// (the task's poller actor runs on its own thread, so a poll() that blocks for a
// little while, e.g. up to a poll interval of a second, is fine; a poll() that
// blocks much longer delays stopping the task). Different tasks are different
// objects, possibly running at the same time: share nothing mutable between them
// without a lock.
//
// Records: poll() appends records to a SourceOutput. Keys, values and headers are
// weir::data::Value with an optional schema (weir/data/value.hpp, schema.hpp), built in
// the output's arena(); the worker's converters then serialize them (JsonConverter,
// AvroConverter, ...) after the connector's SMTs, exactly as Kafka Connect does with
// a SourceRecord. There is no JSON text in between.
//
// Offsets: each record comes from a source partition (a map naming, e.g., a file)
// at a source offset (a map naming the position in it, e.g. a line number). A task
// states them with SourceOutput::set_offset(partition, offset) after appending the
// records that reach that offset; one call per partition per poll is enough, because
// weir commits offsets batch by batch, in order. weir stores them the way it stores
// its built-in sources' offsets: in the offsets topic (distributed mode and
// exactly-once) or the standalone offsets file, as Kafka Connect's JSON:
//   key ["<connector>",{"file":"a.log"}]   value {"line":42}
// so partition and offset values are primitives: null, boolean, integers, floats or
// strings. A partition's keys are stored sorted by name, whatever order they are given in.
//
// Resuming: start() receives an OffsetReader holding the offsets stored for the
// connector (Kafka Connect's OffsetStorageReader). Ask it for each partition the task
// reads and continue after the stored offset. What is stored is what Kafka held
// durably when the task last committed: after a crash (kill -9), the records polled
// after that are polled again. Delivery is at-least-once, unless the worker runs
// exactly-once sources (exactly.once.source.support=enabled) and the plugin declares
// ExactlyOnce::Supported: then records and offsets are written in one Kafka
// transaction, and a restart neither repeats nor skips a record, provided an offset
// names exactly the records before it (re-reading from it yields the same records).
//
// Acknowledgements (Kafka Connect's commit() and commitRecord()): commit_records(n)
// says the next n records poll() appended, in order, are durable in Kafka (or were
// dropped by an SMT, or skipped under errors.tolerance=all); commit(offsets) gives the
// offsets Kafka now holds durably. Both come between polls, on the poll thread. A
// source that must tell its origin how far it may forget (acknowledge a queue
// message, advance a replication slot) does it there, never earlier.
//
// Errors: throwing from start() or poll() fails the task: its status becomes FAILED
// with the exception's message as the trace; other tasks and connectors go on. A
// record poll() cannot represent (bad data) is the plugin's to skip or to fail on by
// throwing. An exception from commit(), commit_records() or stop() is logged.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weir/config.hpp"
#include "weir/data/arena.hpp"
#include "weir/data/schema.hpp"
#include "weir/data/value.hpp"

namespace weir {

/// A source partition or a source offset: Kafka Connect's Map<String, ?>. Values are
/// primitives (null, boolean, integer, float, string); a string value views memory
/// that must stay valid for the call it is passed to (see each call).
using SourceMap = std::vector<std::pair<std::string, data::Value>>;

/// A partition and the offset reached in it.
struct SourceOffset {
  SourceMap partition;
  SourceMap offset;
};

/// A task's config: the connector's config plus what task_configs() added.
using TaskConfig = std::map<std::string, std::string>;

/// Kafka Connect's ExactlyOnceSupport: whether the connector's offsets name every
/// record exactly, so that a transactional restart neither skips nor repeats one.
enum class ExactlyOnce : uint8_t { Unsupported, Supported };

/// The connector part: how the connector's work splits into tasks.
class SourceConnector {
public:
  virtual ~SourceConnector() = default;

  /// Kafka Connect's taskConfigs(maxTasks): at most `max_tasks` task configs, one per
  /// task to run. Each is merged over the connector's config (a key given here wins),
  /// so return only what differs per task (e.g. `files` = this task's share). Keys
  /// added here must be declared in the plugin's ConfigDef too (with a default), like
  /// every other key. Returning fewer configs than max_tasks runs fewer tasks.
  /// `config` is the connector's config parsed by the plugin's ConfigDef. Throwing
  /// fails the connector with the exception's message.
  virtual std::vector<TaskConfig> task_configs(const Config& config, int max_tasks) = 0;
};

/// Offsets weir stored for the connector: Kafka Connect's OffsetStorageReader.
class OffsetReader {
public:
  /// The offset stored for `partition` (compared by keys and values, in any order),
  /// or std::nullopt when none is. String values in the result stay valid until the
  /// task is destroyed.
  virtual std::optional<SourceMap> offset(const SourceMap& partition) const = 0;
  /// Every stored partition with its offset (e.g. to find partitions a task should
  /// pick up); same lifetime.
  virtual std::span<const SourceOffset> offsets() const = 0;

protected:
  ~OffsetReader() = default;
};

/// Where a task runs: for file names, client ids and log lines.
struct SourceContext {
  std::string connector; ///< the connector's `name`
  int task = 0;          ///< 0 .. tasks.max-1
};

/// One header of a record a source produces (Kafka Connect's Header).
struct SourceHeader {
  std::string_view key;
  data::Value value;
  data::SchemaPtr schema; ///< nullptr: schemaless
};

/// One record poll() appends: Kafka Connect's SourceRecord without its partition
/// and offset maps (those go to SourceOutput::set_offset). Strings, containers and
/// header keys must live in the output's arena() or in static storage; schemas are
/// kept alive by weir as long as the record needs them.
struct SourceRecord {
  std::string_view topic;
  data::Value key;
  data::SchemaPtr key_schema;   ///< nullptr: schemaless
  data::Value value;
  data::SchemaPtr value_schema; ///< nullptr: schemaless
  std::optional<int32_t> partition;  ///< std::nullopt: the producer's partitioner chooses
  std::optional<int64_t> timestamp;  ///< ms since the epoch; std::nullopt: the producer's clock
  std::vector<SourceHeader> headers;
};

/// What poll() appends to. Valid only during that poll() call.
class SourceOutput {
public:
  /// Where the records' strings and containers go (copy() a string there, build
  /// maps, arrays and structs with Value::map/array/structure(arena(), ...)).
  virtual data::Arena& arena() noexcept = 0;
  /// A copy of `s` in arena().
  std::string_view copy(std::string_view s) { return arena().copy(s); }

  /// False once this poll's batch is full (its record count or memory bound): return
  /// from poll() then, and continue in the next one. The first record always fits.
  virtual bool has_room() const noexcept = 0;
  /// Appends a record. Throws std::invalid_argument for an empty topic.
  virtual void add(SourceRecord record) = 0;
  /// Records appended so far in this poll.
  virtual size_t size() const noexcept = 0;

  /// The offset `partition` has reached with the records appended so far (Kafka
  /// Connect's sourcePartition / sourceOffset of the last of them). Call it after
  /// appending them; a later call for the same partition replaces it. The maps are
  /// rendered as JSON during the call: their strings may live anywhere until it
  /// returns. Throws std::invalid_argument for a value that is not a primitive.
  virtual void set_offset(const SourceMap& partition, const SourceMap& offset) = 0;

protected:
  ~SourceOutput() = default;
};

/// The base class of a source task. See the file comment for the contract.
class SourceTask {
public:
  enum class Poll : uint8_t {
    Ready, ///< appended what there was and more may be ready: poll again soon
    Idle,  ///< nothing more for now: weir polls again after a short pause
    End,   ///< the source is exhausted for good: weir polls this task no more; what it
           ///< polled is still delivered, and its offsets committed
  };

  virtual ~SourceTask() = default;

  /// Starts the task: `config` holds the task config parsed by the plugin's
  /// ConfigDef (typed getters; unknown keys were already rejected), plus the common
  /// keys in config.originals(); `offsets` holds the stored offsets (valid until the
  /// task is destroyed). Throw to fail the task.
  virtual void start(const Config& config, const SourceContext& context, const OffsetReader& offsets) = 0;

  /// Appends what is available now to `out`, then says whether more is. Keep it
  /// short: block at most about a second when nothing is there. Throw to fail the task.
  virtual Poll poll(SourceOutput& out) = 0;

  /// The offsets Kafka now holds durably for this task's partitions (every record up
  /// to them delivered, or committed with the transaction). Strings are valid until
  /// the call returns.
  virtual void commit(std::span<const SourceOffset> /*committed*/) {}

  /// The next `count` records poll() appended, in order, are done: durable in Kafka,
  /// or dropped by an SMT, or skipped by the error policy.
  virtual void commit_records(uint64_t /*count*/) {}

  /// Releases resources; called once when the task ends (also after a failure, as
  /// long as start() succeeded).
  virtual void stop() {}

  /// Why this task has nothing to read at all (e.g. more tasks than files), shown in
  /// its status; empty when it has work.
  virtual std::string idle_reason() const { return {}; }
};

} // namespace weir
