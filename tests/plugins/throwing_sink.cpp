// A test plugin (issue 9, must-show 3): writes each record's value as a line to
// `file`, rejects records whose value contains `reject.on` (SinkBatch::fail), and
// throws from put() when a value contains `throw.on` — a std::runtime_error, or with
// throw.kind=other an int, which is not a std::exception. Built like an out-of-tree
// plugin: it includes only weir/ headers and links libweir_sdk only.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <weir/plugin.hpp>

namespace {

class ThrowingSink : public weir::Sink {
public:
  static void define(weir::ConfigDef& def) {
    def.define("file", weir::ConfigType::String, weir::Importance::High, "Where values go.",
               weir::validators::non_empty());
    def.define("throw.on", weir::ConfigType::String, "poison", weir::Importance::Low,
               "put() throws when a value contains this.");
    def.define("throw.kind", weir::ConfigType::String, "std", weir::Importance::Low,
               "std: a std::runtime_error; other: an int.",
               weir::validators::one_of({"std", "other"}));
    def.define("reject.on", weir::ConfigType::String, "reject", weir::Importance::Low,
               "Records whose value contains this are failed with SinkBatch::fail.");
  }

  void open(const weir::Config& config, const weir::SinkContext& context) override {
    path_ = config.get_string("file");
    throw_on_ = config.get_string("throw.on");
    throw_int_ = config.get_string("throw.kind") == "other";
    reject_on_ = config.get_string("reject.on");
    task_ = context.connector + "/" + std::to_string(context.task);
    out_ = std::fopen(path_.c_str(), "a");
    if (!out_)
      throw std::runtime_error("ThrowingSink: cannot open " + path_);
  }

  void put(weir::SinkBatch& batch) override {
    for (size_t i = 0; i < batch.size(); ++i) {
      std::string_view value = batch[i].value.value_or("null");
      if (value.find(throw_on_) != std::string_view::npos) {
        if (throw_int_)
          throw 42;
        throw std::runtime_error("ThrowingSink " + task_ + " refuses offset "
                                 + std::to_string(batch[i].offset) + ": " + std::string{value});
      }
      if (value.find(reject_on_) != std::string_view::npos) {
        batch.fail(i, "rejected by ThrowingSink: " + std::string{value});
        continue;
      }
      std::fprintf(out_, "%.*s\n", static_cast<int>(value.size()), value.data());
    }
  }

  void flush() override { std::fflush(out_); }

  void close() override {
    if (out_)
      std::fclose(out_);
    out_ = nullptr;
  }

private:
  std::string path_, throw_on_, reject_on_, task_;
  bool throw_int_ = false;
  std::FILE* out_ = nullptr;
};

void register_plugin(weir::PluginRegistrar& registrar) {
  registrar.add_sink<ThrowingSink>("org.weir.test.ThrowingSinkConnector", {"ThrowingSink"},
                                   "0.0.1-test");
}

} // namespace

WEIR_PLUGIN(register_plugin)
