#include "runtime/convert/avro_compatibility.hpp"

#include <algorithm>

namespace weir::runtime::convert::avro {

namespace {

using T = Node::Type;

// A named type's unqualified name (Avro Java's Schema.getName), ConnectDefault for a
// record AvroData left unnamed.
std::string simple_name(const Node& n) {
  const std::string* full = n.type == T::Enum ? n.connect->parameter(enum_parameter)
                            : n.connect->name() ? &*n.connect->name() : nullptr;
  if (full == nullptr)
    return std::string(default_name);
  return full->substr(full->rfind('.') + 1);
}

bool has_enum_default(const Node& n) {
  if (const auto& params = n.connect->parameters())
    for (const auto& [k, v] : *params)
      if (k.starts_with(enum_default_prefix))
        return true;
  return false;
}

class Checker {
public:
  std::vector<std::string> found;

  void check(const Node& r, const Node& w, const std::string& at) {
    if (w.type == T::Union) {
      for (size_t i = 0; i < w.children.size(); ++i)
        check(r, *w.children[i], at + "/" + std::to_string(i));
      return;
    }
    if (r.type == T::Union) {
      for (const Node* b : r.children)
        if (readable(*b, w))
          return;
      add("MISSING_UNION_BRANCH", "The new schema is missing a type inside a union field at path '" + path(at) +
                                      "' in the old schema", "reader union lacking writer type: " + upper(w));
      return;
    }
    if (r.type != w.type) {
      if (!promotes(w.type, r.type))
        add("TYPE_MISMATCH", "The type (path '" + path(at) + "') of a field in the new schema does not match with the old schema",
            "reader type: " + upper(r) + " not compatible with writer type: " + upper(w));
      return;
    }
    switch (r.type) {
      case T::Record: {
        if (!same_name(r, w, at))
          return;
        const auto& rf = r.connect->fields();
        const auto& wf = w.connect->fields();
        for (size_t i = 0; i < rf.size(); ++i) {
          auto it = std::find_if(wf.begin(), wf.end(), [&](const auto& f) { return f.name == rf[i].name; });
          const std::string field_at = at + "/fields/" + std::to_string(i);
          if (it != wf.end())
            check(*r.children[i], *w.children[it - wf.begin()], field_at + "/type");
          else if (!r.field_defaults[i])
            add("READER_FIELD_MISSING_DEFAULT_VALUE", "The field '" + rf[i].name + "' at path '" + path(field_at) +
                                                          "' in the new schema has no default value and is missing in the old schema",
                rf[i].name);
        }
        return;
      }
      case T::Enum: {
        if (!same_name(r, w, at))
          return;
        std::string missing;
        for (const auto& s : w.symbols)
          if (std::find(r.symbols.begin(), r.symbols.end(), s) == r.symbols.end())
            missing += (missing.empty() ? "[" : ", ") + s;
        if (!missing.empty() && !has_enum_default(r))
          add("MISSING_ENUM_SYMBOLS", "The new schema is missing enum symbols '" + missing + "]' at path '" +
                                          path(at + "/symbols") + "' in the old schema", missing + "]");
        return;
      }
      case T::Fixed:
        if (r.fixed_size != w.fixed_size)
          add("FIXED_SIZE_MISMATCH", "The size of FIXED type field at path '" + path(at + "/size") +
                                         "' in the new schema does not match with the old schema",
              "expected: " + std::to_string(w.fixed_size) + ", found: " + std::to_string(r.fixed_size));
        return;
      case T::Array: check(*r.children[0], *w.children[0], at + "/items"); return;
      case T::Map: check(*r.children[0], *w.children[0], at + "/values"); return;
      default: return;
    }
  }

private:
  static bool readable(const Node& r, const Node& w) {
    Checker c;
    c.check(r, w, "");
    return c.found.empty();
  }

  // Avro's promotions of a writer's type to a reader's.
  static bool promotes(T w, T r) {
    switch (w) {
      case T::Int: return r == T::Long || r == T::Float || r == T::Double;
      case T::Long: return r == T::Float || r == T::Double;
      case T::Float: return r == T::Double;
      case T::String: return r == T::Bytes;
      case T::Bytes: return r == T::String;
      default: return false;
    }
  }

  bool same_name(const Node& r, const Node& w, const std::string& at) {
    if (simple_name(r) == simple_name(w))
      return true;
    const std::string* wf = w.type == T::Enum ? w.connect->parameter(enum_parameter)
                            : w.connect->name() ? &*w.connect->name() : nullptr;
    add("NAME_MISMATCH", "The name of the schema has changed (path '" + path(at + "/name") + "')",
        "expected: " + (wf ? *wf : std::string(connect_namespace) + "." + std::string(default_name)));
    return false;
  }

  static std::string upper(const Node& n) {
    static constexpr std::string_view names[] = {"NULL", "BOOLEAN", "INT", "LONG", "FLOAT", "DOUBLE", "BYTES",
                                                 "STRING", "RECORD", "ENUM", "ARRAY", "MAP", "UNION", "FIXED"};
    return std::string(names[static_cast<size_t>(n.type)]);
  }

  static std::string path(const std::string& at) { return at.empty() ? "/" : at; }

  void add(std::string_view type, const std::string& description, const std::string& info) {
    found.push_back("{errorType:'" + std::string(type) + "', description:'" + description + "', additionalInfo:'" +
                    info + "'}");
  }
};

} // namespace

std::vector<std::string> incompatibilities(const Node& reader, const Node& writer) {
  Checker c;
  c.check(reader, writer, "");
  return std::move(c.found);
}

} // namespace weir::runtime::convert::avro
