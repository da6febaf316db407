#include "runtime/state/standalone_store.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <unistd.h>

using weir::runtime::state::StandaloneStore;

BOOST_AUTO_TEST_SUITE(standalone_store)

BOOST_AUTO_TEST_CASE(source_offsets_survive_a_reopen_and_update_in_place) {
  auto path = (std::filesystem::temp_directory_path()
               / ("weir-store-" + std::to_string(::getpid()) + ".db"))
                .string();
  std::filesystem::remove(path);
  {
    StandaloneStore store{path};
    BOOST_TEST(store.source_offsets("c").empty());
    store.put_source_offsets("c", {{R"({"filename":"/a"})", R"({"position":10})"},
                                   {R"({"filename":"/b"})", R"({"position":5})"}});
    store.put_source_offsets("c", {{R"({"filename":"/a"})", R"({"position":20})"}});
    store.put_source_offsets("other", {{R"({"filename":"/a"})", R"({"position":1})"}});
    store.put_source_offsets("c", {}); // nothing to write
  }
  StandaloneStore reopened{path};
  auto offsets = reopened.source_offsets("c");
  BOOST_TEST(offsets.size() == 2u);
  BOOST_TEST(offsets.at(R"({"filename":"/a"})") == R"({"position":20})");
  BOOST_TEST(offsets.at(R"({"filename":"/b"})") == R"({"position":5})");
  BOOST_TEST(reopened.source_offsets("other").size() == 1u);
  for (auto suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
}

// Issue 20, item 7: the file holds every connector config, secrets included.
BOOST_AUTO_TEST_CASE(the_state_file_is_readable_by_its_owner_only) {
  namespace fs = std::filesystem;
  auto path = (fs::temp_directory_path() / ("weir-store-mode-" + std::to_string(::getpid()) + ".db")).string();
  for (auto suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
  const auto owner_only = fs::perms::owner_read | fs::perms::owner_write;
  {
    StandaloneStore store{path};
    store.put_connector("c", {{"connection.password", "pw"}});
    for (auto suffix : {"", "-wal", "-shm"})
      BOOST_TEST_CONTEXT(path + suffix) { BOOST_TEST((fs::status(path + suffix).permissions() == owner_only)); }
  }
  // A file an older weir left readable to all is made private when opened.
  for (auto suffix : {"", "-wal", "-shm"})
    if (fs::exists(path + suffix)) fs::permissions(path + suffix, fs::perms::others_read | fs::perms::group_read,
                                                   fs::perm_options::add);
  StandaloneStore reopened{path};
  for (auto suffix : {"", "-wal", "-shm"})
    if (fs::exists(path + suffix))
      BOOST_TEST_CONTEXT(path + suffix) { BOOST_TEST((fs::status(path + suffix).permissions() == owner_only)); }
  for (auto suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
}

BOOST_AUTO_TEST_SUITE_END()
