// The SDK version a plugin is compiled against.
//
// It names the binary interface between weir and a plugin: the layout of the types in
// these headers (the data model's Value, Schema and Arena, RecordData and Record,
// SinkRecord with its decoded record, SinkBatch, SinkInput, the async sink's
// BatchCompletion and BatchOutcome, the source API's SourceMap, SourceOffset,
// SourceRecord, SourceHeader, SourceOutput and OffsetReader, the descriptors with
// their input and in-flight fields, every vtable: Sink, AsyncSink, SourceConnector,
// SourceTask, Transformation, Predicate, Converter, HeaderConverter, PluginRegistrar)
// and the functions of libweir_sdk. weir loads a plugin only when the version the plugin was
// built with (what its weir_plugin_sdk_version() returns) equals its own; any change
// to those types bumps it, so a stale plugin is refused at start-up with both
// versions named instead of crashing on a mismatched layout later.
#pragma once

/// The SDK's binary-interface version (also the soname version of libweir_sdk).
#define WEIR_SDK_VERSION 3

namespace weir {

inline constexpr int sdk_version = WEIR_SDK_VERSION;

} // namespace weir
