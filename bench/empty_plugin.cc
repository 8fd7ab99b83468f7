// Not a plugin: an empty shared library that exports only the entry symbol
// (returning NULL, so the loader would refuse it). It is built twice, with
// and without a dependency on LibTorch, for plugin_load_benchmark's dlopen
// rows. Those rows split the cost of opening a plugin. One part is what the
// dynamic linker spends on the plugin's own code; the other is what it spends
// walking LibTorch's dependencies, which every library linked to LibTorch pays.
extern "C" __attribute__((visibility("default"))) const void* tsb_plugin_v1(void) {
  return nullptr;
}
