#include "runtime/convert/avro_binary.hpp"

#include <algorithm>
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

// A value of the wrong length for an Avro fixed, thrown up through the structs to
// encode(), which names the field it was found in.
struct FixedSizeMismatch {
  std::string name;
  int32_t size;
  size_t length;
  std::string path;
};

// An Avro fixed: exactly `size` raw bytes, no length. A decimal's unscaled bytes are
// sign-extended to the size, as AvroData does; any other length is an error.
void write_fixed(const Schema& s, int32_t size, std::string_view bytes, std::string& out) {
  const auto want = static_cast<size_t>(size);
  if (bytes.size() != want) {
    if (s.logical() != Logical::Decimal || bytes.size() > want)
      throw FixedSizeMismatch{*s.name(), size, bytes.size(), {}};
    const char sign = !bytes.empty() && (static_cast<unsigned char>(bytes[0]) & 0x80) ? '\xff' : '\0';
    out.append(want - bytes.size(), sign);
  }
  out.append(bytes);
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
    case Type::Bytes:
      expect(s, v, Kind::Bytes);
      if (const auto size = fixed_size(s))
        write_fixed(s, *size, v.as_string(), out);
      else
        write_bytes(v.as_string(), out);
      return;
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
        try {
          write_value(*f.schema, *field, f.schema->optional(), out, enums);
        } catch (FixedSizeMismatch& e) {
          e.path = e.path.empty() ? f.name : f.name + "." + e.path;
          throw;
        }
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

// encode_as: a Connect value written in another Avro schema, matched as Avro's
// schema resolution would read it.

std::string_view type_name(Node::Type t) {
  static constexpr std::string_view names[] = {"null", "boolean", "int", "long", "float", "double", "bytes",
                                               "string", "record", "enum", "array", "map", "union", "fixed"};
  return names[static_cast<size_t>(t)];
}

// A record's unqualified name, ConnectDefault for an unnamed one (as Avro Java
// compares names in schema resolution).
std::string_view simple_name(const Schema* s) {
  if (s == nullptr || !s->name())
    return default_name;
  std::string_view n = *s->name();
  return n.substr(n.rfind('.') + 1);
}

bool is_union_struct(const Value& v) {
  return v.kind() == Kind::Struct && v.schema()->name() && *v.schema()->name() == union_struct_name;
}

// The value an io.confluent.connect.avro.Union struct holds (null when none is set).
Value union_member(const Value& v) {
  for (const Value& f : v.fields())
    if (!f.is_null())
      return f;
  return Value();
}

bool has_symbol(const Node& n, std::string_view s) {
  for (const auto& sym : n.symbols)
    if (sym == s)
      return true;
  return false;
}

// How well `v` fits union branch `b`: 2 its own Avro type, 1 by promotion, 0 not.
int fit(const Node& b, const Value& v) {
  using T = Node::Type;
  switch (v.kind()) {
    case Kind::Null: return b.type == T::Null ? 2 : 0;
    case Kind::Boolean: return b.type == T::Boolean ? 2 : 0;
    case Kind::Int8: case Kind::Int16: case Kind::Int32:
      return b.type == T::Int ? 2 : (b.type == T::Long || b.type == T::Float || b.type == T::Double) ? 1 : 0;
    case Kind::Int64: return b.type == T::Long ? 2 : (b.type == T::Float || b.type == T::Double) ? 1 : 0;
    case Kind::Float32: return b.type == T::Float ? 2 : b.type == T::Double ? 1 : 0;
    case Kind::Float64: return b.type == T::Double ? 2 : 0;
    case Kind::String:
      if (b.type == T::Enum)
        return has_symbol(b, v.as_string()) ? 2 : 0;
      return b.type == T::String ? 2 : b.type == T::Bytes ? 1 : 0;
    case Kind::Bytes:
      if (b.type == T::Fixed)
        return v.size() == static_cast<uint32_t>(b.fixed_size) ? 2 : 0;
      return b.type == T::Bytes ? 2 : b.type == T::String ? 1 : 0;
    case Kind::Array: return b.type == T::Array && !b.map_entries ? 2 : 0;
    case Kind::Map: return b.type == T::Map || (b.type == T::Array && b.map_entries) ? 2 : 0;
    case Kind::Struct:
      if (b.type != T::Record)
        return 0;
      return simple_name(v.schema()) == simple_name(b.connect.get()) ? 2 : 1;
    default: return 0;
  }
}

void write_as(const Node& n, const Value& v, std::string& out, const std::string& path);

[[noreturn]] void cannot(const Node& n, const Value& v, const std::string& path) {
  throw DataError("cannot write a " + std::string(java_class_name(v.kind())) + " as Avro " +
                  std::string(type_name(n.type)) + " at " + (path.empty() ? "the top level" : "field " + path));
}

void write_block(const Node& item, std::span<const Value> items, std::string& out, const std::string& path) {
  if (!items.empty()) {
    write_long(static_cast<int64_t>(items.size()), out);
    for (const Value& i : items)
      write_as(item, i, out, path);
  }
  out += '\0';
}

void write_record_as(const Node& n, const Value& v, std::string& out, const std::string& path) {
  const auto& target_fields = n.connect->fields();
  for (size_t i = 0; i < n.children.size(); ++i) {
    const auto& tf = target_fields[i];
    const std::string at = path.empty() ? tf.name : path + "." + tf.name;
    if (const Field* f = v.schema()->field(tf.name)) {
      const Value* field = &v.fields()[f->index];
      if (field->is_null() && f->schema->default_value())
        field = f->schema->default_value(); // Struct.get gives the default
      write_as(*n.children[i], *field, out, at);
    } else if (const Value* d = tf.schema->default_value()) {
      write_as(*n.children[i], *d, out, at);
    } else if (tf.schema->optional()) {
      write_as(*n.children[i], Value(), out, at); // a union with null
    } else {
      throw DataError("field " + at + " of the target schema is not in the record's schema and has " +
                      (n.field_defaults[i] ? "a default weir does not carry (a record)" : "no default"));
    }
  }
}

void write_as(const Node& n, const Value& v, std::string& out, const std::string& path) {
  if (is_union_struct(v))
    return write_as(n, union_member(v), out, path);
  if (n.type == Node::Type::Union) {
    size_t best = n.children.size();
    int best_fit = 0;
    for (size_t i = 0; i < n.children.size(); ++i)
      if (int f = fit(*n.children[i], v); f > best_fit) {
        best = i;
        best_fit = f;
      }
    if (best == n.children.size()) {
      if (v.is_null())
        throw DataError("null value for required field " + path + " (no null branch in its union)");
      cannot(n, v, path);
    }
    write_long(static_cast<int64_t>(best), out);
    return write_as(*n.children[best], v, out, path);
  }
  if (v.is_null()) {
    if (n.type == Node::Type::Null)
      return;
    throw DataError("null value for required field " + (path.empty() ? "(the top level)" : path) +
                    " of type " + std::string(type_name(n.type)));
  }
  if (n.type == Node::Type::Fixed && v.kind() == Kind::Bytes && v.size() != static_cast<uint32_t>(n.fixed_size))
    throw DataError("Avro fixed at " + (path.empty() ? "the top level" : "field " + path) + " is " +
                    std::to_string(n.fixed_size) + " bytes, the value is " + std::to_string(v.size()));
  if (fit(n, v) == 0)
    cannot(n, v, path);
  switch (n.type) {
    case Node::Type::Null: cannot(n, v, path);
    case Node::Type::Boolean: out += v.as_bool() ? '\1' : '\0'; return;
    case Node::Type::Int: case Node::Type::Long: write_long(v.as_int(), out); return;
    case Node::Type::Float: write_raw(v.is_integer() ? static_cast<float>(v.as_int()) : v.as_float32(), out); return;
    case Node::Type::Double: write_raw(v.is_integer() ? static_cast<double>(v.as_int()) : v.as_double(), out); return;
    case Node::Type::String: case Node::Type::Bytes: write_bytes(v.as_string(), out); return;
    case Node::Type::Fixed: out.append(v.as_string()); return;
    case Node::Type::Enum: {
      const auto it = std::find(n.symbols.begin(), n.symbols.end(), v.as_string());
      write_long(it - n.symbols.begin(), out);
      return;
    }
    case Node::Type::Record: write_record_as(n, v, out, path); return;
    case Node::Type::Array:
      if (n.map_entries) {
        const Node& entry = *n.children[0];
        if (v.size() != 0) {
          write_long(v.size(), out);
          for (const auto& e : v.entries()) {
            write_as(*entry.children[0], e.key, out, path + ".key");
            write_as(*entry.children[1], e.value, out, path + ".value");
          }
        }
        out += '\0';
        return;
      }
      write_block(*n.children[0], v.items(), out, path);
      return;
    case Node::Type::Map:
      if (v.size() != 0) {
        write_long(v.size(), out);
        for (const auto& e : v.entries()) {
          if (e.key.kind() != Kind::String)
            throw DataError("an Avro map needs string keys, not " + std::string(java_class_name(e.key.kind())) +
                            ", at field " + path);
          write_bytes(e.key.as_string(), out);
          write_as(*n.children[0], e.value, out, path);
        }
      }
      out += '\0';
      return;
    case Node::Type::Union: break; // handled above
  }
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
  try {
    write_value(schema, v, schema.optional(), out, enums);
  } catch (const FixedSizeMismatch& e) {
    throw DataError("Avro fixed " + e.name + " at " + (e.path.empty() ? "the top level" : "field " + e.path) +
                    " is " + std::to_string(e.size) + " bytes, the value is " + std::to_string(e.length));
  }
}

void encode_as(const Node& target, const Value& v, std::string& out) {
  write_as(target, v, out, "");
}

} // namespace weir::runtime::convert::avro
