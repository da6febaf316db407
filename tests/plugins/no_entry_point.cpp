// A test plugin: a shared library without weir's entry points (e.g. a dependency
// someone put into plugin.path). weir must name the missing symbol and the file.
extern "C" __attribute__((visibility("default"))) int some_other_library_function() {
  return 7;
}
