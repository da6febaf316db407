// Fuzzing of `weir transform`'s input lines (cli/offline_transform.hpp): the input is
// the JSON-lines stream, run through three fixed connector configs (schemaless JSON
// with a chain of field SMTs and a predicate; schema'd JSON with Cast, Flatten,
// TimestampConverter and SetSchemaMetadata; string converters with header SMTs and
// errors.tolerance=none). Each run ends with offline_ok or offline_record_error,
// never an exception or a config error (the configs are valid); a bad line is reported
// on the error stream naming its line.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>

#include "tests/fuzz/report.hpp"
#include "cli/offline_transform.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* configs[] = {
    R"(value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
key.converter=org.apache.kafka.connect.storage.StringConverter
errors.tolerance=all
transforms=drop,mask,insert,rename,hoist,flat,key,route
transforms.drop.type=Filter
transforms.drop.predicate=isTest
transforms.mask.type=MaskField$Value
transforms.mask.fields=card,cvv
transforms.insert.type=InsertField$Value
transforms.insert.topic.field=_topic
transforms.insert.offset.field=_offset
transforms.insert.static.field=_by
transforms.insert.static.value=fuzz
transforms.rename.type=ReplaceField$Value
transforms.rename.renames=a:b
transforms.rename.exclude=secret
transforms.hoist.type=HoistField$Value
transforms.hoist.field=wrapped
transforms.flat.type=Flatten$Value
transforms.key.type=ValueToKey
transforms.key.fields=wrapped.id
transforms.key.field.syntax.version=V2
transforms.route.type=RegexRouter
transforms.route.regex=(.*)-(\d+)
transforms.route.replacement=$1
predicates=isTest
predicates.isTest.type=TopicNameMatches
predicates.isTest.pattern=test-.*
)",
    R"(value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=true
key.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=true
errors.tolerance=all
transforms=cast,ts,flat,meta,extract
transforms.cast.type=Cast$Value
transforms.cast.spec=id:int64,amount:float32,ok:string
transforms.ts.type=TimestampConverter$Value
transforms.ts.field=ts
transforms.ts.target.type=string
transforms.ts.format=yyyy-MM-dd'T'HH:mm:ss.SSSZ
transforms.flat.type=Flatten$Value
transforms.flat.delimiter=_
transforms.meta.type=SetSchemaMetadata$Value
transforms.meta.schema.name=fuzzed
transforms.meta.schema.version=3
transforms.extract.type=ExtractField$Key
transforms.extract.field=id
)",
    R"(value.converter=org.apache.kafka.connect.storage.StringConverter
key.converter=org.apache.kafka.connect.converters.ByteArrayConverter
transforms=ins,from,drop,router
transforms.ins.type=InsertHeader
transforms.ins.header=added
transforms.ins.value.literal=[1, 2.50, "x"]
transforms.from.type=HeaderFrom$Key
transforms.from.fields=id
transforms.from.headers=kid
transforms.from.operation=copy
transforms.drop.type=DropHeaders
transforms.drop.headers=gone
transforms.router.type=TimestampRouter
transforms.router.topic.format=${topic}-${timestamp}
transforms.router.timestamp.format=yyyyMMdd
)",
};

// The config files, written once into a directory removed at exit.
struct ConfigFiles {
  fs::path dir;
  std::string paths[std::size(configs)];

  ConfigFiles() {
    dir = fs::temp_directory_path() / ("weir-fuzz-offline-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (size_t i = 0; i < std::size(configs); ++i) {
      paths[i] = (dir / ("config" + std::to_string(i) + ".properties")).string();
      std::ofstream(paths[i]) << configs[i];
    }
  }
  ~ConfigFiles() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ConfigFiles files;
  std::string lines(reinterpret_cast<const char*>(data), size);
  for (const std::string& config : files.paths) {
    std::istringstream in(lines);
    std::ostringstream out, err;
    int rc = weir::cli::run_offline_transform(config, in, out, err);
    if (rc != weir::cli::offline_ok && rc != weir::cli::offline_record_error) {
      weir::fuzz::finding("offline_transform", "exit " + std::to_string(rc) + " with " + config, lines, err.str());
    }
  }
  return 0;
}
