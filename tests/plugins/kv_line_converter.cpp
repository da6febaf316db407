// Converter plugins for the SDK tests (issue 25):
// - KvLineConverter: values written as `k=v;k=v` text become schemaless maps of
//   strings, and back. Malformed text (a pair without `=`) and a value that is not a
//   map of strings are bad data (DataError), which errors.tolerance handles.
// - Base64HeaderConverter: header values are base64 text in Kafka and strings in
//   Connect; a header that is not base64 is bad data.
#include <string>

#include <weir/plugin.hpp>

namespace {

using weir::data::DataError;
using weir::data::Kind;
using weir::data::Value;

class KvLineConverter final : public weir::Converter {
public:
  static void define(weir::ConfigDef& def) {
    def.define("separator", weir::ConfigType::String, ";", weir::Importance::Medium, "Between two pairs.",
               weir::validators::non_empty());
  }
  KvLineConverter(const weir::Config& config, bool /*is_key*/) : separator_(config.get_string("separator")) {}

  void to_connect(std::string_view, const std::optional<std::string_view>& bytes, weir::RecordBatch& batch,
                  Value& value, const weir::data::Schema*& schema) override {
    schema = nullptr;
    if (!bytes) {
      value = Value();
      return;
    }
    value = Value::map(batch.arena(), 4);
    std::string_view rest = *bytes;
    while (!rest.empty()) {
      auto end = rest.find(separator_);
      auto pair = rest.substr(0, end);
      auto eq = pair.find('=');
      if (eq == std::string_view::npos)
        throw DataError("KvLineConverter: '" + std::string(pair) + "' is not key=value");
      // The input bytes live as long as the batch: view them.
      value.append(batch.arena(), Value::string(pair.substr(0, eq)), Value::string(pair.substr(eq + 1)));
      rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + separator_.size());
    }
  }

  bool from_connect(std::string_view, const Value& value, const weir::data::Schema*, std::string& out) override {
    if (value.is_null())
      return false;
    if (value.kind() != Kind::Map)
      throw DataError("KvLineConverter writes maps only");
    bool first = true;
    for (const auto& e : value.entries()) {
      if (e.key.kind() != Kind::String || e.value.kind() != Kind::String)
        throw DataError("KvLineConverter writes maps of strings only");
      if (!first)
        out += separator_;
      out.append(e.key.as_string()).append("=").append(e.value.as_string());
      first = false;
    }
    return true;
  }

private:
  std::string separator_;
};

class Base64HeaderConverter final : public weir::HeaderConverter {
public:
  static void define(weir::ConfigDef&) {}
  explicit Base64HeaderConverter(const weir::Config&) {}

  void to_connect(std::string_view, std::string_view key, const std::optional<std::string_view>& bytes,
                  weir::RecordBatch& batch, Value& value, const weir::data::Schema*& schema) override {
    schema = nullptr;
    if (!bytes) {
      value = Value();
      return;
    }
    std::string text;
    uint32_t bits = 0;
    int count = 0;
    for (char c : *bytes) {
      if (c == '=')
        break;
      auto pos = alphabet.find(c);
      if (pos == std::string_view::npos)
        throw DataError("Base64HeaderConverter: header " + std::string(key) + " is not base64");
      bits = (bits << 6) | static_cast<uint32_t>(pos);
      if ((count += 6) >= 8) {
        count -= 8;
        text.push_back(static_cast<char>((bits >> count) & 0xFF));
      }
    }
    value = Value::string(batch.arena().copy(text));
  }

  bool from_connect(std::string_view, std::string_view key, const Value& value, const weir::data::Schema*,
                    std::string& out) override {
    if (value.is_null())
      return false;
    if (value.kind() != Kind::String)
      throw DataError("Base64HeaderConverter: header " + std::string(key) + " is not a string");
    const size_t start = out.size(); // `out` may hold other headers already
    uint32_t bits = 0;
    int count = 0;
    for (unsigned char c : value.as_string()) {
      bits = (bits << 8) | c;
      for (count += 8; count >= 6; count -= 6)
        out.push_back(alphabet[(bits >> (count - 6)) & 0x3F]);
    }
    if (count > 0)
      out.push_back(alphabet[(bits << (6 - count)) & 0x3F]);
    while ((out.size() - start) % 4 != 0)
      out.push_back('=');
    return true;
  }

private:
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
};

void register_plugin(weir::PluginRegistrar& r) {
  r.add_converter<KvLineConverter>("com.example.weir.KvLineConverter", {"KvLine"}, "2.1.0");
  r.add_header_converter<Base64HeaderConverter>("com.example.weir.Base64HeaderConverter", {}, "2.1.0");
}

} // namespace

WEIR_PLUGIN(register_plugin)
