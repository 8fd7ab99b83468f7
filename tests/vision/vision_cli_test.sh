#!/usr/bin/env bash
# torchvision models run by `tsb run` in a process that never imports
# torchvision (or Python): the operator library loaded by name, images
# decoded by torchvision's image operators, results saved with --out and
# compared with PyTorch's own run of the same module (compare_outputs.py).
# Usage: vision_cli_test.sh TSB MODELS_DIR WORK_DIR PYTHON
set -u
tsb=$1 models=$2 work=$3 python=$4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$work"
cd "$work" || exit 1
source "$here/../../hosts/cli/tests/expect.sh"
compare() { "$python" "$here/compare_outputs.py" "$@"; }

# A batch for the classifier and the segmentation model: {"file": ...}.
"$python" -c "import torch; torch.save(torch.load('$models/photo.tensor.pt').unsqueeze(0), 'batch.pt')"

# run_and_compare NAME ARGS: tsb runs NAME.pt, PyTorch's output must match.
run_and_compare() {
  local name=$1 args=$2
  expect "$name: tsb run" 0 '' -- "$tsb" --library torchvision run "$models/$name.pt" \
    --args "$args" --out "$name.out.pt"
  expect "$name: same as PyTorch" 0 'matches PyTorch' -- \
    compare "$models/$name.expected.pt" "$name.out.pt"
}
run_and_compare resnet18 '[{"file": "batch.pt"}]'
run_and_compare lraspp '[{"file": "batch.pt"}]'
run_and_compare fasterrcnn "[[{\"image\": \"$models/photo.jpg\"}]]"
run_and_compare ssdlite "[[{\"image\": \"$models/photo.jpg\"}]]"

# The one-liner of examples/vision, with --summary.
expect "detector --summary" 0 '"boxes":{"dtype":"float32","shape":[100,4],"min":' -- \
  "$tsb" --library torchvision run "$models/fasterrcnn.pt" \
  --args "[[{\"image\": \"$models/photo.jpg\"}]]" --summary
# The PNG decodes to the same pixels as the JPEG's source (lossless), by
# image::decode_image too.
expect "a PNG" 0 '"labels":{"dtype":"int64","shape":[300],' -- \
  "$tsb" --library torchvision run "$models/ssdlite.pt" \
  --args "[[{\"image\": \"$models/photo.png\"}]]" --summary
expect "an image as uint8" 0 '{"dtype":"uint8","shape":[3,240,320],"min":' -- \
  "$tsb" --library torchvision call aten::clone \
  --args "[{\"image\": \"$models/photo.jpg\", \"dtype\": \"uint8\"}]" --summary
# --jsonl: the detector loaded once, two calls, a bad line between.
lines="[[{\"image\": \"$models/photo.jpg\"}]]
[[{\"image\": \"missing.jpg\"}]]
{\"args\": [[{\"image\": \"$models/photo.png\"}]]}
"
expect_stdin "detector --jsonl" 1 '{"error":"line 2: forward(): argument '"'images'"' → [0]: cannot read \"missing.jpg\"' \
  "$lines" -- "$tsb" --library torchvision run "$models/ssdlite.pt" --jsonl --summary
expect_stdin "detector --jsonl, last line" 1 '{"result":[{},[{"boxes":{"dtype":"float32","shape":[300,4]' \
  "$lines" -- "$tsb" --library torchvision run "$models/ssdlite.pt" --jsonl --summary
# TSB_LIBRARY_PATH instead of --library.
expect "TSB_LIBRARY_PATH=torchvision" 0 '"scores":{"dtype":"float32","shape":[100],' -- \
  env TSB_LIBRARY_PATH=torchvision "$tsb" run "$models/fasterrcnn.pt" \
  --args "[[{\"image\": \"$models/photo.jpg\"}]]" --summary
# torchvision's operators called directly.
expect "tsb call torchvision::nms" 0 '"data":[0,2]' -- "$tsb" --library torchvision \
  call torchvision::nms --args '[{"dtype": "float32", "shape": [3, 4], "data": [0,0,10,10, 1,1,10,10, 20,20,30,30]},
  {"dtype": "float32", "shape": [3], "data": [0.9, 0.8, 0.7]}, 0.5]'
expect "tsb plugins lists the libraries" 0 'library torchvision' -- \
  "$tsb" --library torchvision plugins

# What goes wrong, and what the message says.
expect "a detector without its library" 1 \
  "its code calls the operator torchvision::nms, which is not registered: load the operator library 'torchvision' first (tsb --library torchvision" -- \
  "$tsb" run "$models/fasterrcnn.pt" --args "[[{\"image\": \"$models/photo.jpg\"}]]"
echo "not an image" > notes.txt
expect "a file that is not an image" 1 "cannot decode \"notes.txt\"" -- \
  "$tsb" --library torchvision run "$models/ssdlite.pt" --args '[[{"image": "notes.txt"}]]'
expect "a missing image" 1 "forward(): argument 'images' → [0]: cannot read \"missing.jpg\": No such file or directory" -- \
  "$tsb" --library torchvision run "$models/ssdlite.pt" --args '[[{"image": "missing.jpg"}]]'
expect "a bad image dtype" 1 "an image's \"dtype\" is \"float32\" or \"uint8\", got \"int8\"" -- \
  "$tsb" --library torchvision run "$models/ssdlite.pt" \
  --args "[[{\"image\": \"$models/photo.jpg\", \"dtype\": \"int8\"}]]"

finish
