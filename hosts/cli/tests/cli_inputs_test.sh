#!/usr/bin/env bash
# The tsb command line's input and output forms (docs/cli.md): help, --args
# and --kwargs from a file or standard input, {"file": ...} tensors saved by
# PyTorch, --out read back by torch.load, --summary, --jsonl, `tsb call`,
# operator libraries by name, and each bad input with its message.
# Usage: cli_inputs_test.sh TSB EXAMPLE_MODEL WORK_DIR PYTHON
set -u
tsb=$1 model=$2 work=$3 python=$4
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
mkdir -p "$work"
cd "$work" || exit 1

example_args='[[[0.5, 1.5], [2.0, -1.0]], [[0, "start"], [1, "end"]],
  {"first": {"dtype": "float32", "shape": [2], "data": [1, 2]},
   "second": {"dtype": "float32", "shape": [2], "data": [10, 20]}}, 2.0]'

# Help, and the demo it names.
expect "no arguments prints help" 0 'demo' -- "$tsb"
expect "help lists call" 0 'call a plugin function or an operator' -- "$tsb"

# --args @FILE, --args -, --kwargs @FILE, --kwargs -.
printf '%s' "$example_args" > args.json
printf '%s' "${example_args%, 2.0]}]" > args3.json  # without the scale
echo '{"scale": 3}' > kwargs.json
expect "--args @FILE" 0 '"data":[12.0,24.0]' -- "$tsb" run "$model" --args @args.json
expect_stdin "--args -" 0 '"data":[12.0,24.0]' "$example_args" -- "$tsb" run "$model" --args -
expect "--kwargs @FILE" 0 '{"start":[1.5,4.5]' -- \
  "$tsb" run "$model" --args @args3.json --kwargs @kwargs.json
expect_stdin "--kwargs -" 0 '{"start":[1.5,4.5]' '{"scale": 3}' -- \
  "$tsb" run "$model" --args @args3.json --kwargs -
expect "--args @missing" 2 'tsb: --args: cannot read "missing.json": No such file or directory' -- \
  "$tsb" run "$model" --args @missing.json
echo '[1,' > broken.json
expect "--args @FILE with bad JSON" 2 'tsb: --args is not valid JSON' -- \
  "$tsb" run "$model" --args @broken.json

# {"file": ...}: tensors and other values torch.save wrote.
echo 'def forward(self, x: Tensor) -> Tensor:
    return x * 2
def total(self, xs: List[Tensor], scale: float = 1.0) -> Tensor:
    return torch.stack(xs).sum() * scale
def arange(self, n: int) -> Tensor:
    return torch.arange(n).float()' > tensors.torchscript
expect "compile" 0 '' -- "$tsb" compile tensors.torchscript -o tensors.pt
"$python" -c '
import torch
torch.save(torch.tensor([1.0, 2.5]), "x.pt")
torch.save({"a": torch.ones(2), "b": torch.zeros(1)}, "dict.pt")
' || echo "FAILED: $python could not write the fixtures"
echo "not a tensor" > notes.txt
expect '{"file": x.pt}' 0 '"data":[2.0,5.0]' -- "$tsb" run tensors.pt --args '[{"file": "x.pt"}]'
expect '{"file": ...} in a list, with --kwargs' 0 '"data":[14.0]' -- \
  "$tsb" run tensors.pt total --args '[[{"file": "x.pt"}, {"file": "x.pt"}]]' --kwargs '{"scale": 2}'
expect '{"file": missing}' 1 \
  "tsb: forward(): argument 'x': cannot read \"missing.pt\": No such file or directory" -- \
  "$tsb" run tensors.pt --args '[{"file": "missing.pt"}]'
expect '{"file": not a tensor file}' 1 \
  "tsb: forward(): argument 'x': \"notes.txt\" is not a file torch.save wrote" -- \
  "$tsb" run tensors.pt --args '[{"file": "notes.txt"}]'
expect '{"file": a dict where a Tensor goes}' 1 \
  "tsb: total(): argument 'xs' → [1]: expected Tensor, got Dict" -- \
  "$tsb" run tensors.pt total --args '[[{"file": "x.pt"}, {"file": "dict.pt"}]]'
expect '{"file": not a tensor file, in a list}' 1 \
  "tsb: total(): argument 'xs' → [1]: \"notes.txt\" is not a file torch.save wrote" -- \
  "$tsb" run tensors.pt total --args '[[{"file": "x.pt"}, {"file": "notes.txt"}]]'
expect '{"image": ...} without torchvision' 1 \
  "{\"image\": ...} is decoded by torchvision's image operators, which are not loaded: add --library torchvision" -- \
  "$tsb" run tensors.pt --args '[{"image": "photo.jpg"}]'

# --out: torch.load reads what tsb saved.
expect "--out" 0 '' -- "$tsb" run tensors.pt --args '[{"file": "x.pt"}]' --out y.pt
expect "torch.load reads --out" 0 'tensor([2., 5.])' -- "$python" -c 'import torch; print(torch.load("y.pt"))'
expect "--out to a missing directory" 1 'tsb: cannot write "nodir/y.pt"' -- \
  "$tsb" run tensors.pt --args '[{"file": "x.pt"}]' --out nodir/y.pt

# --summary: large tensors as dtype, shape, min, max, mean; small ones whole.
expect "--summary" 0 '{"dtype":"float32","shape":[100],"min":0.0,"max":99.0,"mean":49.5}' -- \
  "$tsb" run tensors.pt arange --args '[100]' --summary
expect "--summary keeps small tensors" 0 '"data":[0.0,1.0,2.0]' -- \
  "$tsb" run tensors.pt arange --args '[3]' --summary

# --jsonl: one call per line; a bad line gets an error line, the rest run.
lines='[3]
[4,
{"args": [2]}
{"argz": [2]}
[5]
'
expect_stdin "--jsonl results" 1 '{"result":{"dtype":"float32","shape":[3],"data":[0.0,1.0,2.0]}}' \
  "$lines" -- "$tsb" run tensors.pt arange --jsonl
expect_stdin "--jsonl malformed line" 1 '{"error":"line 2: the line is not valid JSON' \
  "$lines" -- "$tsb" run tensors.pt arange --jsonl
expect_stdin "--jsonl unknown key" 1 '{"error":"line 4: unknown key \"argz\"' \
  "$lines" -- "$tsb" run tensors.pt arange --jsonl
expect_stdin "--jsonl runs on after errors" 1 '"shape":[5],' \
  "$lines" -- "$tsb" run tensors.pt arange --jsonl
expect_stdin "--jsonl all good" 0 '{"result":"' '[]
' -- "$tsb" run "$model" describe --jsonl
expect "--jsonl with --args" 2 'tsb: --jsonl reads the arguments from standard input' -- \
  "$tsb" run tensors.pt arange --jsonl --args '[1]'

# tsb call: operators and plugin functions, positional and keyword.
expect "call an operator" 0 '3' -- "$tsb" call aten::add --args '[1, 2]'
expect "call an operator with keywords" 0 '"data":[21.0,32.0]' -- "$tsb" call aten::add \
  --args '[{"dtype": "float32", "shape": [2], "data": [1, 2]}, {"dtype": "float32", "shape": [2], "data": [10, 15]}]' \
  --kwargs '{"alpha": 2}'
expect "call a plugin function" 0 '"data":[0,1,0]' -- "$tsb" call torchsparse::relabel \
  --args '[{"dtype": "int64", "shape": [3], "data": [5, 7, 5]}, {"dtype": "int64", "shape": [2], "data": [5, 7]}]'
expect "call an unknown name" 1 "tsb: 'nope::nothing' is neither a plugin function nor an operator" -- \
  "$tsb" call nope::nothing

# Plugins and operator libraries: messages that say it once.
expect "a missing plugin, said once" 1 "tsb: cannot load plugin '/nonexistent.so': no such file" -- \
  "$tsb" --plugin /nonexistent.so plugins
expect "unknown library name" 1 \
  "tsb: cannot find the operator library 'torchvisoin': looked for " -- \
  "$tsb" --library torchvisoin plugins
expect "a library that is not a shared library" 1 \
  "tsb: cannot load operator library 'notes.txt.so': " -- \
  bash -c "cp notes.txt notes.txt.so && '$tsb' --library notes.txt.so plugins"
mkdir -p empty
expect "a known library not found says where it looked" 1 \
  "tsb: cannot find the operator library 'torchvision': looked for $work/empty/torchvision/_C*.so" -- \
  env TSB_LIBRARY_SEARCH_PATH="$work/empty" "$tsb" --library torchvision plugins
expect "TSB_LIBRARY_PATH" 1 "tsb: TSB_LIBRARY_PATH: cannot find the operator library 'nosuch'" -- \
  env TSB_LIBRARY_PATH=nosuch "$tsb" plugins

finish
