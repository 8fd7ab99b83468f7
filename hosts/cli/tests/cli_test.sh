#!/usr/bin/env bash
# The tsb command line, run as a user would: the demo, inspect,
# run with JSON, plugins, compile, and every kind of bad input (a clear
# message on stderr and a non-zero exit code).
# Usage: cli_test.sh TSB EXAMPLE_MODEL WORK_DIR
set -u
tsb=$1 model=$2 work=$3
mkdir -p "$work"
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

expect "demo runs the example" 0 '[{"start":[1.0,3.0],"end":[4.0,-2.0]}' -- "$tsb" demo
expect "example tensor result" 0 '"data":[12.0,24.0]' -- "$tsb" demo
expect "inspect lists the schema" 0 \
  'forward(__torch__.tsb.Compiled self, (float, float)[] points' -- "$tsb" inspect "$model"
expect "inspect a plugin" 0 'type tsbridge.tensor_pair' -- \
  "$tsb" inspect "$(dirname "$(dirname "$model")")/../lib/tsbridge/plugins/tuple.so"
expect "run a method without arguments" 0 '"scales labelled points' -- \
  "$tsb" run "$model" describe
expect "keyword arguments" 0 '{"a":[2.0,2.0]}' -- "$tsb" run "$model" --args \
  '[[[1, 1]], [[0, "a"]], {"first": {"dtype":"float32","shape":[1],"data":[1]}, "second": {"dtype":"float32","shape":[1],"data":[0]}}]' \
  --kwargs '{"scale": 2}'
expect "plugins" 0 'tuple 0.1' -- "$tsb" plugins
expect "missing module" 1 'tsb: cannot open module file "/nonexistent.pt"' -- "$tsb" run /nonexistent.pt
expect "not a module" 1 "tsb: cannot load module \"$0\": " -- "$tsb" run "$0"
expect "bad JSON" 2 'tsb: --args is not valid JSON' -- "$tsb" run "$model" --args '[1,'
expect "args not an array" 2 'tsb: --args must be a JSON array' -- "$tsb" run "$model" --args '{}'
expect "wrong type, with the path" 1 \
  "tsb: forward(): argument 'points' → [0] → [1]: expected float, got JSON string \"y\"" -- \
  "$tsb" run "$model" --args '[[[1, "y"]]]'
expect "missing argument" 1 "labels" -- "$tsb" run "$model" --args '[[[1, 2]]]'
expect "unknown method" 1 "the module has no method 'nope' (it has: " -- "$tsb" run "$model" nope
expect "usage error" 106 'module is required' -- "$tsb" run
echo 'def forward(self, x: int) -> int:
    return x * 3' > "$work/triple.torchscript"
expect "compile" 0 '' -- "$tsb" compile "$work/triple.torchscript" -o "$work/triple.pt"
expect "run the compiled module" 0 '21' -- "$tsb" run "$work/triple.pt" --args '[7]'
echo 'def forward(self, x: int) -> int:
    return x +' > "$work/broken.torchscript"
expect "compile error" 1 'tsb: cannot compile' -- "$tsb" compile "$work/broken.torchscript" -o "$work/broken.pt"
echo 'def relu(x: Tensor):
    return torch.relu(x)' > "$work/free.torchscript"
expect "free functions are not saved" 1 'a module of free functions' -- \
  "$tsb" compile "$work/free.torchscript" -o "$work/free.pt"
expect "ops lists a namespace" 0 'aten::add' -- "$tsb" ops aten
expect "ops lists every namespace" 0 'prim::Print' -- "$tsb" ops
expect "a variadic operator says why it cannot be called" 1 'runs it only inside a TorchScript graph' -- \
  "$tsb" call prim::Print --args '[1, 2]'
expect "ops of an unknown namespace" 1 "no operator or plugin function in namespace 'nope'" -- \
  "$tsb" ops nope

finish
