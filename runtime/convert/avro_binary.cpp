#include "runtime/convert/avro_binary.hpp"

#include <bit>
#include <climits>
#include <cstring>

#include "runtime/data/errors.hpp"

namespace weir::runtime::convert::avro {

using namespace runtime::data;

namespace {

class Reader {
public:
  Reader(std::string_view in, Arena& arena) : p_(in.data()), end_(in.data() + in.size()), arena_(arena) {}

  bool done() const noexcept { return p_ == end_; }

  int64_t read_long() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_)
        truncated();
      auto b = static_cast<uint8_t>(*p_++);
      v |= uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0)
        return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    }
    throw DataError("Invalid Avro data: a varint longer than 10 bytes");
  }

  std::string_view read_bytes(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n)
      truncated();
    std::string_view s(p_, n);
    p_ += n;
    return s;
  }

  std::string_view read_length_prefixed() {
    int64_t n = read_long();
    if (n < 0)
      throw DataError("Invalid Avro data: negative length " + std::to_string(n));
    return read_bytes(static_cast<size_t>(n));
  }

  // The next block's item count (0 at the end); skips a block's byte size. A count
  // the remaining bytes cannot hold is refused before anything is allocated for it.
  int64_t block_count(const Node& item) {
    int64_t n = read_long();
    if (n < 0) {
      if (n == INT64_MIN)
        throw DataError("Invalid Avro data: block count out of range");
      n = -n;
      read_long();
    }
    const auto left = static_cast<int64_t>(end_ - p_);
    if (n > (can_be_empty(item) ? int64_t{1} << 24 : left))
      throw DataError("Invalid Avro data: a block of " + std::to_string(n) + " items in " + std::to_string(left) +
                      " bytes");
    return n;
  }

  // Whether a value of `n` may take no bytes at all (null, a record of such fields,
  // an empty fixed): only those let a block claim more items than bytes remain.
  static bool can_be_empty(const Node& n) {
    switch (n.type) {
      case Node::Type::Null: return true;
      case Node::Type::Fixed: return n.fixed_size == 0;
      case Node::Type::Record:
        for (const Node* c : n.children)
          if (!can_be_empty(*c))
            return false;
        return true;
      default: return false;
    }
  }

  Value value(const Node& n) {
    const Schema& s = *n.connect;
    switch (n.type) {
      case Node::Type::Null: return Value();
      case Node::Type::Boolean: return Value::boolean(read_bytes(1)[0] != 0);
      case Node::Type::Int: {
        int64_t v = read_long();
        if (v < INT32_MIN || v > INT32_MAX)
          throw DataError("Invalid Avro data: int out of range: " + std::to_string(v));
        return Value::integer(kind_of(s.type()), v);
      }
      case Node::Type::Long: return Value::int64(read_long());
      case Node::Type::Float: {
        float f;
        std::memcpy(&f, read_bytes(4).data(), 4);
        return Value::float32(f);
      }
      case Node::Type::Double: {
        double d;
        std::memcpy(&d, read_bytes(8).data(), 8);
        return Value::float64(d);
      }
      case Node::Type::String: return Value::string(read_length_prefixed());
      case Node::Type::Bytes: return Value::bytes(read_length_prefixed());
      case Node::Type::Fixed: return Value::bytes(read_bytes(static_cast<size_t>(n.fixed_size)));
      case Node::Type::Enum: {
        int64_t i = read_long();
        if (i < 0 || static_cast<size_t>(i) >= n.symbols.size())
          throw DataError("Invalid Avro data: enum index " + std::to_string(i) + " out of range");
        return Value::string(arena_.copy(n.symbols[static_cast<size_t>(i)]));
      }
      case Node::Type::Record: {
        Value v = Value::structure(arena_, s);
        auto fields = v.fields();
        for (size_t i = 0; i < n.children.size(); ++i)
          fields[i] = value(*n.children[i]);
        return v;
      }
      case Node::Type::Array: {
        if (n.map_entries) {
          const Node& entry = *n.children[0];
          Value m = Value::map(arena_, 0);
          for (int64_t c = block_count(entry); c != 0; c = block_count(entry))
            for (int64_t i = 0; i < c; ++i) {
              Value k = value(*entry.children[0]);
              m.append(arena_, k, value(*entry.children[1]));
            }
          return m;
        }
        Value a = Value::array(arena_, 0);
        for (int64_t c = block_count(*n.children[0]); c != 0; c = block_count(*n.children[0]))
          for (int64_t i = 0; i < c; ++i)
            a.push_back(arena_, value(*n.children[0]));
        return a;
      }
      case Node::Type::Map: {
        Value m = Value::map(arena_, 0);
        // Each entry has at least its key's length byte.
        for (int64_t c = block_count(n); c != 0; c = block_count(n))
          for (int64_t i = 0; i < c; ++i) {
            Value k = Value::string(read_length_prefixed());
            m.append(arena_, k, value(*n.children[0]));
          }
        return m;
      }
      case Node::Type::Union: {
        int64_t i = read_long();
        if (i < 0 || static_cast<size_t>(i) >= n.children.size())
          throw DataError("Invalid Avro data: union branch " + std::to_string(i) + " out of range");
        const Node& branch = *n.children[static_cast<size_t>(i)];
        if (!n.union_struct || branch.type == Node::Type::Null)
          return value(branch);
        Value v = Value::structure(arena_, s);
        v.fields()[static_cast<size_t>(n.union_field[static_cast<size_t>(i)])] = value(branch);
        return v;
      }
    }
    return Value();
  }

private:
  [[noreturn]] static void truncated() { throw DataError("Invalid Avro data: the record ends early"); }

  const char* p_;
  const char* end_;
  Arena& arena_;
};

// Avro's float and double: IEEE 754, little-endian (this machine's order).
static_assert(std::endian::native == std::endian::little, "floats are copied as they are in memory");
template <class T>
void write_raw(T v, std::string& out) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void write_bytes(std::string_view s, std::string& out) {
  write_long(static_cast<int64_t>(s.size()), out);
  out.append(s);
}

void expect(const Schema& s, const Value& v, Kind kind) {
  if (v.kind() != kind)
    throw DataError("Invalid Java object for schema with type " + std::string(to_string(s.type())) + ": " +
                    std::string(java_class_name(v.kind())));
}

void write_value(const Schema& s, const Value& v, bool optional, std::string& out, bool enums);

// A value of a schema taken as required (the union index, if any, is written).
// With enhanced.avro.schema.support, a string carrying io.confluent.connect.avro.Enum
// parameters is an Avro enum: its symbol's index, symbols in parameter order.
void write_enum(const Schema& s, const Value& v, std::string& out) {
  const std::string prefix = std::string(enum_parameter) + ".";
  int64_t index = 0;
  std::string symbols;
  for (const auto& [k, sym] : *s.parameters()) {
    if (!k.starts_with(prefix))
      continue;
    const std::string_view symbol = std::string_view(k).substr(prefix.size());
    if (symbol == v.as_string()) {
      write_long(index, out);
      return;
    }
    symbols += (index++ ? ", " : "");
    symbols += symbol;
  }
  throw DataError("\"" + std::string(v.as_string()) + "\" is not a symbol of Avro enum " +
                  *s.parameter(enum_parameter) + " (" + symbols + ")");
}

void write_required(const Schema& s, const Value& v, std::string& out, bool enums) {
  switch (s.type()) {
    case Type::Int8: case Type::Int16: case Type::Int32: case Type::Int64:
      expect(s, v, kind_of(s.type()));
      write_long(v.as_int(), out);
      return;
    case Type::Float32: expect(s, v, Kind::Float32); write_raw(v.as_float32(), out); return;
    case Type::Float64: expect(s, v, Kind::Float64); write_raw(v.as_double(), out); return;
    case Type::Boolean: expect(s, v, Kind::Boolean); out += v.as_bool() ? '\1' : '\0'; return;
    case Type::String:
      expect(s, v, Kind::String);
      if (enums && s.parameter(enum_parameter))
        write_enum(s, v, out);
      else
        write_bytes(v.as_string(), out);
      return;
    case Type::Bytes: expect(s, v, Kind::Bytes); write_bytes(v.as_string(), out); return;
    case Type::Array:
      expect(s, v, Kind::Array);
      if (v.size() != 0) {
        write_long(v.size(), out);
        for (const auto& item : v.items())
          write_value(*s.value_schema(), item, s.value_schema()->optional(), out, enums);
      }
      out += '\0';
      return;
    case Type::Map:
      expect(s, v, Kind::Map);
      if (v.size() != 0) {
        const bool avro_map = s.key_schema()->type() == Type::String && !s.key_schema()->optional();
        write_long(v.size(), out);
        for (const auto& e : v.entries()) {
          if (avro_map)
            write_required(*s.key_schema(), e.key, out, enums);
          else
            write_value(*s.key_schema(), e.key, s.key_schema()->optional(), out, enums);
          write_value(*s.value_schema(), e.value, s.value_schema()->optional(), out, enums);
        }
      }
      out += '\0';
      return;
    case Type::Struct: {
      expect(s, v, Kind::Struct);
      if (s.name() && *s.name() == union_struct_name) {
        // The branch is the one field set; write_value wrote the null branch.
        for (const auto& f : s.fields())
          if (!v.fields()[f.index].is_null()) {
            write_long(f.index + (s.optional() ? 1 : 0), out);
            write_required(*f.schema, v.fields()[f.index], out, enums);
            return;
          }
        throw DataError("Invalid io.confluent.connect.avro.Union value: no field is set");
      }
      for (const auto& f : s.fields()) {
        const Value* field = &v.fields()[f.index];
        if (field->is_null() && f.schema->default_value())
          field = f.schema->default_value(); // Struct.get gives the default
        write_value(*f.schema, *field, f.schema->optional(), out, enums);
      }
      return;
    }
  }
}

void write_value(const Schema& s, const Value& v, bool optional, std::string& out, bool enums) {
  if (!optional) {
    if (v.is_null())
      throw DataError("Conversion error: null value for field that is required and has no default value");
    write_required(s, v, out, enums);
    return;
  }
  const bool union_struct = s.type() == Type::Struct && s.name() && *s.name() == union_struct_name;
  // ["null", T], or [T, "null"] for a non-struct with a default (avro_schema.cpp).
  const bool null_last = !union_struct && s.type() != Type::Struct && s.default_value() != nullptr;
  if (v.is_null()) {
    if (union_struct)
      out += '\0';
    else
      write_long(null_last ? 1 : 0, out);
    return;
  }
  if (!union_struct)
    write_long(null_last ? 0 : 1, out);
  write_required(s, v, out, enums);
}

} // namespace

void write_long(int64_t v, std::string& out) {
  auto z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out += static_cast<char>((z & 0x7F) | 0x80);
    z >>= 7;
  }
  out += static_cast<char>(z);
}

Value decode(const Node& root, std::string_view in, Arena& arena) {
  Reader r(in, arena);
  Value v = r.value(root);
  if (!r.done())
    throw DataError("Invalid Avro data: " + std::to_string(in.size()) + " bytes hold more than one value of the schema");
  return v;
}

void encode(const Schema& schema, const Value& v, std::string& out, bool enums) {
  write_value(schema, v, schema.optional(), out, enums);
}

} // namespace weir::runtime::convert::avro
