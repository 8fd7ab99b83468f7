"""torch.load of bytes, for the differential tests and the soak."""
import io

import torch


class BytesReader:
    """Bytes as a file object without ``readinto``, for torch.load: PyTorch
    1.13's reader of Python file objects never releases the int ``readinto``
    returns (one leaked per read, found by LeakSanitizer in the sanitizer
    stage; docs/reliability.md). Without ``readinto`` it calls ``read``."""

    def __init__(self, data):
        self._f = io.BytesIO(data)
        self.read, self.seek, self.tell = self._f.read, self._f.seek, self._f.tell
        self.readline = self._f.readline


def torch_load_bytes(data):
    return torch.load(BytesReader(data), weights_only=False)
