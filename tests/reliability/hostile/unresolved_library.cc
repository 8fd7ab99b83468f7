// A shared library needing a symbol that no loaded library defines, as one
// built against another LibTorch does: dlopen (RTLD_NOW) refuses it.
// library_hostile_test.cc gives it to tsb_library_load.
extern "C" int tsb_hostile_symbol_nowhere(int);

extern "C" __attribute__((visibility("default"))) int tsb_hostile_uses_it(int x) {
  return tsb_hostile_symbol_nowhere(x) + 1;
}
