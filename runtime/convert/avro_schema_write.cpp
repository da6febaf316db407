// Connect -> Avro schema JSON (AvroData.fromConnectSchema, then Avro Java's toString).
#include "runtime/convert/avro_schema.hpp"

#include <algorithm>
#include <charconv>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/errors.hpp"

namespace weir::runtime::convert::avro {

using namespace runtime::data;

SplitName split_name(std::string_view full) {
  auto dot = full.rfind('.');
  if (dot == std::string_view::npos)
    return {{}, std::string(full)};
  return {std::string(full.substr(0, dot)), std::string(full.substr(dot + 1))};
}

namespace {

bool ascii_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool ascii_alpha(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool name_char(unsigned char c) { return ascii_alpha(c) || ascii_digit(c) || c == '_'; }

// What Avro Java refuses in a simple name, as far as weir can tell bytewise: Avro takes
// any Unicode letter, so bytes past ASCII are left for the registry to judge.
bool valid_name(std::string_view name) {
  if (name.empty() || ascii_digit(name[0]))
    return false;
  for (unsigned char c : name)
    if (c < 0x80 && !name_char(c))
      return false;
  return true;
}

// AvroData.splitName: Java's split("\\.") (trailing empty parts dropped), each part
// scrubbed, the last one the name.
SplitName scrubbed_split(std::string_view full) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    auto dot = full.find('.', start);
    parts.push_back(scrub_name(full.substr(start, dot == std::string_view::npos ? dot : dot - start)));
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  while (parts.size() > 1 && parts.back().empty())
    parts.pop_back();
  SplitName out{{}, std::move(parts.back())};
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    out.space += (i ? "." : "") + parts[i];
  return out;
}

SplitName avro_split(std::string_view full, bool scrub) { return scrub ? scrubbed_split(full) : split_name(full); }

std::string joined(const SplitName& n) { return n.space.empty() ? n.name : n.space + "." + n.name; }

bool is_logical(const Schema& s, std::string_view name) { return s.name() && *s.name() == name; }

} // namespace

std::optional<int32_t> fixed_size(const Schema& s) {
  if (s.type() != Type::Bytes || !s.name())
    return std::nullopt;
  const auto* p = s.parameter(fixed_size_parameter);
  if (!p)
    return std::nullopt;
  int32_t size = 0;
  auto [end, ec] = std::from_chars(p->data(), p->data() + p->size(), size);
  if (ec != std::errc() || end != p->data() + p->size() || size < 0)
    throw DataError("Connect schema " + *s.name() + " has " + std::string(fixed_size_parameter) + " \"" + *p +
                    "\", not an Avro fixed size");
  return size;
}

std::string scrub_name(std::string_view name) {
  if (name.empty() || (!ascii_digit(name[0]) && std::all_of(name.begin(), name.end(), [](unsigned char c) { return name_char(c); })))
    return std::string(name);
  // URLEncoder.encode(name, "UTF-8"): these stay, a space becomes '+', other bytes %XX.
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (name_char(c) || c == '.' || c == '-' || c == '*') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  if (ascii_digit(out[0]))
    out.insert(out.begin(), 'x');
  for (char& c : out)
    if (!name_char(static_cast<unsigned char>(c)))
      c = '_';
  return out;
}

namespace {

std::string utf8_of_latin1(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// defaultValueFromConnect: a Connect value as the JSON Avro keeps defaults in.
void default_json(const Schema& s, const Value& v, std::string& out) {
  if (v.is_null()) {
    out += "null";
    return;
  }
  switch (s.type()) {
    case Type::Int8: case Type::Int16: case Type::Int32: case Type::Int64: append_int(v.as_int(), out); return;
    case Type::Float32: append_java_float(v.as_float32(), out); return;
    case Type::Float64: append_java_double(v.as_double(), out); return;
    case Type::Boolean: out += v.as_bool() ? "true" : "false"; return;
    case Type::String: append_json_string(v.as_string(), out); return;
    case Type::Bytes: append_json_string(utf8_of_latin1(v.as_string()), out); return;
    case Type::Array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.items()) {
        if (!first) out += ',';
        first = false;
        default_json(*s.value_schema(), item, out);
      }
      out += ']';
      return;
    }
    case Type::Map: {
      const bool object = s.key_schema()->type() == Type::String && !s.key_schema()->optional();
      out += object ? '{' : '[';
      bool first = true;
      for (const auto& e : v.entries()) {
        if (!first) out += ',';
        first = false;
        if (object) {
          append_json_string(e.key.as_string(), out);
          out += ':';
        } else {
          out += R"({"key":)";
          default_json(*s.key_schema(), e.key, out);
          out += R"(,"value":)";
        }
        default_json(*s.value_schema(), e.value, out);
        if (!object) out += '}';
      }
      out += object ? '}' : ']';
      return;
    }
    case Type::Struct: {
      out += '{';
      for (const auto& f : s.fields()) {
        if (f.index != 0) out += ',';
        append_json_string(f.name, out);
        out += ':';
        default_json(*f.schema, v.fields()[f.index], out);
      }
      out += '}';
      return;
    }
  }
}

/// AvroData.fromConnectSchema and Avro Java's Schema.toString, in one pass.
class Writer {
public:
  explicit Writer(const WriteOptions& options) : options_(options) {}

  void write(const Schema& s, bool optional, bool ignore_optional, std::string& out) {
    if (s.type() == Type::Struct && is_logical(s, union_struct_name)) {
      out += '[';
      bool first = true;
      if (optional) {
        out += R"("null")";
        first = false;
      }
      for (const auto& f : s.fields()) {
        if (!first) out += ',';
        first = false;
        write(*f.schema, false, true, out);
      }
      out += ']';
      return;
    }
    if (s.type() == Type::Struct && optional) {
      out += R"(["null",)";
      write(s, false, false, out);
      out += ']';
      return;
    }
    std::string base;
    base_json(s, base);
    if (optional && !ignore_optional) {
      out += s.default_value() ? "[" + base + R"(,"null"])" : R"(["null",)" + base + "]";
      return;
    }
    out += base;
  }

private:
  using Props = std::vector<std::pair<std::string, std::string>>; ///< key, JSON value

  static void prop_string(Props& props, std::string key, std::string_view value) {
    std::string json;
    append_json_string(value, json);
    props.emplace_back(std::move(key), std::move(json));
  }
  // Avro's addProp keeps the first value of a key.
  static void prop(Props& props, std::string key, std::string json) {
    for (const auto& [k, v] : props)
      if (k == key)
        return;
    props.emplace_back(std::move(key), std::move(json));
  }

  void name_json(const SplitName& n, std::string& out) {
    out += R"("name":)";
    append_json_string(n.name, out);
    if (!n.space.empty() && n.space != space_) {
      out += R"(,"namespace":)";
      append_json_string(n.space, out);
    } else if (n.space.empty() && !space_.empty()) {
      out += R"(,"namespace":"")";
    }
  }

  void field_json(std::string_view name, const Schema& s, const std::string* doc, std::string& out) {
    out += R"({"name":)";
    append_json_string(name, out);
    out += R"(,"type":)";
    write(s, s.optional(), false, out);
    if (doc) {
      out += R"(,"doc":)";
      append_json_string(*doc, out);
    }
    if (const Value* d = s.default_value()) {
      out += R"(,"default":)";
      default_json(s, *d, out);
    } else if (s.optional()) {
      out += R"(,"default":null)";
    }
    out += '}';
  }

  // AvroData's nonOptional(schema): the key its schemaMap keeps written records under,
  // so a struct used both optional and required is one record.
  static SchemaPtr required_form(const Schema& s) {
    if (!s.optional())
      return s.shared_from_this();
    SchemaBuilder b = SchemaBuilder::copy_basics(s, s.type());
    for (const auto& f : s.fields())
      b.field(f.name, f.schema);
    if (const Value* d = s.default_value())
      b.default_value(*d);
    return b.build();
  }

  // A record already written in this schema: written again as its name.
  const std::string* defined(const Schema& s) const {
    auto key = required_form(s);
    for (const auto& [schema, name] : defined_)
      if (schema->equals(*key))
        return &name;
    return nullptr;
  }

  std::string reference(const std::string& full) const {
    auto n = split_name(full);
    return n.space == space_ ? n.name : full;
  }

  // Without scrub.invalid.names, a name Avro refuses fails here, before the registry
  // sees it, with the key that would rewrite it.
  // `what()` names it in the message, built only for a refusal.
  template <class What>
  void check_name(std::string_view name, What what) const {
    if (options_.scrub_invalid_names || valid_name(name))
      return;
    throw DataError(what() + " is not a valid Avro name (letters, digits and _, not starting with a "
                    "digit); set scrub.invalid.names=true to write it as \"" + scrub_name(name) +
                    "\", as Confluent's AvroConverter does");
  }

  std::string field_name(const std::string& record_name, std::string_view name) const {
    check_name(name, [&] { return "field \"" + std::string(name) + "\" of record \"" + record_name + "\""; });
    return options_.scrub_invalid_names ? scrub_name(name) : std::string(name);
  }

  void record_json(const Schema& s, SplitName n, std::string& out) {
    check_name(n.name, [&] {
      return "record name \"" + n.name + "\"" + (s.name() ? " (of Connect schema \"" + *s.name() + "\")" : "");
    });
    const std::string full = joined(n);
    defined_.emplace_back(required_form(s), full);
    out += R"({"type":"record",)";
    name_json(n, out);
    if (const auto* doc = s.parameter(record_doc_parameter)) {
      out += R"(,"doc":)";
      append_json_string(*doc, out);
    }
    const std::string saved = space_;
    space_ = n.space;
    out += R"(,"fields":[)";
    for (const auto& f : s.fields()) {
      if (f.index != 0) out += ',';
      field_json(field_name(full, f.name), *f.schema, s.parameter(std::string(field_doc_prefix) + f.name), out);
    }
    out += ']';
    space_ = saved;
  }

  // An Avro enum's members after "type" (AvroData's enum write-back): its name from
  // the Enum parameter, the doc and default kept under the Connect schema's simple
  // name, the symbols in parameter order. False when the enum was already written:
  // `out` then has its name.
  bool enum_json(const Schema& s, const std::string& full, const std::string& name, std::string& body,
                 std::string& out) {
    for (const auto& e : named_)
      if (e == full) {
        append_json_string(reference(full), out);
        return false;
      }
    named_.push_back(full);
    std::string simple = name; // AvroData's getNameOrDefault: an unnamed enum takes a ConnectDefault number
    if (!s.name() && ++default_names_ > 1)
      simple += std::to_string(default_names_);
    body += ',';
    name_json(split_name(full), body);
    if (const auto* doc = s.parameter(std::string(enum_doc_prefix) + simple)) {
      body += R"(,"doc":)";
      append_json_string(*doc, body);
    }
    body += R"(,"symbols":[)";
    const std::string prefix = std::string(enum_parameter) + ".";
    bool first = true;
    for (const auto& [k, v] : *s.parameters())
      if (k.starts_with(prefix)) {
        if (!first) body += ',';
        first = false;
        append_json_string(std::string_view(k).substr(prefix.size()), body);
      }
    body += ']';
    if (const auto* def = s.parameter(std::string(enum_default_prefix) + simple)) {
      body += R"(,"default":)";
      append_json_string(*def, body);
    }
    return true;
  }

  void base_json(const Schema& s, std::string& out) {
    SplitName n{std::string(connect_namespace), std::string(default_name)};
    if (s.name())
      n = avro_split(*s.name(), options_.scrub_invalid_names);
    Props props;
    std::string_view connect_type;
    std::string body; // the type's own members, after "type"
    std::string_view type;
    switch (s.type()) {
      case Type::Int8: type = "int"; connect_type = "int8"; break;
      case Type::Int16: type = "int"; connect_type = "int16"; break;
      case Type::Int32: type = "int"; break;
      case Type::Int64: type = "long"; break;
      case Type::Float32: type = "float"; break;
      case Type::Float64: type = "double"; break;
      case Type::Boolean: type = "boolean"; break;
      case Type::String:
        type = "string";
        if (const auto* full = s.parameter(enum_parameter); full && options_.enhanced_schema_support) {
          type = "enum";
          if (!enum_json(s, *full, n.name, body, out))
            return;
        }
        break;
      case Type::Bytes:
        type = "bytes";
        if (const auto size = fixed_size(s)) { // AvroData: fixed, named as the Connect schema
          type = "fixed";
          check_name(n.name, [&] { return "fixed name \"" + n.name + "\" (of Connect schema \"" + *s.name() + "\")"; });
          const std::string full = joined(n);
          if (std::find(named_.begin(), named_.end(), full) != named_.end()) {
            append_json_string(reference(full), out); // Avro Java writes a named type once
            return;
          }
          named_.push_back(full);
          body += ',';
          name_json(n, body);
          body += R"(,"size":)" + std::to_string(*size);
        }
        if (s.logical() == Logical::Decimal) {
          prop(props, "scale", std::to_string(s.decimal_scale()));
          const auto* p = s.parameter(precision_parameter);
          prop(props, "precision", p ? *p : std::to_string(default_precision));
        }
        break;
      case Type::Array:
        type = "array";
        body = R"(,"items":)";
        write(*s.value_schema(), s.value_schema()->optional(), false, body);
        break;
      case Type::Map:
        if (s.key_schema()->type() == Type::String && !s.key_schema()->optional()) {
          type = "map";
          body = R"(,"values":)";
          write(*s.value_schema(), s.value_schema()->optional(), false, body);
        } else {
          type = "array";
          body = R"(,"items":)";
          if (const auto* ref = defined(s)) {
            append_json_string(reference(*ref), body);
            break;
          }
          SplitName entry = s.name() ? n : SplitName{n.space, std::string(map_entry_name)};
          check_name(entry.name, [&] { return "map entry record name \"" + entry.name + "\""; });
          const std::string full = joined(entry);
          defined_.emplace_back(required_form(s), full);
          body += R"({"type":"record",)";
          name_json(entry, body);
          const std::string saved = space_;
          space_ = entry.space;
          body += R"(,"fields":[)";
          field_json("key", *s.key_schema(), nullptr, body);
          body += ',';
          field_json("value", *s.value_schema(), nullptr, body);
          body += ']';
          space_ = saved;
          if (s.name())
            body += R"(,"connect.internal.type":"MapEntry")";
          body += '}';
        }
        break;
      case Type::Struct:
        if (const auto* ref = defined(s)) {
          append_json_string(reference(*ref), out);
          return;
        }
        if (!s.name()) {
          if (++default_names_ > 1)
            n.name += std::to_string(default_names_);
        }
        record_json(s, n, body);
        break;
    }
    if (options_.connect_meta_data) {
      if (s.doc())
        prop_string(props, "connect.doc", *s.doc());
      if (s.version())
        prop(props, "connect.version", std::to_string(*s.version()));
      if (s.parameters() && !s.parameters()->empty()) {
        std::string params = "{";
        for (const auto& [k, v] : *s.parameters()) {
          if (k == field_default_parameter)
            continue;
          if (params.size() > 1) params += ',';
          append_json_string(k, params);
          params += ':';
          append_json_string(v, params);
        }
        params += '}';
        if (params.size() > 2)
          prop(props, "connect.parameters", std::move(params));
      }
      if (const Value* d = s.default_value(); d && !s.parameter(field_default_parameter)) {
        std::string json;
        default_json(s, *d, json);
        prop(props, "connect.default", std::move(json));
      }
      if (s.name())
        prop_string(props, "connect.name", *s.name());
      if (!connect_type.empty())
        prop_string(props, "connect.type", connect_type);
    }
    switch (s.logical()) {
      case Logical::Decimal:
        prop(props, "logicalType", R"("decimal")");
        break;
      case Logical::Time: prop(props, "logicalType", R"("time-millis")"); break;
      case Logical::Timestamp: prop(props, "logicalType", R"("timestamp-millis")"); break;
      case Logical::Date: prop(props, "logicalType", R"("date")"); break;
      case Logical::None: break;
    }
    if (s.parameters())
      for (const auto& [k, v] : *s.parameters())
        if (k.starts_with("avro")) {
          std::string json;
          append_json_string(v, json);
          prop(props, k, std::move(json));
        }
    if (s.type() != Type::Struct && props.empty() && body.empty()) {
      out += '"';
      out += type;
      out += '"';
      return;
    }
    if (s.type() != Type::Struct) {
      out += R"({"type":")";
      out += type;
      out += '"';
    }
    out += body; // a record's body is the open object, "type" included
    for (const auto& [k, v] : props) {
      out += ',';
      append_json_string(k, out);
      out += ':';
      out += v;
    }
    out += '}';
  }

  const WriteOptions& options_;
  std::vector<std::pair<SchemaPtr, std::string>> defined_; ///< required form -> full name
  std::vector<std::string> named_; ///< full names of the enums and fixed written
  std::string space_;
  int default_names_ = 0;
};


} // namespace

std::string schema_json(const Schema& schema, const WriteOptions& options) {
  Writer w(options);
  std::string out;
  w.write(schema, schema.optional(), false, out);
  return out;
}

std::string record_name(const Schema& schema, const WriteOptions& options) {
  switch (schema.type()) {
    case Type::Struct:
      if (schema.name())
        return options.scrub_invalid_names ? joined(scrubbed_split(*schema.name())) : *schema.name();
      return std::string(connect_namespace) + "." + std::string(default_name);
    case Type::Int8: case Type::Int16: case Type::Int32: return "int";
    case Type::Int64: return "long";
    default: return std::string(json_name(schema.type())); // float, double, boolean, string, ...: Avro's names too
  }
}

} // namespace weir::runtime::convert::avro
