// Runs PyTorch (TSB_PYTHON, /usr/bin/python3 by default) from a test. A
// Python without torch fails the test with a clear message: these tests
// exist to compare with PyTorch, so they never pass without it.
#ifndef TSBRIDGE_TESTS_TEXT_PYTHON_PEER_H_
#define TSBRIDGE_TESTS_TEXT_PYTHON_PEER_H_

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "tests/testing/build_paths.h"

namespace tsb::testing {

struct PythonRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs `TSB_PYTHON args` (args are shell words the caller quoted).
inline PythonRun RunPython(const std::string& args) {
  PythonRun run;
  const std::string command = std::string("'") + BuildPath("TSB_PYTHON") + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.output.append(buffer.data(), n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

inline std::string Quoted(const std::string& s) { return "'" + s + "'"; }

inline std::string Script(const char* name) {
  return Quoted(std::string(BuildPath("TSB_TEXT_SCRIPTS")) + "/" + name);
}

// Fails the current test (fatally, from a void helper) without torch.
#define TSB_REQUIRE_PYTORCH()                                                       \
  do {                                                                              \
    ::tsb::testing::PythonRun tsb_probe_ =                                          \
        ::tsb::testing::RunPython("-c 'import torch; print(torch.__version__)'");   \
    ASSERT_EQ(tsb_probe_.exit_code, 0)                                              \
        << ::tsb::testing::BuildPath("TSB_PYTHON")                                  \
        << " cannot import torch, so tsbridge cannot be checked against "           \
           "PyTorch (install python3-torch, or configure with -DTSB_PYTHON=...):\n" \
        << tsb_probe_.output;                                                       \
  } while (0)

// A fresh directory for one test's files (tests run in parallel processes).
inline std::string WorkDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(BuildPath("TSB_TEXT_WORK_DIR")) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFile(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(data, static_cast<std::streamsize>(size));
}

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_TEXT_PYTHON_PEER_H_
