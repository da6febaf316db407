// Standalone mode's state: connector configs, status and source offsets in one
// SQLite file (the worker's offset.storage.file.filename), so a restarted process
// resumes where it stopped and the admin tools see what ran and how it ended.
//
// Source offsets are Kafka Connect's: per connector, source partition (JSON text)
// -> source offset (JSON text). A flush writes a set of them in one transaction.
#pragma once

#include <map>
#include <string>
#include <vector>

struct sqlite3;

namespace weir::runtime::state {

class StandaloneStore {
public:
  /// Opens or creates the database (WAL); throws std::runtime_error naming the file.
  explicit StandaloneStore(const std::string& path);
  ~StandaloneStore();
  StandaloneStore(const StandaloneStore&) = delete;
  StandaloneStore& operator=(const StandaloneStore&) = delete;

  void put_connector(const std::string& name, const std::map<std::string, std::string>& config);
  void set_connector_status(const std::string& name, const std::string& state);
  /// Forgets a deleted connector's config and statuses (its source offsets stay, as
  /// in Kafka Connect: a connector created again under the name resumes from them).
  void delete_connector(const std::string& name);
  /// `trace` is the failure reason for FAILED, a note (e.g. idle) otherwise.
  void set_task_status(const std::string& connector, int task, const std::string& state,
                       const std::string& trace);

  /// Stores `offsets` (partition JSON -> offset JSON) of `connector` atomically.
  void put_source_offsets(const std::string& connector,
                          const std::map<std::string, std::string>& offsets);
  /// Forgets `partitions` (partition JSON texts) of `connector`, or all of them.
  void delete_source_offsets(const std::string& connector,
                             const std::vector<std::string>& partitions = {});
  /// Every stored source offset of `connector`.
  std::map<std::string, std::string> source_offsets(const std::string& connector);

  /// "RUNNING", "FAILED", ... or "" when unknown (for tests and tools).
  std::string task_state(const std::string& connector, int task, std::string* trace = nullptr);

private:
  void exec(const char* sql);

  std::string path_;
  sqlite3* db_ = nullptr;
};

} // namespace weir::runtime::state
