// The main of the GoogleTest suites: after every test (and every suite's
// static fixtures) has finished, no boundary handle may still be alive. A
// leaked handle fails the run even when each test's own check passed.
#include <gtest/gtest.h>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace {

class NoLiveHandlesAtExit : public ::testing::Environment {
 public:
  void TearDown() override {
    EXPECT_EQ(::tsb::LiveHandles(), 0) << "boundary handles still alive at exit";
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new NoLiveHandlesAtExit);  // gtest owns it
  return RUN_ALL_TESTS();
}
