"""The self-test of a source check: small trees, each written to a fresh
folder and checked, the clean one expected to pass and each broken one to
fail with its rule's message. Shared by core_layers_check.py and
abi_version_check.py."""
import tempfile
from pathlib import Path


def run_cases(cases, check_tree):
    """cases: (name, {relative path: text}, says), says None for a tree that
    must pass, else a text one of its errors must contain. check_tree(root)
    gives a tree's errors. Prints the outcome; returns the exit status."""
    failures = []
    for name, files, says in cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
            errors = check_tree(root)
        if says is None and errors:
            failures.append(f"{name}: {errors}")
        elif says is not None and not any(says in e for e in errors):
            failures.append(f"{name}: no error saying {says!r} (got {errors})")
    broken = sum(1 for _, _, says in cases if says is not None)
    print("\n".join(failures) or f"self-test: the clean tree passes and each of {broken} "
                                 "broken trees fails with its rule's message")
    return 1 if failures else 0
