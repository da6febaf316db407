// Kafka Connect's data model, arena-backed and mutable: the values SMTs work on.
//
// A Value is a 16-byte tagged node: scalars inline, strings/bytes as a view, arrays,
// maps and structs as an element array in the batch's Arena (preceded by one word
// holding the capacity, or a struct's schema). It is trivially copyable and never
// owns memory: copying a Value copies a reference to the same elements (use
// deep_copy() for an independent copy). 16 bytes matter: a Value is passed and
// returned in two registers, which keeps the decoder free of store-forwarding stalls.
//
// Kinds follow Connect's schema types. Logical types are carried by the schema, the
// value holds their underlying form, exactly what the JsonConverter writes:
//   Decimal   -> Bytes: unscaled big-endian two's complement, scale in the schema
//   Date      -> Int32: days since the epoch
//   Time      -> Int32: milliseconds since midnight
//   Timestamp -> Int64: milliseconds since the epoch
//
// Lifetime: string/bytes views and element arrays must live in the record's batch
// arena (or in static storage) for as long as the value is in the batch. Mutators
// that may grow a container take that Arena. A struct value points to its schema;
// that schema must be owned by the record's root schema (DecodedBatch::retain).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "weir/data/arena.hpp"
#include "weir/data/bytes.hpp"

namespace weir::data {

class Schema;
struct MapEntry;

enum class Kind : uint8_t {
  Null, Boolean, Int8, Int16, Int32, Int64, Float32, Float64, String, Bytes, Array, Map, Struct
};

/// Lower-case name used in messages ("int32", "map", ...).
std::string_view to_string(Kind kind) noexcept;
/// The Java class Kafka Connect uses for a kind (`java.lang.Integer`, `[B`, ...), for
/// messages that must read like Kafka's (`found: java.lang.String`).
std::string_view java_class_name(Kind kind) noexcept;

class Value {
public:
  constexpr Value() noexcept = default; ///< null

  static Value boolean(bool b) noexcept { Value v(Kind::Boolean); v.u_.b = b; return v; }
  static Value int8(int8_t i) noexcept { return integer(Kind::Int8, i); }
  static Value int16(int16_t i) noexcept { return integer(Kind::Int16, i); }
  static Value int32(int32_t i) noexcept { return integer(Kind::Int32, i); }
  static Value int64(int64_t i) noexcept { return integer(Kind::Int64, i); }
  /// An integer of an integral kind; the caller has narrowed `i` to fit.
  static Value integer(Kind kind, int64_t i) noexcept { Value v(kind); v.u_.i = i; return v; }
  static Value float32(float f) noexcept { Value v(Kind::Float32); v.u_.f = f; return v; }
  static Value float64(double d) noexcept { Value v(Kind::Float64); v.u_.d = d; return v; }
  /// A string viewing `s` (not copied: see the lifetime rules above).
  static Value string(std::string_view s) noexcept { return view(Kind::String, s); }
  static Value bytes(std::string_view s) noexcept { return view(Kind::Bytes, s); }
  /// A string known to need no JSON escaping (no quote, backslash or control
  /// character): encoders copy it as is. Decoders mark the strings they view in place.
  static Value plain_string(std::string_view s) noexcept {
    Value v = view(Kind::String, s);
    v.meta_ |= plain_flag;
    return v;
  }
  bool is_plain() const noexcept { return (meta_ & plain_flag) != 0; }
  /// A schemaless Int64 of milliseconds since the epoch that Java would hold as a
  /// java.util.Date (what TimestampConverter writes for Date, Time and Timestamp
  /// without a schema): a later TimestampConverter reads it as a Timestamp, not as a
  /// Unix number. Everything else sees an ordinary Int64.
  static Value java_date(int64_t millis) noexcept {
    Value v = int64(millis);
    v.meta_ |= java_date_flag;
    return v;
  }
  bool is_java_date() const noexcept { return (meta_ & java_date_flag) != 0; }
  /// Empty containers with room for `capacity` elements.
  static Value array(Arena& arena, uint32_t capacity);
  static Value map(Arena& arena, uint32_t capacity);
  /// Containers holding copies of `items` / `entries`, with room for `slack` more.
  static Value array_of(Arena& arena, std::span<const Value> items, uint32_t slack = 0);
  static Value map_of(Arena& arena, std::span<const MapEntry> entries, uint32_t slack = 0);
  /// A struct of `schema` (a Struct schema) with every field null.
  static Value structure(Arena& arena, const Schema& schema);

  Kind kind() const noexcept { return static_cast<Kind>((meta_ >> 32) & 0xFF); }
  bool is_null() const noexcept { return kind() == Kind::Null; }
  bool is_integer() const noexcept { return kind() >= Kind::Int8 && kind() <= Kind::Int64; }
  bool is_floating() const noexcept { return kind() == Kind::Float32 || kind() == Kind::Float64; }
  bool is_number() const noexcept { return is_integer() || is_floating(); }

  // Scalar access; calling the wrong one for the kind is a programming error.
  bool as_bool() const noexcept { return u_.b; }
  int64_t as_int() const noexcept { return u_.i; } ///< any integral kind
  float as_float32() const noexcept { return u_.f; }
  double as_double() const noexcept { return kind() == Kind::Float32 ? u_.f : u_.d; }
  std::string_view as_string() const noexcept { return {u_.s, size()}; } ///< String or Bytes

  /// Element count of a container, length of a string or bytes.
  uint32_t size() const noexcept { return static_cast<uint32_t>(meta_); }

  // Arrays.
  std::span<Value> items() const noexcept { return {u_.items, size()}; }
  void push_back(Arena& arena, Value v) {
    if (size() == capacity()) [[unlikely]]
      grow(arena, size() + 1);
    u_.items[size()] = v;
    ++meta_;
  }

  // Maps (Connect maps may have keys of any kind; JSON objects have string keys).
  std::span<MapEntry> entries() const noexcept;
  /// The value under a string key, or nullptr.
  Value* find(std::string_view key) const noexcept {
    // One compare of the meta word (kind and length) rejects most entries.
    const uint64_t want = (static_cast<uint64_t>(Kind::String) << 32) | key.size();
    MapEntry* e = u_.entries;
    for (uint32_t i = 0, n = size(); i < n; ++i)
      if ((entry_key_meta(e, i) & ~plain_flag) == want && equal_bytes(entry_key_text(e, i), key.data(), key.size()))
        return entry_value(e, i);
    return nullptr;
  }
  /// Sets a string key (its bytes must live as long as the batch: arena, static, or
  /// an owner the batch keeps alive).
  void put(Arena& arena, std::string_view key, Value v);
  /// Same, with a ready-made String key (e.g. a plain_string an SMT prepared once).
  void put(Arena& arena, Value key, Value v);
  /// Appends an entry without checking for an existing key.
  void append(Arena& arena, Value key, Value v);  // defined after MapEntry
  /// Same, to a map known to have room for it (made with a capacity its caller
  /// counts against): no growth path, so a caller's map can live in registers.
  void append_within(Value key, Value v) noexcept;
  /// Removes a string key; false when absent. Keeps the order of the other entries.
  bool erase(std::string_view key) noexcept;
  /// Keeps the first `n` elements (arrays, maps).
  void truncate(uint32_t n) noexcept { if (n < size()) set_size(n); }

  // Structs: field values in schema field order.
  const Schema* schema() const noexcept { return kind() == Kind::Struct ? header()->schema : nullptr; }
  std::span<Value> fields() const noexcept { return {u_.items, size()}; }
  /// The value of a named field, or nullptr if the schema has no such field.
  Value* field(std::string_view name) const noexcept;

  /// An independent copy of this value's tree in `arena` (strings copied too).
  Value deep_copy(Arena& arena) const;

  /// Structural equality (kind and content; struct schemas compared by field names).
  friend bool operator==(const Value& a, const Value& b) noexcept;

private:
  explicit constexpr Value(Kind k) noexcept : meta_(static_cast<uint64_t>(k) << 32) {}
  void set_size(uint32_t n) noexcept { meta_ = (meta_ & ~uint64_t{0xFFFFFFFF}) | n; }
  // MapEntry is incomplete here; these are defined after it.
  static uint64_t entry_key_meta(const MapEntry* e, uint32_t i) noexcept;
  static const char* entry_key_text(const MapEntry* e, uint32_t i) noexcept;
  static Value* entry_value(MapEntry* e, uint32_t i) noexcept;
  // The word before a container's elements.
  union Header {
    uint64_t capacity;    ///< arrays and maps
    const Schema* schema; ///< structs
  };
  Header* header() const noexcept { return reinterpret_cast<Header*>(u_.items) - 1; }
  uint32_t capacity() const noexcept { return static_cast<uint32_t>(header()->capacity); }
  static void* allocate_elements(Arena& arena, size_t count, size_t size);
  static Value view(Kind k, std::string_view s) noexcept {
    Value v(k);
    v.u_.s = s.data();
    v.set_size(static_cast<uint32_t>(s.size()));
    return v;
  }
  void grow(Arena& arena, uint32_t min_capacity);

  union {
    bool b;
    int64_t i;
    float f;
    double d;
    const char* s;
    Value* items;      ///< never null for containers: the header precedes it
    MapEntry* entries;
  } u_{.i = 0};
  // Size (low 32 bits) and kind (next 8) in one word: a Value is two plain words,
  // which compilers keep in registers and store whole (no byte-wise temporaries
  // reloaded as vectors: those defeat store forwarding).
  uint64_t meta_ = 0;
  static constexpr uint64_t plain_flag = uint64_t{1} << 40;
  static constexpr uint64_t java_date_flag = uint64_t{1} << 41;
};

struct MapEntry {
  Value key;
  Value value;
};

inline std::span<MapEntry> Value::entries() const noexcept { return {u_.entries, size()}; }
inline uint64_t Value::entry_key_meta(const MapEntry* e, uint32_t i) noexcept { return e[i].key.meta_; }
inline const char* Value::entry_key_text(const MapEntry* e, uint32_t i) noexcept { return e[i].key.u_.s; }
inline Value* Value::entry_value(MapEntry* e, uint32_t i) noexcept { return &e[i].value; }

// Inline: SMTs put a field or two per record, and a call cost as much as the scan
// of a ten-entry map it makes (saving the registers the byte compare needs).
inline void Value::put(Arena& arena, Value key, Value v) {
  if (auto* existing = find(key.as_string())) {
    *existing = v;
    return;
  }
  append(arena, key, v);
}

inline void Value::append(Arena& arena, Value key, Value v) {
  if (size() == capacity()) [[unlikely]]
    grow(arena, size() + 1);
  u_.entries[size()] = MapEntry{key, v};
  ++meta_;
}

inline void Value::append_within(Value key, Value v) noexcept {
  u_.entries[size()] = MapEntry{key, v};
  ++meta_;
}

static_assert(sizeof(Value) == 16);
static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_destructible_v<Value>);

/// A growable array in an arena, for lists that are not Values (e.g. headers).
template <class T>
class ArenaVector {
public:
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::span<T> items() const noexcept { return {data_, size_}; }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + size_; }
  uint32_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](size_t i) const noexcept { return data_[i]; }

  void push_back(Arena& arena, const T& x) {
    if (size_ == capacity_) {
      uint32_t cap = capacity_ == 0 ? 4 : capacity_ * 2;
      T* d = arena.allocate_array<T>(cap);
      if (size_ != 0)
        std::memcpy(static_cast<void*>(d), data_, size_ * sizeof(T));
      data_ = d;
      capacity_ = cap;
    }
    data_[size_++] = x;
  }
  /// Removes every element for which `pred` holds, keeping the others' order.
  template <class Pred>
  uint32_t erase_if(Pred pred) {
    uint32_t out = 0;
    for (uint32_t i = 0; i < size_; ++i)
      if (!pred(data_[i]))
        data_[out++] = data_[i];
    uint32_t removed = size_ - out;
    size_ = out;
    return removed;
  }
  void clear() noexcept { size_ = 0; }

private:
  T* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

/// Renders a value as compact JSON-like text for messages and tests (not a converter:
/// bytes show as base64, struct as an object).
std::string to_debug_string(const Value& v);

} // namespace weir::data
