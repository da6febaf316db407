#include "weir/data/value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "runtime/data/base64.hpp"
#include "weir/data/schema.hpp"

namespace weir::data {

std::string_view to_string(Kind kind) noexcept {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Boolean: return "boolean";
    case Kind::Int8: return "int8";
    case Kind::Int16: return "int16";
    case Kind::Int32: return "int32";
    case Kind::Int64: return "int64";
    case Kind::Float32: return "float32";
    case Kind::Float64: return "float64";
    case Kind::String: return "string";
    case Kind::Bytes: return "bytes";
    case Kind::Array: return "array";
    case Kind::Map: return "map";
    case Kind::Struct: return "struct";
  }
  return "?";
}

std::string_view java_class_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Boolean: return "java.lang.Boolean";
    case Kind::Int8: return "java.lang.Byte";
    case Kind::Int16: return "java.lang.Short";
    case Kind::Int32: return "java.lang.Integer";
    case Kind::Int64: return "java.lang.Long";
    case Kind::Float32: return "java.lang.Float";
    case Kind::Float64: return "java.lang.Double";
    case Kind::String: return "java.lang.String";
    case Kind::Bytes: return "[B";
    case Kind::Array: return "java.util.ArrayList";
    case Kind::Map: return "java.util.HashMap";
    case Kind::Struct: return "org.apache.kafka.connect.data.Struct";
  }
  return "?";
}

void* Value::allocate_elements(Arena& arena, size_t count, size_t size) {
  static_assert(sizeof(Header) == 8 && alignof(Value) <= 8);
  auto* h = static_cast<Header*>(arena.allocate(sizeof(Header) + count * size, alignof(Header)));
  h->capacity = count;
  return h + 1;
}

Value Value::array(Arena& arena, uint32_t capacity) {
  Value v(Kind::Array);
  v.u_.items = static_cast<Value*>(allocate_elements(arena, capacity, sizeof(Value)));
  return v;
}

Value Value::map(Arena& arena, uint32_t capacity) {
  Value v(Kind::Map);
  v.u_.entries = static_cast<MapEntry*>(allocate_elements(arena, capacity, sizeof(MapEntry)));
  return v;
}

Value Value::structure(Arena& arena, const Schema& schema) {
  Value v(Kind::Struct);
  auto n = static_cast<uint32_t>(schema.fields().size());
  v.u_.items = static_cast<Value*>(allocate_elements(arena, n, sizeof(Value)));
  for (uint32_t i = 0; i < n; ++i)
    new (&v.u_.items[i]) Value();
  v.set_size(n);
  v.header()->schema = &schema;
  return v;
}

void Value::grow(Arena& arena, uint32_t min_capacity) {
  uint32_t cap = std::max<uint32_t>(min_capacity, capacity() ? capacity() * 2 : 4);
  if (kind() == Kind::Array) {
    auto* d = static_cast<Value*>(allocate_elements(arena, cap, sizeof(Value)));
    std::copy_n(u_.items, size(), d);
    u_.items = d;
  } else {
    auto* d = static_cast<MapEntry*>(allocate_elements(arena, cap, sizeof(MapEntry)));
    std::copy_n(u_.entries, size(), d);
    u_.entries = d;
  }
}

Value Value::array_of(Arena& arena, std::span<const Value> items, uint32_t slack) {
  Value v(Kind::Array);
  v.u_.items = static_cast<Value*>(allocate_elements(arena, items.size() + slack, sizeof(Value)));
  if (!items.empty())
    std::memcpy(static_cast<void*>(v.u_.items), items.data(), items.size_bytes());
  v.set_size(static_cast<uint32_t>(items.size()));
  return v;
}

Value Value::map_of(Arena& arena, std::span<const MapEntry> entries, uint32_t slack) {
  Value v(Kind::Map);
  v.u_.entries = static_cast<MapEntry*>(allocate_elements(arena, entries.size() + slack, sizeof(MapEntry)));
  if (!entries.empty())
    std::memcpy(static_cast<void*>(v.u_.entries), entries.data(), entries.size_bytes());
  v.set_size(static_cast<uint32_t>(entries.size()));
  return v;
}

void Value::put(Arena& arena, std::string_view key, Value v) { put(arena, Value::string(key), v); }



bool Value::erase(std::string_view key) noexcept {
  for (uint32_t i = 0; i < size(); ++i) {
    auto& e = u_.entries[i];
    if (e.key.kind() == Kind::String && e.key.as_string() == key) {
      std::copy(u_.entries + i + 1, u_.entries + size(), u_.entries + i);
      --meta_;
      return true;
    }
  }
  return false;
}

Value* Value::field(std::string_view name) const noexcept {
  if (kind() != Kind::Struct)
    return nullptr;
  const Field* f = header()->schema->field(name);
  return f ? &u_.items[f->index] : nullptr;
}

Value Value::deep_copy(Arena& arena) const {
  Value out = *this;
  switch (kind()) {
    case Kind::String:
    case Kind::Bytes: {
      auto s = arena.copy(as_string());
      out.u_.s = s.data();
      break;
    }
    case Kind::Array:
    case Kind::Struct: {
      auto* d = static_cast<Value*>(allocate_elements(arena, size(), sizeof(Value)));
      for (uint32_t i = 0; i < size(); ++i)
        d[i] = u_.items[i].deep_copy(arena);
      out.u_.items = d;
      if (kind() == Kind::Struct)
        out.header()->schema = header()->schema;
      break;
    }
    case Kind::Map: {
      auto* d = static_cast<MapEntry*>(allocate_elements(arena, size(), sizeof(MapEntry)));
      for (uint32_t i = 0; i < size(); ++i)
        d[i] = {u_.entries[i].key.deep_copy(arena), u_.entries[i].value.deep_copy(arena)};
      out.u_.entries = d;
      break;
    }
    default:
      break;
  }
  return out;
}

bool operator==(const Value& a, const Value& b) noexcept {
  if (a.kind() != b.kind() || a.size() != b.size())
    return false;
  switch (a.kind()) {
    case Kind::Null: return true;
    case Kind::Boolean: return a.u_.b == b.u_.b;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64: return a.u_.i == b.u_.i;
    case Kind::Float32: return a.u_.f == b.u_.f || (std::isnan(a.u_.f) && std::isnan(b.u_.f));
    case Kind::Float64: return a.u_.d == b.u_.d || (std::isnan(a.u_.d) && std::isnan(b.u_.d));
    case Kind::String:
    case Kind::Bytes: return a.as_string() == b.as_string();
    case Kind::Struct: {
      const auto& fa = a.schema()->fields();
      const auto& fb = b.schema()->fields();
      for (size_t i = 0; i < fa.size(); ++i)
        if (fa[i].name != fb[i].name)
          return false;
      [[fallthrough]];
    }
    case Kind::Array:
      return std::equal(a.u_.items, a.u_.items + a.size(), b.u_.items);
    case Kind::Map:
      // Maps compare as sets of entries (order-insensitive), as Java's Map.equals.
      for (uint32_t i = 0; i < a.size(); ++i) {
        const auto& e = a.u_.entries[i];
        bool found = false;
        for (uint32_t j = 0; j < b.size() && !found; ++j)
          found = b.u_.entries[j].key == e.key && b.u_.entries[j].value == e.value;
        if (!found)
          return false;
      }
      return true;
  }
  return false;
}

namespace {

void debug(const Value& v, std::string& out) {
  switch (v.kind()) {
    case Kind::Null: out += "null"; break;
    case Kind::Boolean: out += v.as_bool() ? "true" : "false"; break;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64: out += std::to_string(v.as_int()); break;
    case Kind::Float32:
    case Kind::Float64: {
      char buf[64];
      auto r = v.kind() == Kind::Float32 ? std::to_chars(buf, buf + sizeof buf, v.as_float32())
                                          : std::to_chars(buf, buf + sizeof buf, v.as_double());
      out.append(buf, r.ptr);
      break;
    }
    case Kind::String:
      out += '"';
      out += v.as_string();
      out += '"';
      break;
    case Kind::Bytes:
      out += "b64:";
      out += runtime::data::base64_encode(v.as_string());
      break;
    case Kind::Array: {
      out += '[';
      bool first = true;
      for (const auto& x : v.items()) {
        if (!first)
          out += ',';
        first = false;
        debug(x, out);
      }
      out += ']';
      break;
    }
    case Kind::Map: {
      out += '{';
      bool first = true;
      for (const auto& e : v.entries()) {
        if (!first)
          out += ',';
        first = false;
        debug(e.key, out);
        out += ':';
        debug(e.value, out);
      }
      out += '}';
      break;
    }
    case Kind::Struct: {
      out += "Struct{";
      const auto& fields = v.schema()->fields();
      bool first = true;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!first)
          out += ',';
        first = false;
        out += fields[i].name;
        out += '=';
        debug(v.fields()[i], out);
      }
      out += '}';
      break;
    }
  }
}

} // namespace

std::string to_debug_string(const Value& v) {
  std::string out;
  debug(v, out);
  return out;
}

} // namespace weir::data
