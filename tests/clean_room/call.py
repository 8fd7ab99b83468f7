"""The clean-room test, Python: the installed package calls the module and
the out-of-tree plugin (tests/clean_room/inside.sh)."""
import sys

import torch
import tsbridge

module_path, plugin_path = sys.argv[1:3]
m = tsbridge.load(module_path)
total, shapes = m(x={"a": torch.ones(2, 3), "b": torch.arange(4.0)}, scale=0.5)
assert total == 0.5 * (6 + 6), total
assert shapes == {"a": [2, 3], "b": [4]}, shapes
try:
    m(x={"a": "not a tensor"})
    raise SystemExit("a str for a Tensor was accepted")
except tsbridge.TypeMismatchError as e:
    assert 'key "a": expected Tensor' in str(e), str(e)
plugin = tsbridge.load_plugin(plugin_path)
assert plugin.name == "mysparse", plugin
s = tsbridge.ops.mysparse.summarize(torch.tensor([0, 0, 2, 3]), 4, 4, with_counts=True)
assert s.nnz == 4 and s.row_counts.tolist() == [2, 0, 1, 1], s
print("python: ok", tsbridge.__file__)
