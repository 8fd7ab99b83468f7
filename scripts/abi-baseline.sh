#!/usr/bin/env bash
# Makes the ABI baselines at a minor release (docs/install.md, "The ABI
# check"): the host ABI from the built libtsbridge.so and tsbridge.h, the
# plugin ABI from plugin.h, written by abidw to sdk/abi/ in place of the last
# release's, with sdk/abi/README.md saying how they were made. On Debian 12,
# from the release's commit:
#
#   bash scripts/abi-baseline.sh      # builds the library in TSB_BUILD_DIR (build/)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_missing
TSB_BUILD_TARGETS=tsbridge configure_and_build
cd "$ROOT"
library="$BUILD/lib/$(readlink "$BUILD/lib/libtsbridge.so.1")"
for abi in tsbridge plugin; do
  /usr/bin/python3 tests/abi/abi_check.py baseline "$abi" --include sdk/include \
    --library "$library" --baselines sdk/abi
done
version() { sed -n "s/^#define $1_$2 \([0-9]*\).*/\1/p" "sdk/include/tsbridge/$3"; }
host="$(version TSB_VERSION MAJOR tsbridge.h).$(version TSB_VERSION MINOR tsbridge.h)"
plugin="$(version TSB_PLUGIN_ABI MAJOR plugin.h).$(version TSB_PLUGIN_ABI MINOR plugin.h)"
cat >sdk/abi/README.md <<README
# ABI baselines

The last minor release's ABIs, which ctest's \`abidiff_host\` and
\`abidiff_plugin\` compare the tree with (docs/install.md, "The ABI check").
Made by \`bash scripts/abi-baseline.sh\` from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- sdk/include core || echo ' (with local changes)'),
release $(version TSB_VERSION MAJOR tsbridge.h).$(version TSB_VERSION MINOR tsbridge.h).$(version TSB_VERSION PATCH tsbridge.h), on $(. /etc/os-release && echo "$PRETTY_NAME") with $(abidw --version), $(gcc --version | head -n 1):

- \`tsbridge-$host.library.abi\`: abidw of libtsbridge.so's exported \`tsb_*\` functions;
- \`tsbridge-$host.types.abi\`: abidw of a probe taking each type tsbridge.h defines;
- \`plugin-$plugin.types.abi\`: abidw of a probe taking each type plugin.h defines.
README
echo "tsbridge: baselines for host ABI $host and plugin ABI $plugin in sdk/abi/"
