// What both JDBC sink writers (SQLite's and PostgreSQL's) do alike with a batch: where
// each record was consumed from, the per-partition offsets a transaction advances, the
// operation a record asks for, a cache of the tables its topics map to, and the shape
// (operation and columns) their cached statements are built for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "connectors/jdbc/row_mapper.hpp"
#include "connectors/jdbc/sql_text.hpp"
#include "runtime/data/decoded_batch.hpp"

namespace weir::connectors::jdbc {

/// A record's consumed position: the raw record's, which an SMT re-routing the record
/// to another topic (and so another table) leaves alone.
struct Position {
  std::string_view topic;
  int32_t partition;
  int64_t offset;
  bool known() const noexcept { return partition >= 0 && offset >= 0; }
};
Position consumed_position(const runtime::data::DecodedBatch& batch, const runtime::data::DecodedRecord& r) noexcept;

/// The operation for a record: Delete for a tombstone, else what insert.mode says.
Op operation(const JdbcSinkConfig& config, bool tombstone) noexcept;

/// One topic-partition of the batch being written.
struct OffsetSlot {
  std::string_view topic; ///< views the batch
  int32_t partition;
  int64_t stored_next; ///< -1: nothing stored
  int64_t max_offset;  ///< -1: no record at or above stored_next
};

/// The batch's topic-partitions, found with a one-entry cache (records come in runs).
class OffsetSlots {
public:
  void clear() noexcept { slots_.clear(), last_ = 0; }
  /// The slot of topic-partition, added with `stored_next` when new.
  OffsetSlot& at(std::string_view topic, int32_t partition, int64_t stored_next = -1);
  OffsetSlot* find(std::string_view topic, int32_t partition) noexcept;
  std::vector<OffsetSlot>::iterator begin() noexcept { return slots_.begin(); }
  std::vector<OffsetSlot>::iterator end() noexcept { return slots_.end(); }
  bool empty() const noexcept { return slots_.empty(); }

private:
  std::vector<OffsetSlot> slots_;
  size_t last_ = 0;
};

/// table.name.format gave `topic` an empty table name.
runtime::data::DataError empty_table_name(const JdbcSinkConfig& config, std::string_view topic);

/// A statement's shape: the operation and the row's column names, keys first.
struct ColumnSet {
  Op op = Op::Insert;
  uint32_t key_count = 0;
  std::vector<std::string> columns;

  void assign(Op o, const Row& row);
  bool matches(Op o, const Row& row) const noexcept;
};

/// The tables topics map to under table.name.format, each made once by name (several
/// topics may share one table). `Table` needs a `name` member.
template <class Table>
class TableCache {
public:
  /// The table of `topic`; `make(name)` builds a missing one. Throws DataError when
  /// the format gives an empty name.
  template <class Make>
  Table& of(const JdbcSinkConfig& config, std::string_view topic, Make&& make) {
    if (last_ < topics_.size() && topics_[last_].topic == topic) return *topics_[last_].table;
    for (size_t i = 0; i < topics_.size(); ++i)
      if (topics_[i].topic == topic) return *topics_[last_ = i].table;
    std::string name = config.table_name(topic);
    if (name.empty()) throw empty_table_name(config, topic);
    Table* table = nullptr;
    for (auto& t : tables_)
      if (t->name == name) table = t.get();
    if (!table) {
      tables_.push_back(make(std::move(name)));
      table = tables_.back().get();
    }
    topics_.push_back({std::string(topic), table});
    last_ = topics_.size() - 1;
    return *table;
  }
  void clear() noexcept { tables_.clear(), topics_.clear(), last_ = 0; }
  std::vector<std::unique_ptr<Table>>& tables() noexcept { return tables_; }

private:
  struct TopicTable {
    std::string topic;
    Table* table;
  };
  std::vector<std::unique_ptr<Table>> tables_;
  std::vector<TopicTable> topics_;
  size_t last_ = 0;
};

} // namespace weir::connectors::jdbc
