// Paths a test or benchmark binary was built with: fixtures, plugins,
// scripts, the Python that checks results. They live in one generated
// source per binary (tsb_build_paths() in cmake/build_paths.cmake), not in
// compile definitions, so that no other object depends on where the tree is
// checked out and ccache serves every clone (docs/platforms.md).
#ifndef TSBRIDGE_TESTS_TESTING_BUILD_PATHS_H_
#define TSBRIDGE_TESTS_TESTING_BUILD_PATHS_H_

namespace tsb::testing {

// The path CMake gave NAME (for example "TSB_OPLIB_FIXTURE") for this binary.
// A name the binary was not given is a build mistake: it aborts, naming it.
const char* BuildPath(const char* name);

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_TESTING_BUILD_PATHS_H_
