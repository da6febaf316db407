// Source offsets in a Kafka topic, in Kafka Connect's format, so that exactly-once
// source tasks can write them in the same transaction as their records:
//   key   ["<connector>", <source partition JSON>]
//   value <source offset JSON>   (null: the partition's offset was removed)
// Read back with isolation.level=read_committed, the topic holds exactly the
// offsets of committed transactions: that is the truth a restarted task resumes
// from, whatever a local file says.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "runtime/kafka/client_config.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

/// `["connector",partition]`: Kafka Connect's offset key.
std::string offset_record_key(std::string_view connector, std::string_view partition);

/// The partition JSON of a key written for `connector`; empty when the key belongs
/// to another connector or is not an offset key.
std::string_view partition_of_key(std::string_view key, std::string_view connector);

/// Every committed offset of `connector` in `topic` (latest per partition), read
/// with read_committed up to the end of every partition. A missing topic is empty.
/// Throws kafka::KafkaError when the topic cannot be read within `timeout`.
OffsetMap read_offsets_topic(const kafka::Properties& props, const std::string& topic,
                             std::string_view connector,
                             std::chrono::milliseconds timeout = std::chrono::seconds{30});

} // namespace weir::engine::pipeline
