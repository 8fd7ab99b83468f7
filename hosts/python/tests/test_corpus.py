"""Every corpus case through tsbridge equals the same module called by
PyTorch: structure, Python types, values, namedtuple field names."""
import pytest

import corpus
from conftest import assert_same

CASES = [("kinds", m, a) for m, a in corpus.base.CASES] + \
        [("more", m, a) for m, a in corpus.MORE_CASES]


@pytest.mark.parametrize("module,method,args", CASES,
                         ids=[f"{m}.{n}-{i}" for i, (m, n, _) in enumerate(CASES)])
def test_same_as_pytorch(modules, module, method, args):
    scripted, loaded = modules[module]
    want = getattr(scripted, method)(*args)
    got = getattr(loaded, method)(*args)
    assert_same(got, want)


def test_corpus_covers_every_kind(modules):
    """The corpus is not allowed to shrink below the kinds the issue names."""
    methods = {m for _, m, _ in CASES}
    for needed in ("scalars", "text", "tensors", "dtypes", "dicts", "optionals", "unions",
                   "named", "enums", "objects", "ints", "bool_keys", "masks", "moods",
                   "forward", "nested"):
        assert needed in methods
