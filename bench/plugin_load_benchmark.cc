// Plugin load plus registration, without LibTorch's own start-up. The goal
// is at most 2 ms per plugin.
//
// A process starts LibTorch once, when libtsbridge.so loads (libtorch_cpu.so,
// its static initialisers). A plugin loads once per process: loading the same
// file again returns the id it already has. So every timed load below loads a
// library this process has never seen, in one of two ways.
//
//  - In this process, on fresh copies of one fixture (bench/registration_plugin.cc,
//    5 named types and 12 functions, the size of torchsparse's registration).
//    Before each timed iteration the fixture is copied to a new file name
//    (reg_0001.so, reg_0002.so, ...). That file name is also its plugin name,
//    so the names of its types and functions are new too. Rows:
//      plugin_load/copy/load     tsb_plugin_load: dlopen + dlsym of the entry
//                                point, the descriptor checks, the registration
//                                (every type string goes through LibTorch's
//                                parser) and the commit to the registries;
//      plugin_load/copy/dlopen   the baseline: dlopen(RTLD_NOW | RTLD_LOCAL) +
//                                dlsym of the same fixture (other fresh copies
//                                of the same file), without registering anything;
//      plugin_load/copy/dlopen_empty_torch, plugin_load/copy/dlopen_empty
//                                the same dlopen + dlsym of an empty library
//                                (bench/empty_plugin.cc), built with and
//                                without a dependency on LibTorch. These rows
//                                show what a dlopen spends in the dynamic
//                                linker's walk of LibTorch's dependencies.
//    The copying, and the dlclose of each baseline library (so that no
//    baseline library stays behind), happen while the timer is paused. Every
//    plugin stays loaded, and each one makes the dynamic linker's later
//    searches a little longer. So the four rows run in rounds, one repetition
//    of each per round (the rows ask for Repetitions(1) and are registered
//    once per --benchmark_repetitions). Each row then sees about the same
//    number of loaded plugins, and bench/ratios.py takes the median of the
//    rounds. LibTorch is started, and one copy loaded, before any timing, so
//    these rows show the steady cost of loading one more plugin.
//  - In a new process per timed load, for the bundled plugins (their names are
//    compiled in, so a second copy would be refused) and for the fixture
//    itself: plugin_load/process/{tuple,optional,fixture}. The benchmark runs
//    itself as a child (--tsb_child_load=PATH --tsb_child_mode=load|dlopen).
//    The child starts LibTorch with tsb_type_parse("int"), then times the
//    first plugin load of its life with its own clocks and prints the result.
//    Each iteration runs one child that only dlopens the file (the baseline)
//    and one that loads it with tsb_plugin_load. These rows report the
//    child's figures as counters: load_ms and dlopen_ms are its thread CPU
//    time in ms, load_wall_ms is its wall time, vs_dlopen = load_ms /
//    dlopen_ms, and vs_goal = load_ms / 2 ms. The row's own time is the
//    child's wall time (UseManualTime). The parent's cpu_time is only the cost
//    of starting children, so these rows carry no vs= label, and
//    bench/ratios.py leaves them out.
//
//  - plugin_load/bundled/{eager,deferred}/{none,tuple,tuple_optional}: a new
//    process per iteration times tsb_plugin_load_bundled or
//    tsb_plugin_defer_bundled followed by a tsb_type_parse that needs no
//    bundled plugin, the tuple plugin, or tuple and optional (counters cpu_ms
//    and wall_ms; no vs= label).
//
// Before timing, the binary checks that a loaded copy registered what it
// should: 5 types and 12 functions under its own name.
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>

#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

extern char** environ;

using tsb::testing::BuildPath;

namespace {

constexpr double kGoalMs = 2.0;
// Fresh copies per round of each in-process row. Every loaded plugin stays in
// the process (plugins are never unloaded; the core holds at most 1024).
constexpr int kCopyIterations = 8;
// Child processes per repetition of each plugin_load/process row (two per
// iteration: dlopen and load). Each child starts LibTorch (about 0.5 s of CPU).
constexpr int kProcessIterations = 3;
const char* const kCopyBaseline = "plugin_load/copy/dlopen";

std::string g_self;      // this binary, for the children
std::string g_copy_dir;  // the fresh copies live here; removed at exit
int g_copies = 0;

double ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
double WallNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// A new file name holding the bytes of `source`. For the fixture, the base
// name is the plugin's name (see bench/registration_plugin.cc).
std::string FreshCopy(const char* source = BuildPath("TSB_BENCH_REGISTRATION_PLUGIN"),
                      const char* prefix = "reg") {
  char name[64];
  std::snprintf(name, sizeof(name), "%s_%04d.so", prefix, ++g_copies);
  std::string path = g_copy_dir + "/" + name;
  std::filesystem::copy_file(source, path);
  return path;
}

std::string TakeMessage(tsb_status* s) {
  std::string message = tsb_status_get_message(s);
  tsb_status_free(s);
  return message;
}

// ------------------------------------------------------------ the child

// Runs in the child: start LibTorch, time one load of `path`, print
// "<thread cpu ns> <wall ns>".
int ChildMain(const std::string& mode, const std::string& path) {
  int32_t index = 0;
  if (tsb_status* s = tsb_type_parse("int", &index)) {
    std::fprintf(stderr, "child: %s\n", TakeMessage(s).c_str());
    return 1;
  }
  double cpu0 = 0, wall0 = 0, cpu1 = 0, wall1 = 0;
  if (mode == "dlopen") {
    cpu0 = ThreadCpuNs();
    wall0 = WallNs();
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* entry = library ? dlsym(library, "tsb_plugin_v1") : nullptr;
    cpu1 = ThreadCpuNs();
    wall1 = WallNs();
    if (entry == nullptr) {
      std::fprintf(stderr, "child: dlopen %s: %s\n", path.c_str(), dlerror());
      return 1;
    }
  } else if (mode == "load") {
    int32_t id = -1;
    cpu0 = ThreadCpuNs();
    wall0 = WallNs();
    tsb_status* s = tsb_plugin_load(path.c_str(), &id);
    cpu1 = ThreadCpuNs();
    wall1 = WallNs();
    if (s != nullptr) {
      std::fprintf(stderr, "child: %s\n", TakeMessage(s).c_str());
      return 1;
    }
  } else if (mode == "eager" || mode == "deferred") {
    // The bundled plugins, then a type that needs some, none or all of them
    // (`path` is the type string here).
    cpu0 = ThreadCpuNs();
    wall0 = WallNs();
    tsb_status* s = mode == "eager" ? tsb_plugin_load_bundled() : tsb_plugin_defer_bundled();
    if (s == nullptr) s = tsb_type_parse(path.c_str(), &index);
    cpu1 = ThreadCpuNs();
    wall1 = WallNs();
    if (s != nullptr) {
      std::fprintf(stderr, "child: %s\n", TakeMessage(s).c_str());
      return 1;
    }
  } else {
    std::fprintf(stderr, "child: unknown mode '%s'\n", mode.c_str());
    return 1;
  }
  std::printf("%.0f %.0f\n", cpu1 - cpu0, wall1 - wall0);
  return 0;
}

struct ChildResult {
  bool ok = false;
  double cpu_ns = 0;
  double wall_ns = 0;
  std::string error;
};

ChildResult RunChild(const char* mode, const std::string& path) {
  ChildResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.error = std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::string mode_arg = std::string("--tsb_child_mode=") + mode;
  std::string path_arg = "--tsb_child_load=" + path;
  char* argv[] = {g_self.data(), mode_arg.data(), path_arg.data(), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, g_self.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    result.error = std::strerror(spawned);
    return result;
  }
  std::string out;
  char buffer[256];
  ssize_t n = 0;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(out.c_str(), "%lf %lf", &result.cpu_ns, &result.wall_ns) != 2) {
    result.error = std::string("child ") + mode + " " + path + " failed (see stderr)";
    return result;
  }
  result.ok = true;
  return result;
}

// ------------------------------------------------------- the benchmarks

// dlopen + dlsym of a fresh copy of `source`; dlclose outside the timing.
void CopyDlopen(benchmark::State& state, const char* source, const char* prefix) {
  for (auto _ : state) {
    state.PauseTiming();
    std::string path = FreshCopy(source, prefix);
    state.ResumeTiming();
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* entry = library ? dlsym(library, "tsb_plugin_v1") : nullptr;
    state.PauseTiming();
    if (entry == nullptr) {
      state.SkipWithError(dlerror());
      return;
    }
    benchmark::DoNotOptimize(entry);
    dlclose(library);
    state.ResumeTiming();
  }
  if (std::strcmp(prefix, "reg") != 0) state.SetLabel(std::string("vs=") + kCopyBaseline);
}

void CopyLoad(benchmark::State& state) {
  double cpu_ns = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string path = FreshCopy();
    state.ResumeTiming();
    const double cpu0 = ThreadCpuNs();
    int32_t id = -1;
    tsb_status* s = tsb_plugin_load(path.c_str(), &id);
    cpu_ns += ThreadCpuNs() - cpu0;
    if (s != nullptr) {
      state.SkipWithError(TakeMessage(s).c_str());
      return;
    }
  }
  const double ms = cpu_ns / 1e6 / static_cast<double>(state.iterations());
  state.counters["load_ms"] = ms;
  state.counters["vs_goal"] = ms / kGoalMs;
  state.SetLabel(std::string("vs=") + kCopyBaseline);
}

void ProcessLoad(benchmark::State& state, std::string path) {
  double load_cpu = 0, load_wall = 0, dlopen_cpu = 0;
  for (auto _ : state) {
    ChildResult bare = RunChild("dlopen", path);
    ChildResult full = RunChild("load", path);
    if (!bare.ok || !full.ok) {
      state.SkipWithError((bare.ok ? full.error : bare.error).c_str());
      return;
    }
    dlopen_cpu += bare.cpu_ns;
    load_cpu += full.cpu_ns;
    load_wall += full.wall_ns;
    state.SetIterationTime(full.wall_ns / 1e9);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["load_ms"] = load_cpu / 1e6 / n;
  state.counters["load_wall_ms"] = load_wall / 1e6 / n;
  state.counters["dlopen_ms"] = dlopen_cpu / 1e6 / n;
  state.counters["vs_dlopen"] = load_cpu / dlopen_cpu;
  state.counters["vs_goal"] = load_cpu / 1e6 / n / kGoalMs;
}

// The bundled plugins in a new process, loaded all at once or on first
// need, followed by a tsb_type_parse of `type`: counters cpu_ms and wall_ms.
void BundledLoad(benchmark::State& state, const char* mode, std::string type) {
  double cpu = 0, wall = 0;
  for (auto _ : state) {
    ChildResult child = RunChild(mode, type);
    if (!child.ok) {
      state.SkipWithError(child.error.c_str());
      return;
    }
    cpu += child.cpu_ns;
    wall += child.wall_ns;
    state.SetIterationTime(child.wall_ns / 1e9);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = cpu / 1e6 / n;
  state.counters["wall_ms"] = wall / 1e6 / n;
}

// Whether dlclose really unmaps a copy of `source` (a library with
// STB_GNU_UNIQUE symbols, or linked with -z nodelete, stays).
bool UnloadsOnClose(const char* source, const char* prefix) {
  std::string path = FreshCopy(source, prefix);
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return false;
  dlclose(library);
  void* again = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (again != nullptr) dlclose(again);
  return again == nullptr;
}

// The copy a load registered: its name, 5 types, 12 functions.
bool CheckFixture(int32_t id, const std::string& path) {
  tsb_plugin_info info{};
  info.struct_size = sizeof(info);
  if (tsb_status* s = tsb_plugin_get_info(id, &info)) {
    std::fprintf(stderr, "setup failed: %s\n", TakeMessage(s).c_str());
    return false;
  }
  std::string want = std::filesystem::path(path).stem().string();
  if (want != info.name || info.num_types != 5 || info.num_functions != 12) {
    std::fprintf(stderr, "setup failed: fixture %s registered %zu types, %zu functions\n",
                 info.name, info.num_types, info.num_functions);
    return false;
  }
  return true;
}

std::string ArgValue(const char* arg, const char* flag) {
  size_t n = std::strlen(flag);
  return std::strncmp(arg, flag, n) == 0 ? std::string(arg + n) : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  // Child mode first: a child must not run the benchmarks.
  std::string child_mode, child_path;
  for (int i = 1; i < argc; ++i) {
    if (std::string v = ArgValue(argv[i], "--tsb_child_mode="); !v.empty()) child_mode = v;
    if (std::string v = ArgValue(argv[i], "--tsb_child_load="); !v.empty()) child_path = v;
  }
  if (!child_mode.empty()) return ChildMain(child_mode, child_path);
  // The in-process rows run one repetition per round (see the top).
  int rounds = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string v = ArgValue(argv[i], "--benchmark_repetitions="); !v.empty()) {
      rounds = std::max(1, std::atoi(v.c_str()));
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  std::error_code error;
  g_self = std::filesystem::read_symlink("/proc/self/exe", error).string();
  char dir_template[] = "/tmp/tsb_plugin_load_XXXXXX";
  if (error || mkdtemp(dir_template) == nullptr) {
    std::fprintf(stderr, "setup failed: no temporary directory or no /proc/self/exe\n");
    return 1;
  }
  g_copy_dir = dir_template;

  // LibTorch and the registry start here, before anything is timed; so does
  // the first plugin load of the process (the lazy parts of LibTorch's type
  // parser, the loader's own tables).
  int32_t index = 0;
  if (tsb_status* s = tsb_type_parse("int", &index)) {
    std::fprintf(stderr, "setup failed: %s\n", TakeMessage(s).c_str());
    return 1;
  }
  std::string first = FreshCopy();
  int32_t id = -1;
  if (tsb_status* s = tsb_plugin_load(first.c_str(), &id)) {
    std::fprintf(stderr, "setup failed: %s\n", TakeMessage(s).c_str());
    return 1;
  }
  if (!CheckFixture(id, first)) return 1;
  for (const char* source :
       {BuildPath("TSB_BENCH_REGISTRATION_PLUGIN"), BuildPath("TSB_BENCH_EMPTY_TORCH_LIBRARY"),
        BuildPath("TSB_BENCH_EMPTY_LIBRARY")}) {
    if (!UnloadsOnClose(source, "probe")) {
      std::fprintf(stderr, "note: dlclose leaves %s loaded, so its dlopen rows add "
                   "libraries to the process\n", source);
    }
  }

  for (int round = 0; round < rounds; ++round) {
    benchmark::RegisterBenchmark("plugin_load/copy/dlopen_empty", CopyDlopen,
                                 BuildPath("TSB_BENCH_EMPTY_LIBRARY"), "empty")
        ->Unit(benchmark::kMillisecond)
        ->Iterations(kCopyIterations)
        ->Repetitions(1);
    benchmark::RegisterBenchmark("plugin_load/copy/dlopen_empty_torch", CopyDlopen,
                                 BuildPath("TSB_BENCH_EMPTY_TORCH_LIBRARY"), "empty_torch")
        ->Unit(benchmark::kMillisecond)
        ->Iterations(kCopyIterations)
        ->Repetitions(1);
    benchmark::RegisterBenchmark(kCopyBaseline, CopyDlopen,
                                 BuildPath("TSB_BENCH_REGISTRATION_PLUGIN"), "reg")
        ->Unit(benchmark::kMillisecond)
        ->Iterations(kCopyIterations)
        ->Repetitions(1);
    benchmark::RegisterBenchmark("plugin_load/copy/load", CopyLoad)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(kCopyIterations)
        ->Repetitions(1);
  }
  const std::pair<const char*, const char*> processes[] = {
      {"plugin_load/process/tuple", BuildPath("TSB_TUPLE_PLUGIN_PATH")},
      {"plugin_load/process/optional", BuildPath("TSB_OPTIONAL_PLUGIN_PATH")},
      {"plugin_load/process/fixture", BuildPath("TSB_BENCH_REGISTRATION_PLUGIN")},
  };
  for (const auto& [name, path] : processes) {
    benchmark::RegisterBenchmark(name, ProcessLoad, std::string(path))
        ->Unit(benchmark::kMillisecond)
        ->Iterations(kProcessIterations)
        ->UseManualTime();
  }

  // What a process pays for the bundled plugins (tsb_plugin_load_bundled
  // against tsb_plugin_defer_bundled), by what its values need.
  const std::pair<const char*, const char*> needs[] = {
      {"none", "Dict[str, List[int]]"},
      {"tuple", "Tuple[int, str]"},
      {"tuple_optional", "Tuple[int, Optional[str]]"},
  };
  for (const char* mode : {"eager", "deferred"}) {
    for (const auto& [need, type] : needs) {
      benchmark::RegisterBenchmark(
          (std::string("plugin_load/bundled/") + mode + "/" + need).c_str(), BundledLoad, mode,
          std::string(type))
          ->Unit(benchmark::kMillisecond)
          ->Iterations(kProcessIterations)
          ->UseManualTime();
    }
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(g_copy_dir, error);  // the copies stay mapped
  if (size_t live = ::tsb::LiveHandles(); live != 0) {
    std::fprintf(stderr, "WARNING: %lld boundary handles leaked\n", static_cast<long long>(live));
    return 1;
  }
  return 0;
}
