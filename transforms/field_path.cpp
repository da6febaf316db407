#include "transforms/field_path.hpp"

#include "runtime/convert/text.hpp"
#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view nested_purpose = "nested field access";
} // namespace

void define_field_syntax_version(ConfigDef& def) {
  def.define("field.syntax.version", ConfigType::String, "V1", Importance::High,
             "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited "
             "to access the elements at the root level of the struct or map. If set to `V2`, the syntax will support "
             "accessing nested elements. To access nested elements, dotted notation is used. If dots are already "
             "included in the field name, then backtick pairs can be used to wrap field names containing dots. E.g. "
             "to access the subfield `baz` from a field named \"foo.bar\" in a struct/map the following format can "
             "be used to access its elements: \"`foo.bar`.baz\".",
             validators::one_of({"V1", "V2"}, true));
}

FieldSyntaxVersion field_syntax_version(const Config& config) {
  const std::string& v = config.get_string("field.syntax.version");
  return (v == "V2" || v == "v2") ? FieldSyntaxVersion::V2 : FieldSyntaxVersion::V1;
}

std::vector<std::string> FieldPath::parse_v2(std::string_view path, std::string_view key) {
  auto incomplete = [&](size_t backtick_at) {
    config_error(std::string(key), path,
                 "Incomplete backtick pair in path: [" + std::string(path)
                     + "], consider adding a backslash before backtick at position " + std::to_string(backtick_at)
                     + " to escape it");
  };
  std::vector<std::string> steps;
  const size_t n = path.size();
  size_t idx = 0;
  while (idx < n) {
    if (path[idx] != '`') {
      size_t dot = path.find('.', idx);
      if (dot == std::string_view::npos) {
        steps.emplace_back(path.substr(idx));
        break;
      }
      steps.emplace_back(path.substr(idx, dot - idx));
      idx = dot + 1;
      continue;
    }
    // A backtick-wrapped step ends at the first unescaped backtick followed by a dot
    // or by the end; other backticks belong to the name.
    size_t backtick_at = idx++;
    size_t start = idx;
    std::string field;
    while (true) {
      idx = path.find('`', idx);
      if (idx == std::string_view::npos)
        incomplete(backtick_at);
      bool escaped = path[idx - 1] == '\\';
      if (idx >= n - 1) {
        if (escaped)
          incomplete(backtick_at);
        field.append(path.substr(start, idx - start));
        steps.push_back(std::move(field));
        idx = n;
        break;
      }
      if (path[idx + 1] != '.') {
        ++idx;
        continue;
      }
      if (escaped) {
        field.append(path.substr(start, idx - 1 - start));
        field += '`';
        start = ++idx;
        continue;
      }
      field.append(path.substr(start, idx - start));
      steps.push_back(std::move(field));
      idx += 2;
      break;
    }
  }
  if (!path.empty() && path.back() == '.')
    steps.emplace_back();
  return steps;
}

FieldPath::FieldPath(std::string_view text, FieldSyntaxVersion version, std::string_view key) : text_(text) {
  if (version == FieldSyntaxVersion::V1)
    steps_.emplace_back(text);
  else
    steps_ = parse_v2(text, key);
  if (steps_.empty()) // Kafka fails on every record (index out of bounds); fail once, here
    config_error(std::string(key), text, "Field path must name at least one field");
}

const Field* FieldPath::field_from(const Schema& schema) const {
  const Schema* current = &schema;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current->type() != Type::Struct)
      throw DataError("Cannot look up fields on non-struct type");
    const Field* f = current->field(steps_[i]);
    if (f == nullptr || i + 1 == steps_.size())
      return f;
    current = f->schema.get();
  }
  return nullptr;
}

Value FieldPath::value_from_map(const Value& map) const {
  const Value* current = &map;
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    const Value* next = current->find(steps_[i]);
    if (next == nullptr || next->is_null())
      return {};
    Value step = *next;
    require_map(step, nested_purpose);
    current = next;
  }
  const Value* last = current->find(steps_.back());
  return last ? *last : Value();
}

Value FieldPath::value_from_struct(const Value& structure, Arena& arena, bool replace_null_with_default) const {
  Value current = structure;
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    const Field* f = current.schema()->field(steps_[i]);
    if (f == nullptr)
      return {};
    Value sub = field_value(current, *f, arena, true);
    if (sub.is_null())
      return {};
    current = require_struct(sub, nested_purpose);
  }
  const Field* f = current.schema()->field(steps_.back());
  if (f == nullptr)
    return {};
  return field_value(current, *f, arena, replace_null_with_default);
}

} // namespace weir::transforms
