// The main of the GoogleTest suites: after every test (and every suite's
// static fixtures) has finished, no boundary handle may still be alive. A
// leaked handle fails the run even when each test's own check passed.
//
// --tsb_process_per_test runs each case in a process of its own, forked from
// this one before it ran anything: the suites about process-wide state (which
// plugins are loaded, what the environment said at first use) see a new
// process's state in every case, without LibTorch's start (most of a second)
// per case. tests/CMakeLists.txt's tsb_add_gtest(... PROCESS_PER_TEST).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

class NoLiveHandlesAtExit : public ::testing::Environment {
 public:
  void TearDown() override {
    EXPECT_EQ(::tsb::LiveHandles(), 0) << "boundary handles still alive at exit";
  }
};

// Every case's full name, in the order gtest runs them.
std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      names.push_back(std::string(suite.name()) + "." + suite.GetTestInfo(j)->name());
    }
  }
  return names;
}

// Runs each case in a child of this process, one after the other; fails
// when any child fails or dies, naming those cases.
int RunEachCaseInItsOwnProcess() {
  std::vector<std::string> failed;
  const std::vector<std::string> names = CaseNames();
  for (const std::string& name : names) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      GTEST_FLAG_SET(filter, name);
      const int rc = RUN_ALL_TESTS();
      std::fflush(stdout);
      std::fflush(stderr);
      std::exit(rc);  // static destructors and sanitizers' exit checks run
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
      std::perror("waitpid");
      return 1;
    }
    if (WIFSIGNALED(status)) {
      std::printf("[tsbridge] %s: killed by signal %d (%s)\n", name.c_str(), WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
      failed.push_back(name);
    } else if (WEXITSTATUS(status) != 0) {
      failed.push_back(name);
    }
  }
  std::printf("[tsbridge] %zu cases, each in its own process: %zu failed\n", names.size(),
              failed.size());
  for (const std::string& name : failed) std::printf("[tsbridge] FAILED %s\n", name.c_str());
  return failed.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // leaves the flags it does not know
  bool per_process = false;
  for (int i = 1; i < argc; ++i) per_process |= std::strcmp(argv[i], "--tsb_process_per_test") == 0;
  ::testing::AddGlobalTestEnvironment(new NoLiveHandlesAtExit);  // gtest owns it
  // A filter names the cases to run (one case, by hand): one process serves.
  if (per_process && GTEST_FLAG_GET(filter) == "*") return RunEachCaseInItsOwnProcess();
  return RUN_ALL_TESTS();
}
