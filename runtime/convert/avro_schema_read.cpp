// Avro schema JSON -> a Node tree with Connect schemas (AvroData.toConnectSchema).
#include "runtime/convert/avro_schema.hpp"

#include <avro.h>
#include <simdjson.h>

#include "runtime/data/errors.hpp"

namespace weir::runtime::convert::avro {

using namespace runtime::data;
namespace dom = simdjson::dom;

struct ParsedSchema::Builder {
  ParsedSchema& out;
  std::vector<std::pair<std::string, std::pair<dom::element, std::string>>> named; ///< full name -> definition, namespace
  std::vector<std::string> building; ///< named types being built (recursion check)

  Node* make(Node::Type t) {
    out.nodes_.push_back(std::make_unique<Node>());
    out.nodes_.back()->type = t;
    return out.nodes_.back().get();
  }

  static std::optional<Node::Type> primitive(std::string_view name) {
    if (name == "null") return Node::Type::Null;
    if (name == "boolean") return Node::Type::Boolean;
    if (name == "int") return Node::Type::Int;
    if (name == "long") return Node::Type::Long;
    if (name == "float") return Node::Type::Float;
    if (name == "double") return Node::Type::Double;
    if (name == "bytes") return Node::Type::Bytes;
    if (name == "string") return Node::Type::String;
    return std::nullopt;
  }

  static std::string full_name(std::string_view name, std::string_view ns) {
    if (name.find('.') != std::string_view::npos || ns.empty())
      return std::string(name);
    return std::string(ns) + "." + std::string(name);
  }

  static dom::element member(dom::element e, const char* key) {
    dom::element out;
    if (e[key].get(out) != simdjson::SUCCESS)
      throw DataError(std::string("Invalid Avro schema, no \"") + key + "\": " + simdjson::to_string(e));
    return out;
  }

  static std::optional<std::string_view> str(dom::element e, const char* key) {
    std::string_view v;
    if (e.is_object() && e[key].get(v) == simdjson::SUCCESS)
      return v;
    return std::nullopt;
  }

  static std::string type_name(const Node& n) {
    switch (n.type) {
      case Node::Type::Null: return "null";
      case Node::Type::Boolean: return "boolean";
      case Node::Type::Int: return "int";
      case Node::Type::Long: return "long";
      case Node::Type::Float: return "float";
      case Node::Type::Double: return "double";
      case Node::Type::Bytes: return "bytes";
      case Node::Type::String: return "string";
      case Node::Type::Array: return "array";
      case Node::Type::Map: return "map";
      default: return {};
    }
  }

  bool connect_meta_data = true;
  bool full_union_names = false; ///< enhanced.avro.schema.support

  // A JSON default (a field's "default" or "connect.default") as a Connect value of
  // `type` (`items`: array items or map values); nullopt where weir does not read it
  // back yet (structs, maps with other keys, null).
  static std::optional<Value> default_of(dom::element json, Type type, const Schema* items, Arena& arena) {
    int64_t i = 0;
    double d = 0;
    bool flag = false;
    std::string_view text;
    switch (type) {
      case Type::Int8: case Type::Int16: case Type::Int32: case Type::Int64:
        if (json.get(i) != simdjson::SUCCESS) return std::nullopt;
        return Value::integer(kind_of(type), i);
      case Type::Float32: case Type::Float64:
        if (json.get(d) != simdjson::SUCCESS) {
          if (json.get(i) != simdjson::SUCCESS) return std::nullopt;
          d = static_cast<double>(i);
        }
        return type == Type::Float32 ? Value::float32(static_cast<float>(d)) : Value::float64(d);
      case Type::Boolean:
        if (json.get(flag) != simdjson::SUCCESS) return std::nullopt;
        return Value::boolean(flag);
      case Type::String:
        if (json.get(text) != simdjson::SUCCESS) return std::nullopt;
        return Value::string(arena.copy(text));
      case Type::Bytes: {
        // Avro keeps a bytes default as a string of code points 0-255, one per byte.
        if (json.get(text) != simdjson::SUCCESS) return std::nullopt;
        std::string bytes;
        for (size_t k = 0; k < text.size(); ++k) {
          auto c = static_cast<unsigned char>(text[k]);
          if (c >= 0xC0 && k + 1 < text.size()) {
            bytes += static_cast<char>(((c & 0x1F) << 6) | (static_cast<unsigned char>(text[++k]) & 0x3F));
          } else {
            bytes += static_cast<char>(c);
          }
        }
        return Value::bytes(arena.copy(bytes));
      }
      case Type::Array: {
        dom::array a;
        if (items == nullptr || json.get(a) != simdjson::SUCCESS) return std::nullopt;
        Value out = Value::array(arena, 0);
        for (dom::element e : a) {
          auto v = default_of(e, items->type(), items->value_schema().get(), arena);
          if (!v) return std::nullopt;
          out.push_back(arena, *v);
        }
        return out;
      }
      case Type::Map: {
        dom::object o;
        if (items == nullptr || json.get(o) != simdjson::SUCCESS) return std::nullopt;
        Value out = Value::map(arena, 0);
        for (auto [k, e] : o) {
          auto v = default_of(e, items->type(), items->value_schema().get(), arena);
          if (!v) return std::nullopt;
          out.append(arena, Value::string(arena.copy(k)), *v);
        }
        return out;
      }
      case Type::Struct: return std::nullopt;
    }
    return std::nullopt;
  }

  // What AvroData.toConnectSchema reads after the type: connect.doc, connect.version,
  // connect.parameters, avro* properties, the default (the field's, else
  // connect.default) and the name (connect.name, else a record's or enum's full name).
  void metadata(dom::element e, SchemaBuilder& b, std::optional<std::string> avro_name,
                std::optional<dom::element> field_default, const Schema* items = nullptr) {
    std::optional<dom::element> connect_default;
    if (e.is_object()) {
      if (auto doc = str(e, "connect.doc"); doc && connect_meta_data)
        b.doc(std::string(*doc));
      int64_t version = 0;
      if (e["connect.version"].get(version) == simdjson::SUCCESS)
        b.version(static_cast<int32_t>(version));
      dom::object params;
      if (connect_meta_data && e["connect.parameters"].get(params) == simdjson::SUCCESS)
        for (auto [k, v] : params) {
          std::string_view value;
          if (v.get(value) == simdjson::SUCCESS)
            b.parameter(std::string(k), std::string(value));
        }
      for (auto [k, v] : dom::object(e))
        if (k.starts_with("avro")) {
          std::string_view value;
          b.parameter(std::string(k), v.get(value) == simdjson::SUCCESS ? std::string(value) : simdjson::to_string(v));
        }
      dom::element d;
      if (e["connect.default"].get(d) == simdjson::SUCCESS)
        connect_default = d;
    }
    if (!field_default)
      field_default = connect_default;
    else if (!connect_default)
      b.parameter(std::string(field_default_parameter), "true");
    if (field_default) {
      Arena arena(256);
      if (auto v = default_of(*field_default, b.type(), items, arena))
        b.default_value(*v);
    }
    std::optional<std::string> name;
    if (auto n = e.is_object() ? str(e, "connect.name") : std::nullopt)
      name = std::string(*n);
    else
      name = std::move(avro_name);
    if (name && !name->starts_with(std::string(connect_namespace) + "." + std::string(default_name)))
      b.name(*name);
  }

  SchemaPtr finish(SchemaBuilder& b, bool optional) {
    if (optional)
      b.optional();
    return b.build();
  }

  using Default = std::optional<dom::element>; ///< a record field's default

  const Node* build(dom::element e, const std::string& ns, bool optional, Default fd = std::nullopt) {
    std::string_view name;
    if (e.get(name) == simdjson::SUCCESS) {
      if (auto p = primitive(name))
        return primitive_node(*p, e, optional, fd);
      return reference(name, ns, optional, fd);
    }
    dom::array branches;
    if (e.get(branches) == simdjson::SUCCESS)
      return union_node(branches, ns, optional);
    if (!e.is_object())
      throw DataError("Invalid Avro schema: " + std::string(simdjson::to_string(e)));
    dom::element type;
    if (e["type"].get(type) != simdjson::SUCCESS)
      throw DataError("Invalid Avro schema, no type: " + std::string(simdjson::to_string(e)));
    std::string_view t;
    if (type.get(t) != simdjson::SUCCESS)
      return build(type, ns, optional, fd);
    if (auto p = primitive(t))
      return primitive_node(*p, e, optional, fd);
    if (t == "record" || t == "error")
      return record_node(e, ns, optional, fd);
    if (t == "enum")
      return enum_node(e, ns, optional, fd);
    if (t == "fixed")
      return fixed_node(e, ns, optional, fd);
    if (t == "array")
      return array_node(e, ns, optional, fd);
    if (t == "map") {
      auto* n = make(Node::Type::Map);
      n->children.push_back(build(member(e, "values"), ns, false));
      SchemaBuilder b = SchemaBuilder::map(schemas::string(), n->children[0]->connect);
      metadata(e, b, std::nullopt, fd, n->children[0]->connect.get());
      n->connect = finish(b, optional);
      return n;
    }
    return reference(t, ns, optional, fd);
  }

  const Node* reference(std::string_view name, const std::string& ns, bool optional, Default fd) {
    std::string full = full_name(name, ns);
    for (const auto& [n, def] : named)
      if (n == full || n == name) {
        for (const auto& b : building)
          if (b == n)
            throw DataError("Avro schema " + n + " refers to itself: weir's Connect schemas cannot be recursive");
        return build(def.first, def.second, optional, fd);
      }
    throw DataError("Avro schema refers to an undefined type: " + std::string(name));
  }

  // Defines a named type; the namespace its members inherit.
  std::pair<std::string, std::string> define(dom::element e, const std::string& ns) {
    std::string_view name = str(e, "name").value_or("");
    std::string space = ns;
    if (auto n = str(e, "namespace"))
      space = std::string(*n);
    std::string full = full_name(name, space);
    auto dot = full.rfind('.');
    space = dot == std::string::npos ? std::string() : full.substr(0, dot);
    bool known = false;
    for (const auto& [n, def] : named)
      known = known || n == full;
    if (!known)
      named.push_back({full, {e, ns}});
    return {full, space};
  }

  const Node* primitive_node(Node::Type t, dom::element e, bool optional, Default fd) {
    auto* n = make(t);
    std::optional<std::string_view> logical = str(e, "logicalType");
    std::optional<std::string_view> connect_type = str(e, "connect.type");
    std::optional<SchemaBuilder> b;
    switch (t) {
      case Node::Type::Null: throw DataError("Avro type null is only supported in unions");
      case Node::Type::Boolean: b.emplace(Type::Boolean); break;
      case Node::Type::Int:
        if (logical == "date") b = SchemaBuilder::date();
        else if (logical == "time-millis") b = SchemaBuilder::time();
        else if (connect_type == "int8") b.emplace(Type::Int8);
        else if (connect_type == "int16") b.emplace(Type::Int16);
        else b.emplace(Type::Int32);
        break;
      case Node::Type::Long: b = logical == "timestamp-millis" ? SchemaBuilder::timestamp() : SchemaBuilder(Type::Int64); break;
      case Node::Type::Float: b.emplace(Type::Float32); break;
      case Node::Type::Double: b.emplace(Type::Float64); break;
      case Node::Type::String: b.emplace(Type::String); break;
      case Node::Type::Bytes:
        if (logical == "decimal") b = decimal(e);
        else b.emplace(Type::Bytes);
        break;
      default: break;
    }
    metadata(e, *b, std::nullopt, fd);
    n->connect = finish(*b, optional);
    return n;
  }

  static SchemaBuilder decimal(dom::element e) {
    int64_t scale = 0, precision = default_precision;
    if (e["scale"].get(scale) != simdjson::SUCCESS)
      scale = 0; // Avro's default
    SchemaBuilder b = SchemaBuilder::decimal(static_cast<int32_t>(scale));
    if (e["precision"].get(precision) == simdjson::SUCCESS && precision != default_precision)
      b.parameter(std::string(precision_parameter), std::to_string(precision));
    return b;
  }

  const Node* record_node(dom::element e, const std::string& ns, bool optional, Default fd) {
    auto [full, space] = define(e, ns);
    building.push_back(full);
    auto* n = make(Node::Type::Record);
    SchemaBuilder b = SchemaBuilder::struct_();
    if (auto doc = str(e, "doc"); doc && connect_meta_data)
      b.parameter(std::string(record_doc_parameter), std::string(*doc));
    dom::array fields;
    if (e["fields"].get(fields) != simdjson::SUCCESS)
      throw DataError("Avro record " + full + " has no fields");
    for (dom::element f : fields) {
      std::string_view name = str(f, "name").value_or("");
      if (auto doc = str(f, "doc"); doc && connect_meta_data)
        b.parameter(std::string(field_doc_prefix) + std::string(name), std::string(*doc));
      Default field_default;
      if (dom::element d; f["default"].get(d) == simdjson::SUCCESS)
        field_default = d;
      const Node* child = build(member(f, "type"), space, false, field_default);
      n->children.push_back(child);
      n->field_defaults.push_back(field_default.has_value());
      b.field(std::string(name), child->connect);
    }
    metadata(e, b, full, fd);
    n->connect = finish(b, optional);
    building.pop_back();
    return n;
  }

  const Node* enum_node(dom::element e, const std::string& ns, bool optional, Default fd) {
    auto [full, space] = define(e, ns);
    auto* n = make(Node::Type::Enum);
    SchemaBuilder b(Type::String);
    const std::string simple = split_name(full).name;
    if (auto doc = str(e, "doc"); doc && connect_meta_data)
      b.parameter("io.confluent.connect.avro.enum.doc." + simple, std::string(*doc));
    if (auto symbol = str(e, "default"); symbol && connect_meta_data)
      b.parameter("io.confluent.connect.avro.enum.default." + simple, std::string(*symbol));
    b.parameter(std::string(enum_parameter), full);
    dom::array symbols;
    if (member(e, "symbols").get(symbols) != simdjson::SUCCESS)
      throw DataError("Avro enum " + full + " has no symbols");
    for (dom::element s : symbols) {
      std::string_view text;
      if (s.get(text) != simdjson::SUCCESS)
        throw DataError("Avro enum " + full + " has a symbol that is not a string");
      std::string symbol(text);
      b.parameter(std::string(enum_parameter) + "." + symbol, symbol);
      n->symbols.push_back(std::move(symbol));
    }
    metadata(e, b, full, fd);
    n->connect = finish(b, optional);
    return n;
  }

  const Node* fixed_node(dom::element e, const std::string& ns, bool optional, Default fd) {
    auto [full, space] = define(e, ns);
    auto* n = make(Node::Type::Fixed);
    int64_t size = 0;
    if (member(e, "size").get(size) != simdjson::SUCCESS || size < 0)
      throw DataError("Avro fixed " + full + " has no valid size");
    n->fixed_size = static_cast<int32_t>(size);
    SchemaBuilder b = str(e, "logicalType") == "decimal" ? decimal(e) : SchemaBuilder(Type::Bytes);
    if (b.type() == Type::Bytes && str(e, "logicalType") != "decimal")
      b.parameter(std::string(fixed_size_parameter), std::to_string(n->fixed_size));
    metadata(e, b, str(e, "logicalType") == "decimal" ? std::nullopt : std::optional<std::string>(full), fd);
    n->connect = finish(b, optional);
    return n;
  }

  static bool is_map_entry(dom::element items, const Node& record) {
    if (record.type != Node::Type::Record || record.children.size() != 2)
      return false;
    const auto& fields = record.connect->fields();
    if (fields[0].name != "key" || fields[1].name != "value")
      return false;
    if (str(items, "connect.internal.type") == map_entry_name)
      return true;
    return str(items, "name") == map_entry_name &&
           (str(items, "namespace") == connect_namespace || str(items, "name") == "io.confluent.connect.avro.MapEntry");
  }

  const Node* array_node(dom::element e, const std::string& ns, bool optional, Default fd) {
    auto* n = make(Node::Type::Array);
    dom::element items = member(e, "items");
    const Node* item = build(items, ns, false);
    n->children.push_back(item);
    if (items.is_object() && is_map_entry(items, *item)) {
      n->map_entries = true;
      SchemaBuilder b = SchemaBuilder::map(item->connect->fields()[0].schema, item->connect->fields()[1].schema);
      metadata(e, b, std::nullopt, fd, item->connect->fields()[1].schema.get());
      n->connect = finish(b, optional);
      return n;
    }
    SchemaBuilder b = SchemaBuilder::array(item->connect);
    metadata(e, b, std::nullopt, fd, item->connect.get());
    n->connect = finish(b, optional);
    return n;
  }

  const Node* union_node(dom::array branches, const std::string& ns, bool optional) {
    auto* n = make(Node::Type::Union);
    std::vector<dom::element> others;
    bool has_null = false;
    for (dom::element b : branches) {
      std::string_view name;
      if (b.get(name) == simdjson::SUCCESS && name == "null")
        has_null = true;
      else
        others.push_back(b);
    }
    if (others.empty())
      throw DataError("Avro union of null alone has no Connect schema");
    // [null, T] (either order): an optional T; the field's default is dropped, as
    // AvroData drops it. Any other union, [T] alone included, is a Union struct.
    if (has_null && others.size() == 1 && branches.size() == 2) {
      const Node* value = build(others[0], ns, optional || has_null);
      for (dom::element b : branches) {
        std::string_view name;
        const bool null = b.get(name) == simdjson::SUCCESS && name == "null";
        n->children.push_back(null ? make(Node::Type::Null) : value);
      }
      n->connect = value->connect;
      return n;
    }
    // Several types: Confluent's Union struct, one optional field per branch.
    n->union_struct = true;
    SchemaBuilder b = SchemaBuilder::struct_();
    b.name(std::string(union_struct_name));
    int32_t field = 0;
    for (dom::element e : branches) {
      std::string_view name;
      if (e.get(name) == simdjson::SUCCESS && name == "null") {
        n->children.push_back(make(Node::Type::Null));
        n->union_field.push_back(-1);
        continue;
      }
      const Node* branch = build(e, ns, true);
      std::string field_name = type_name(*branch);
      if (field_name.empty()) { // record, enum, fixed: the simple name, or the full one
        const std::string& full = branch->type == Node::Type::Enum ? *branch->connect->parameter(enum_parameter)
                                                                    : named_full(e, ns);
        field_name = full_union_names ? full : split_name(full).name;
      }
      b.field(field_name, branch->connect);
      n->children.push_back(branch);
      n->union_field.push_back(field++);
    }
    n->connect = finish(b, optional || has_null);
    return n;
  }

  std::string named_full(dom::element e, const std::string& ns) {
    std::string_view name;
    if (e.get(name) == simdjson::SUCCESS)
      return full_name(name, ns);
    std::string space = ns;
    if (auto s = str(e, "namespace"))
      space = std::string(*s);
    return full_name(str(e, "name").value_or(""), space);
  }
};

std::shared_ptr<const ParsedSchema> ParsedSchema::parse(std::string_view json, bool connect_meta_data,
                                                       std::optional<int32_t> registry_version,
                                                       bool full_union_names) {
  avro_schema_t checked = nullptr;
  if (avro_schema_from_json_length(json.data(), json.size(), &checked) != 0)
    throw DataError("Invalid Avro schema: " + std::string(avro_strerror()));
  avro_schema_decref(checked);
  dom::parser parser;
  dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS)
    throw DataError("Invalid Avro schema JSON");
  auto out = std::make_shared<ParsedSchema>();
  Builder b{*out, {}, {}, connect_meta_data, full_union_names};
  try {
    out->root_ = b.build(root, {}, false);
    std::string_view name;
    if (root.get(name) == simdjson::SUCCESS)
      out->record_name_ = std::string(name);
    else if (auto n = Builder::str(root, "name"))
      out->record_name_ = b.named_full(root, {});
    else
      out->record_name_ = Builder::str(root, "type").value_or("union");
  } catch (const simdjson::simdjson_error& e) {
    throw DataError(std::string("Invalid Avro schema: ") + e.what());
  }
  // AvroData takes the registry's version for the top-level schema when it has no
  // connect.version (not through a top-level union).
  Node* top = nullptr;
  for (auto& n : out->nodes_)
    if (n.get() == out->root_)
      top = n.get();
  if (registry_version && top->type != Node::Type::Union && !top->connect->version()) {
    const Schema& s = *top->connect;
    SchemaBuilder copy = SchemaBuilder::copy_basics(s, s.type());
    for (const auto& f : s.fields())
      copy.field(f.name, f.schema);
    if (const Value* d = s.default_value())
      copy.default_value(*d);
    copy.optional(s.optional()).version(*registry_version);
    top->connect = copy.build();
  }
  return out;
}

} // namespace weir::runtime::convert::avro
