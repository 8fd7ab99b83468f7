"""The PyTorch corpus of the Python host (hosts/python/tests/corpus.py: the 18
cases of hosts/cli/tests/pytorch_corpus_test.py and 24 more), for the R host:
scripts and saves both modules, runs every case with PyTorch, and writes
corpus.json: per case the module, the method, the arguments as JSON
(docs/json.md, read by the R test with the parameters' types) and
PyTorch's result as JSON. The R test calls the same method with the R
values those arguments convert to and compares its result, written back as
JSON by the return type, with PyTorch's.

Usage: /usr/bin/python3 corpus_expected.py WORK_DIR
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "hosts" / "python" / "tests"))
import corpus  # noqa: E402  (also puts the corpus and json_mapping.py on the path)

base = corpus.base


def compact(j):
    """JSON as tsb_json_write prints it: no spaces, UTF-8 kept."""
    return json.dumps(j, separators=(",", ":"), ensure_ascii=False)


def main(work):
    work = Path(work)
    saved = corpus.save_modules(work)
    cases = [("kinds", m, a) for m, a in base.CASES] + \
            [("more", m, a) for m, a in corpus.MORE_CASES]
    out = []
    for module, method, args in cases:
        scripted = saved[module][0]
        result = getattr(scripted, method)(*args)
        out.append({"module": module, "method": method,
                    "args": [compact(base.argument_json(a)) for a in args],
                    "expected": compact(base.expected_json(result))})
    (work / "corpus.json").write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"{len(out)} cases written to {work / 'corpus.json'}")


if __name__ == "__main__":
    main(sys.argv[1])
