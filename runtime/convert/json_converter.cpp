#include "runtime/convert/json_converter.hpp"

#include <cctype>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include <simdjson.h>

#include "runtime/convert/text.hpp"
#include "runtime/convert/json_fast_decode.hpp"
#include "runtime/convert/json_keys.hpp"
#include "runtime/convert/json_dom_numbers.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/data/base64.hpp"
#include "runtime/data/decimal.hpp"

namespace weir::runtime::convert {

using namespace runtime::data;
namespace dom = simdjson::dom;

namespace {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// Jackson's JsonNodeType names, which Kafka's messages print.
std::string_view node_type(dom::element e) {
  switch (e.type()) {
    case dom::element_type::ARRAY: return "ARRAY";
    case dom::element_type::OBJECT: return "OBJECT";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return "NUMBER";
    case dom::element_type::STRING: return "STRING";
    case dom::element_type::BOOL: return "BOOLEAN";
    case dom::element_type::NULL_VALUE: return "NULL";
  }
  return "MISSING";
}

bool is_number(dom::element e) { return DomNumbers::is_number(e); }

bool is_numeric(std::string_view format) {
  format = trim(format);
  if (format.size() != 7)
    return false;
  for (size_t i = 0; i < 7; ++i)
    if (std::toupper(static_cast<unsigned char>(format[i])) != "NUMERIC"[i])
      return false;
  return true;
}

// The value of `key` as Jackson's ObjectNode.get has it: the last of a repeated key
// (json_keys.hpp). simdjson's at_key would give the first.
std::optional<dom::element> member(dom::object o, std::string_view key) {
  std::optional<dom::element> found;
  for (auto [k, v] : o)
    if (k == key)
      found = v;
  return found;
}

struct DomMember {
  std::string_view key;
  dom::element value;
};

/// What a record begins with when Kafka's JsonConverter wrote it: the schema first.
constexpr std::string_view leading_schema_key = R"({"schema":)";

/// The length of the JSON object (or array) at the start of `json`, leading
/// whitespace included; `json` is known to be valid JSON.
size_t object_length(std::string_view json) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return json.size();
}

} // namespace

struct JsonConverter::Impl {
  explicit Impl(const Options& o) : options(o) {}

  const Options& options;
  FastJsonDecoder fast; ///< schemaless records (the hot path)
  dom::parser parser;   ///< envelopes and schemas
  DomNumbers numbers;   ///< the numbers of the record `parser` read
  uint32_t indexed_next = 0; ///< records to parse indexed straight away (see convert())
  std::unordered_map<std::string, SchemaPtr, StringHash, std::equal_to<>> schemas_by_text;
  std::unordered_map<const Schema*, std::pair<SchemaPtr, std::string>> json_by_schema;
  std::string b64;         ///< base64 text being written
  JsonBuffer wbuf;         ///< the record being serialized
  std::string key_scratch; ///< canonical schema text
  std::string last_leading;  ///< the last leading schema's raw text (see intern_leading)
  SchemaPtr last_leading_schema;
  std::string payload_scratch; ///< `{` and what follows the last leading schema (see payload_object)
  UniqueKeys unique_keys;
  std::vector<DomMember> params; ///< a schema's parameters

  // A map decoded from a JSON object: one entry per key, as Jackson has it.
  void drop_repeated_keys(Value& m) {
    auto* e = m.entries().data();
    if (keys_may_repeat(e, m.size(), entry_key)) [[unlikely]]
      m.truncate(static_cast<uint32_t>(unique_keys.apply(e, m.size(), entry_key)));
  }

  // `f(root)` for the record `bytes`, from a plain parse where that settles it, else
  // from an indexed one (json_dom_numbers.hpp). A record that needed the indexed
  // parse sends the next ones there straight away (records of a topic mostly share
  // their schema, so a Decimal given as a number would otherwise cost every record
  // two parses), and now and then a plain parse is tried again.
  template <class F>
  auto convert(std::string_view bytes, F&& f) {
    if (indexed_next == 0) {
      dom::element root;
      if (numbers.parse_plain(parser, bytes, root)) {
        try {
          return f(root);
        } catch (const DomNumbers::NeedsText&) {
        }
      }
      indexed_next = 64;
    } else {
      --indexed_next;
    }
    return f(numbers.parse_indexed(parser, bytes));
  }

  bool is_integral(dom::element e) const { return numbers.is_integral(e); }

  // -- JSON -> Connect ---------------------------------------------------------------

  Value schemaless(dom::element e, Arena& arena) {
    switch (e.type()) {
      case dom::element_type::OBJECT: {
        dom::object o = e.get_object().value_unsafe();
        Value m = Value::map(arena, static_cast<uint32_t>(o.size()));
        for (auto [k, v] : o)
          m.append(arena, Value::string(arena.copy(k)), schemaless(v, arena));
        drop_repeated_keys(m);
        return m;
      }
      case dom::element_type::ARRAY: {
        dom::array a = e.get_array().value_unsafe();
        Value arr = Value::array(arena, static_cast<uint32_t>(a.size()));
        for (auto v : a)
          arr.push_back(arena, schemaless(v, arena));
        return arr;
      }
      case dom::element_type::STRING: return Value::string(arena.copy(e.get_string().value_unsafe()));
      case dom::element_type::INT64: // Connect's inference: INT64 for integers, else FLOAT64
      case dom::element_type::UINT64:
      case dom::element_type::DOUBLE:
        return numbers.is_integral(e) ? Value::int64(numbers.long_value(e)) : Value::float64(numbers.double_value(e));
      case dom::element_type::BOOL: return Value::boolean(e.get_bool().value_unsafe());
      case dom::element_type::NULL_VALUE: return Value();
    }
    return Value();
  }

  [[noreturn]] static void wrong_type(const Schema& s, dom::element e) {
    throw DataError("Invalid type for " + std::string(to_string(s.type())) + " field: expected "
                    + std::string(json_name(s.type())) + " but JSON was " + std::string(node_type(e)));
  }

  Value with_schema(const Schema& s, std::optional<dom::element> maybe, Arena& arena) {
    if (!maybe || maybe->is_null()) {
      if (const Value* d = s.default_value(); d && options.replace_null_with_default)
        return d->deep_copy(arena);
      if (s.optional())
        return Value();
      throw DataError("Invalid null value for required " + std::string(to_string(s.type())) + " field");
    }
    dom::element e = *maybe;
    switch (s.logical()) {
      case Logical::Decimal: {
        if (is_number(e)) // the number's exact digits at the schema's scale (decimal.hpp)
          return Value::bytes(arena.copy(decimal_bytes(decimal_parse(numbers.decimal_text(e), s.decimal_scale()))));
        if (e.is_string()) {
          auto bytes = base64_decode(e.get_string().value_unsafe());
          if (!bytes || bytes->empty())
            throw DataError("Invalid bytes for Decimal field");
          return Value::bytes(arena.copy(*bytes));
        }
        throw DataError("Invalid type for Decimal, underlying representation should be numeric or bytes but was "
                        + std::string(node_type(e)));
      }
      case Logical::Date:
      case Logical::Time: {
        if (!is_number(e) || !numbers.is_int(e)) // Jackson's isInt()
          throw DataError(std::string("Invalid type for ") + (s.logical() == Logical::Date ? "Date" : "Time")
                          + ", underlying representation should be integer but was " + std::string(node_type(e)));
        return Value::int32(numbers.int_value(e));
      }
      case Logical::Timestamp:
        if (!is_integral(e))
          throw DataError("Invalid type for Timestamp, underlying representation should be integral but was "
                          + std::string(node_type(e)));
        return Value::int64(numbers.long_value(e));
      case Logical::None:
        break;
    }
    switch (s.type()) {
      case Type::Boolean:
        if (!e.is_bool())
          wrong_type(s, e);
        return Value::boolean(e.get_bool().value_unsafe());
      case Type::Int8:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::int8(static_cast<int8_t>(numbers.int_value(e)));
      case Type::Int16:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::int16(static_cast<int16_t>(numbers.int_value(e)));
      case Type::Int32:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::int32(numbers.int_value(e));
      case Type::Int64:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::int64(numbers.long_value(e));
      case Type::Float32:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::float32(numbers.float_value(e));
      case Type::Float64:
        if (!is_number(e))
          wrong_type(s, e);
        return Value::float64(numbers.double_value(e));
      case Type::String:
        if (!e.is_string())
          wrong_type(s, e);
        return Value::string(arena.copy(e.get_string().value_unsafe()));
      case Type::Bytes: {
        if (!e.is_string())
          wrong_type(s, e);
        auto bytes = base64_decode(e.get_string().value_unsafe());
        if (!bytes)
          throw DataError("Invalid bytes field");
        return Value::bytes(arena.copy(*bytes));
      }
      case Type::Array: {
        if (!e.is_array())
          wrong_type(s, e);
        dom::array a = e.get_array().value_unsafe();
        Value arr = Value::array(arena, static_cast<uint32_t>(a.size()));
        for (auto v : a)
          arr.push_back(arena, with_schema(*s.value_schema(), v, arena));
        return arr;
      }
      case Type::Map: {
        if (s.key_schema()->type() == Type::String) {
          if (!e.is_object())
            throw DataError("Maps with string fields should be encoded as JSON objects, but found "
                            + std::string(node_type(e)));
          dom::object o = e.get_object().value_unsafe();
          Value m = Value::map(arena, static_cast<uint32_t>(o.size()));
          for (auto [k, v] : o)
            m.append(arena, Value::string(arena.copy(k)), with_schema(*s.value_schema(), v, arena));
          drop_repeated_keys(m);
          return m;
        }
        if (!e.is_array())
          throw DataError("Maps with non-string fields should be encoded as JSON array of tuples, but found "
                          + std::string(node_type(e)));
        dom::array a = e.get_array().value_unsafe();
        Value m = Value::map(arena, static_cast<uint32_t>(a.size()));
        for (auto entry : a) {
          if (!entry.is_array())
            throw DataError("Found invalid map entry instead of array tuple: " + std::string(node_type(entry)));
          dom::array pair = entry.get_array().value_unsafe();
          if (pair.size() != 2)
            throw DataError("Found invalid map entry, expected length 2 but found :" + std::to_string(pair.size()));
          m.append(arena, with_schema(*s.key_schema(), pair.at(0).value_unsafe(), arena),
                   with_schema(*s.value_schema(), pair.at(1).value_unsafe(), arena));
        }
        return m;
      }
      case Type::Struct: {
        if (!e.is_object())
          throw DataError("Structs should be encoded as JSON objects, but found " + std::string(node_type(e)));
        dom::object o = e.get_object().value_unsafe();
        Value st = Value::structure(arena, s);
        for (const auto& f : s.fields())
          st.fields()[f.index] = with_schema(*f.schema, member(o, f.name), arena);
        return st;
      }
    }
    return Value();
  }

  // asConnectSchema.
  SchemaPtr schema_from(dom::element e) {
    if (!e.is_object())
      throw DataError("Schema must contain 'type' field");
    dom::object o = e.get_object().value_unsafe();
    auto type_node = member(o, "type");
    if (!type_node || !type_node->is_string())
      throw DataError("Schema must contain 'type' field");
    auto type_name = type_node->get_string().value_unsafe();
    auto type = type_from_json_name(type_name);
    if (!type)
      throw DataError("Unknown schema type: " + std::string(type_name));
    std::optional<SchemaBuilder> b;
    switch (*type) {
      case Type::Array: {
        auto items = member(o, "items");
        if (!items || items->is_null())
          throw DataError("Array schema did not specify the element type");
        b.emplace(SchemaBuilder::array(schema_from(*items)));
        break;
      }
      case Type::Map: {
        auto keys = member(o, "keys");
        if (!keys)
          throw DataError("Map schema did not specify the key type");
        auto values = member(o, "values");
        if (!values)
          throw DataError("Map schema did not specify the value type");
        b.emplace(SchemaBuilder::map(schema_from(*keys), schema_from(*values)));
        break;
      }
      case Type::Struct: {
        b.emplace(SchemaBuilder::struct_());
        auto fields = member(o, "fields");
        if (!fields || !fields->is_array())
          throw DataError("Struct schema's \"fields\" argument is not an array.");
        dom::array field_list = fields->get_array().value_unsafe();
        for (auto f : field_list) {
          std::optional<dom::element> name;
          if (f.is_object())
            name = member(f.get_object().value_unsafe(), "field");
          if (!name || !name->is_string())
            throw DataError("Struct schema's field name not specified properly");
          b->field(std::string(name->get_string().value_unsafe()), schema_from(f));
        }
        break;
      }
      default:
        b.emplace(*type);
    }
    auto optional = member(o, "optional");
    b->optional(optional && optional->is_bool() && optional->get_bool().value_unsafe());
    if (auto n = member(o, "name"); n && n->is_string())
      b->name(std::string(n->get_string().value_unsafe()));
    if (auto v = member(o, "version"); v && is_integral(*v))
      b->version(numbers.int_value(*v));
    if (auto d = member(o, "doc"); d && d->is_string())
      b->doc(std::string(d->get_string().value_unsafe()));
    if (auto p = member(o, "parameters"); p && p->is_object()) {
      // Only a repeated key's last value counts, also for the check.
      params.clear();
      dom::object given = p->get_object().value_unsafe();
      for (auto [k, v] : given)
        params.push_back({k, v});
      params.resize(unique_keys.apply(params.data(), params.size(), [](const DomMember& m) { return m.key; }));
      for (const auto& [k, v] : params) {
        if (!v.is_string())
          throw DataError("Schema parameters must have string values.");
        b->parameter(std::string(k), std::string(v.get_string().value_unsafe()));
      }
    }
    if (auto d = member(o, "default")) {
      // Convert the default against the schema as built so far (Kafka passes the
      // builder itself), then rebuild with it.
      SchemaPtr bare = SchemaBuilder(*b).build();
      Arena tmp(256);
      Value v = with_schema(*bare, *d, tmp);
      b->default_value(v);
    }
    return b->build();
  }

  // The schema of a record whose only "schema" member leads it (`{"schema":` then the
  // schema's text). Records of a topic mostly carry the same schema in the same bytes:
  // when they start with the last such schema's text, that text is this record's
  // whole schema (a JSON object ends where its braces balance), so the schema is the
  // same, without writing the canonical key of the cache (most of the CPU time this
  // converter spends on small records; bench/results/postgres.md).
  SchemaPtr intern_leading(dom::element e, std::string_view record) {
    std::string_view rest = record.substr(leading_schema_key.size());
    if (last_leading_schema && rest.starts_with(last_leading))
      return last_leading_schema;
    SchemaPtr s = intern(e);
    last_leading.assign(rest.substr(0, object_length(rest)));
    last_leading_schema = s;
    return s;
  }

  // For a record that starts with `{"schema":`, the last leading schema's text and a
  // comma: an object of the record's other members, `{"payload":...}` for Kafka's
  // JsonConverter, so that the schema's bytes need not be parsed again.
  std::optional<std::string_view> payload_object(std::string_view record) {
    if (!last_leading_schema || !record.starts_with(leading_schema_key))
      return std::nullopt;
    std::string_view rest = record.substr(leading_schema_key.size());
    if (!rest.starts_with(last_leading))
      return std::nullopt;
    rest.remove_prefix(last_leading.size());
    size_t comma = rest.find_first_not_of(" \t\r\n");
    if (comma == std::string_view::npos || rest[comma] != ',')
      return std::nullopt;
    payload_scratch.assign("{").append(rest.substr(comma + 1));
    return payload_scratch;
  }

  SchemaPtr intern(dom::element e) {
    key_scratch.clear();
    numbers.write_json(e, key_scratch); // the key of the schema cache
    if (auto it = schemas_by_text.find(std::string_view(key_scratch)); it != schemas_by_text.end())
      return it->second;
    SchemaPtr s = schema_from(e);
    if (static_cast<int64_t>(schemas_by_text.size()) >= options.schemas_cache_size)
      schemas_by_text.clear();
    schemas_by_text.emplace(key_scratch, s);
    return s;
  }

  // -- Connect -> JSON ---------------------------------------------------------------

  const std::string& schema_json(const Schema& s) {
    if (auto it = json_by_schema.find(&s); it != json_by_schema.end())
      return it->second.second;
    std::string out = "{\"type\":";
    append_json_string(json_name(s.type()), out);
    switch (s.type()) {
      case Type::Array:
        out += ",\"items\":";
        out += schema_json(*s.value_schema());
        break;
      case Type::Map:
        out += ",\"keys\":";
        out += schema_json(*s.key_schema());
        out += ",\"values\":";
        out += schema_json(*s.value_schema());
        break;
      case Type::Struct: {
        out += ",\"fields\":[";
        bool first = true;
        for (const auto& f : s.fields()) {
          if (!first)
            out += ',';
          first = false;
          const std::string& fj = schema_json(*f.schema);
          out.append(fj, 0, fj.size() - 1);
          out += ",\"field\":";
          append_json_string(f.name, out);
          out += '}';
        }
        out += ']';
        break;
      }
      default:
        break;
    }
    out += s.optional() ? ",\"optional\":true" : ",\"optional\":false";
    if (s.name()) {
      out += ",\"name\":";
      append_json_string(*s.name(), out);
    }
    if (s.version()) {
      out += ",\"version\":";
      append_int(*s.version(), out);
    }
    if (s.doc()) {
      out += ",\"doc\":";
      append_json_string(*s.doc(), out);
    }
    if (s.parameters()) {
      out += ",\"parameters\":{";
      bool first = true;
      for (const auto& [k, v] : *s.parameters()) {
        if (!first)
          out += ',';
        first = false;
        append_json_string(k, out);
        out += ':';
        append_json_string(v, out);
      }
      out += '}';
    }
    if (const Value* d = s.default_value()) {
      out += ",\"default\":";
      JsonBuffer tmp;
      write(d, &s, tmp);
      out += tmp.view();
    }
    out += '}';
    if (json_by_schema.size() >= static_cast<size_t>(options.schemas_cache_size))
      json_by_schema.clear();
    auto& slot = json_by_schema[&s];
    slot = {s.shared_from_this(), std::move(out)};
    return slot.second;
  }

  // Schemaless values: the hot path of schemas.enable=false, without the schema
  // checks; plain strings and keys are copied, everything else goes to write().
  void write_schemaless(const Value& v, JsonBuffer& out) {
    switch (v.kind()) {
      case Kind::Map: {
        // Keys and plain strings are copied at their size, other scalars take at
        // most 48 bytes (write_json_double's bound): each entry checks its room
        // against a limit kept in a register, in the loop that writes it (a pass
        // to size the whole object first cost more than these checks). Nested
        // containers and strings to escape are written (and bounded) by write();
        // a key to escape (rare) sends the whole object there.
        const size_t start = out.size();
        char* o = out.reserve(2);
        char* limit = out.limit();
        *o++ = '{';
        for (const auto& e : v.entries()) {
          const Value& x = e.value;
          size_t ks = e.key.size();
          if (!e.key.is_plain()) [[unlikely]] { // a key to escape, or a non-string key
            out.commit(out.view().data() + start);
            write(&v, nullptr, out);
            return;
          }
          size_t need = ks + 4 + (x.is_plain() ? x.size() + 2 : 48); // '"' key '":' value ','
          if (static_cast<size_t>(limit - o) < need) [[unlikely]] {
            out.commit(o);
            o = out.reserve(need);
            limit = out.limit();
          }
          *o++ = '"';
          copy_short(o, e.key.as_string().data(), ks);
          o += ks;
          *o++ = '"';
          *o++ = ':';
          if (x.is_plain()) {
            *o++ = '"';
            copy_short(o, x.as_string().data(), x.size());
            o += x.size();
            *o++ = '"';
          } else if (x.is_integer()) {
            o = write_int(x.as_int(), o);
          } else if (x.kind() == Kind::Float64) {
            o = write_json_double(x.as_double(), o);
          } else {
            out.commit(o);
            write_schemaless(x, out);
            o = out.reserve(1);
            limit = out.limit();
          }
          *o++ = ','; // the last one becomes the '}'
        }
        if (v.size() != 0)
          --o;
        *o++ = '}';
        out.commit(o);
        return;
      }
      case Kind::Array: {
        out += '[';
        bool first = true;
        for (const auto& x : v.items()) {
          if (!first)
            out += ',';
          first = false;
          write_schemaless(x, out);
        }
        out += ']';
        return;
      }
      default:
        write(&v, nullptr, out);
    }
  }

  void write(const Value* vp, const Schema* s, JsonBuffer& out) {
    const Value& v = *vp;
    if (v.is_null()) {
      if (s == nullptr) {
        out += "null";
        return;
      }
      if (const Value* d = s->default_value(); d && options.replace_null_with_default) {
        write(d, s, out);
        return;
      }
      if (s->optional()) {
        out += "null";
        return;
      }
      throw DataError("Conversion error: null value for field that is required and has no default value");
    }
    if (s != nullptr && s->logical() != Logical::None) {
      switch (s->logical()) {
        case Logical::Decimal:
          if (v.kind() != Kind::Bytes)
            throw DataError("Invalid type for Decimal, expected BigDecimal but was class "
                            + std::string(java_class_name(v.kind())));
          if (options.decimal_numeric) {
            out += decimal_to_string(decimal_unscaled(v.as_string()), s->decimal_scale());
          } else {
            b64.assign(1, '"');
            base64_encode(v.as_string(), b64);
            b64 += '"';
            out += b64;
          }
          return;
        case Logical::Date:
        case Logical::Time:
        case Logical::Timestamp:
          if (!v.is_integer())
            throw DataError(std::string("Invalid type for ")
                            + (s->logical() == Logical::Date ? "Date" : s->logical() == Logical::Time ? "Time" : "Timestamp")
                            + ", expected Date but was class " + std::string(java_class_name(v.kind())));
          append_int(v.as_int(), out);
          return;
        case Logical::None:
          break;
      }
    }
    if (s != nullptr && v.kind() != kind_of(s->type()))
      throw DataError("Invalid type for " + std::string(to_string(s->type())) + ": class "
                      + std::string(java_class_name(v.kind())));
    switch (v.kind()) {
      case Kind::Null: out += "null"; return;
      case Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
      case Kind::Int8:
      case Kind::Int16:
      case Kind::Int32:
      case Kind::Int64: append_int(v.as_int(), out); return;
      case Kind::Float32: append_json_float(v.as_float32(), out); return;
      case Kind::Float64: append_json_double(v.as_double(), out); return;
      case Kind::String:
        if (v.is_plain()) {
          out += '"';
          out += v.as_string();
          out += '"';
        } else {
          append_json_string(v.as_string(), out);
        }
        return;
      case Kind::Bytes:
        b64.assign(1, '"');
        base64_encode(v.as_string(), b64);
        b64 += '"';
        out += b64;
        return;
      case Kind::Array: {
        out += '[';
        const Schema* es = s ? s->value_schema().get() : nullptr;
        bool first = true;
        for (const auto& x : v.items()) {
          if (!first)
            out += ',';
          first = false;
          write(&x, es, out);
        }
        out += ']';
        return;
      }
      case Kind::Map: {
        const Schema* ks = s ? s->key_schema().get() : nullptr;
        const Schema* vs = s ? s->value_schema().get() : nullptr;
        bool object_mode = s ? ks->type() == Type::String : true;
        if (!s)
          for (const auto& e : v.entries())
            if (e.key.kind() != Kind::String) {
              object_mode = false;
              break;
            }
        out += object_mode ? '{' : '[';
        bool first = true;
        for (const auto& e : v.entries()) {
          if (!first)
            out += ',';
          first = false;
          if (object_mode) {
            if (e.key.kind() != Kind::String)
              throw DataError("Invalid type for STRING: class " + std::string(java_class_name(e.key.kind())));
            if (e.key.is_plain()) {
              char* o = out.reserve(e.key.size() + 3);
              *o++ = '"';
              std::memcpy(o, e.key.as_string().data(), e.key.size());
              o += e.key.size();
              *o++ = '"';
              *o++ = ':';
              out.commit(o);
            } else {
              append_json_string(e.key.as_string(), out);
              out += ':';
            }
            write(&e.value, vs, out);
          } else {
            out += '[';
            write(&e.key, ks, out);
            out += ',';
            write(&e.value, vs, out);
            out += ']';
          }
        }
        out += object_mode ? '}' : ']';
        return;
      }
      case Kind::Struct: {
        const Schema* ss = s ? s : v.schema();
        if (v.schema() != ss && !v.schema()->equals(*ss))
          throw DataError("Mismatching schema.");
        out += '{';
        bool first = true;
        for (const auto& f : ss->fields()) {
          if (!first)
            out += ',';
          first = false;
          append_json_string(f.name, out);
          out += ':';
          write(&v.fields()[f.index], f.schema.get(), out);
        }
        out += '}';
        return;
      }
    }
  }
};

const ConfigDef& JsonConverter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.group("Schemas")
        .define("schemas.enable", ConfigType::Boolean, "true", Importance::High,
                "Include schemas within each of the serialized values and keys.")
        .define("schemas.cache.size", ConfigType::Int, "1000", Importance::High,
                "The maximum number of schemas that can be cached in this converter instance.",
                validators::range(0, std::nullopt))
        .define("decimal.format", ConfigType::String, "BASE64", Importance::Low,
                "Controls which format this converter will serialize decimals in: BASE64 or NUMERIC.",
                validators::one_of({"BASE64", "NUMERIC"}, true))
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Low,
                "Whether to replace fields that have a default value and that are null to the default value.")
        .define("converter.type", ConfigType::String, "value", Importance::Low,
                "How this converter will be used: key, value or header.",
                validators::one_of({"key", "value", "header"}, true));
    return d;
  }();
  return def;
}

JsonConverter::JsonConverter(Options options)
    : options_(options), impl_(std::make_unique<Impl>(options_)) {}

JsonConverter::JsonConverter(const Config& c, bool /*is_key*/)
    : JsonConverter(Options{c.get_bool("schemas.enable"), is_numeric(c.get_string("decimal.format")),
                            c.get_bool("replace.null.with.default"), c.get_int("schemas.cache.size")}) {}

JsonConverter::~JsonConverter() = default;

void JsonConverter::to_connect(const std::optional<std::string_view>& bytes, DecodedBatch& batch,
                               Value& out, const Schema*& schema) {
  out = Value();
  schema = nullptr;
  if (!bytes)
    return;
  auto& arena = batch.arena();
  // Jackson reads empty input as a missing node: null without schemas, an error with.
  bool blank = true;
  for (char c : *bytes)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      blank = false;
      break;
    }
  if (blank && !options_.schemas_enable)
    return;
  if (!options_.schemas_enable) {
    out = impl_->fast.decode(*bytes, arena);
    return;
  }
  auto envelope_error = [] {
    throw DataError("JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not "
                    "contain additional fields. If you are trying to deserialize plain JSON data, set "
                    "schemas.enable=false in your converter configuration.");
  };
  if (blank)
    envelope_error();
  if (auto others = impl_->payload_object(*bytes)) {
    // The schema is the last leading one's; what follows it must be payloads only.
    try {
      bool done = impl_->convert(*others, [&](dom::element root) {
        std::optional<dom::element> payload;
        if (!root.is_object())
          return false;
        dom::object o = root.get_object().value_unsafe();
        for (auto [k, v] : o) {
          if (k != "payload")
            return false;
          payload = v;
        }
        if (!payload)
          return false;
        out = impl_->with_schema(*impl_->last_leading_schema, payload, arena);
        schema = batch.retain(impl_->last_leading_schema);
        return true;
      });
      if (done)
        return;
    } catch (const DataError&) {
      // Read the whole record again below, for the error Kafka's converter gives.
    }
    out = Value();
  }
  impl_->convert(*bytes, [&](dom::element root) {
    std::optional<dom::element> schema_node, payload;
    bool leading = false; // the only "schema" member is the record's first bytes
    if (root.is_object()) {
      // Exactly the two keys (each may repeat: the last counts, as in Jackson's tree).
      bool other = false;
      dom::object o = root.get_object().value_unsafe();
      for (auto [k, v] : o) {
        if (k == "schema") {
          leading = !schema_node && bytes->starts_with(leading_schema_key);
          schema_node = v;
        } else if (k == "payload") {
          payload = v;
        } else {
          other = true;
        }
      }
      if (other)
        schema_node.reset();
    }
    if (!schema_node || !payload)
      envelope_error();
    if (schema_node->is_null()) {
      out = impl_->schemaless(*payload, arena);
      return;
    }
    SchemaPtr s = leading ? impl_->intern_leading(*schema_node, *bytes) : impl_->intern(*schema_node);
    out = impl_->with_schema(*s, payload, arena);
    schema = batch.retain(s);
  });
}

std::optional<std::string_view> JsonConverter::serialize(const Value& v, const Schema* schema) {
  if (schema == nullptr && v.is_null())
    return std::nullopt;
  auto& b = impl_->wbuf;
  b.clear();
  if (!options_.schemas_enable) {
    if (schema == nullptr)
      impl_->write_schemaless(v, b);
    else
      impl_->write(&v, schema, b);
  } else {
    b += "{\"schema\":";
    if (schema)
      b += impl_->schema_json(*schema);
    else
      b += "null";
    b += ",\"payload\":";
    impl_->write(&v, schema, b);
    b += '}';
  }
  return b.view();
}

bool JsonConverter::from_connect(const Value& v, const Schema* schema, std::string& out) {
  auto bytes = serialize(v, schema);
  if (!bytes)
    return false;
  out.append(*bytes);
  return true;
}

SchemaPtr JsonConverter::parse_schema(std::string_view schema_json) {
  return impl_->convert(schema_json, [&](dom::element root) { return impl_->intern(root); });
}

const std::string& JsonConverter::schema_json(const Schema& schema) { return impl_->schema_json(schema); }

void JsonConverter::write_payload(const Value& v, const Schema* schema, std::string& out) {
  auto& b = impl_->wbuf;
  b.clear();
  impl_->write(&v, schema, b);
  out.append(b.view());
}

} // namespace weir::runtime::convert
