#!/usr/bin/env bash
# Time from process start to result for a torchvision detection model:
# `tsb run` (no Python) next to PyTorch's own Python script doing the same
# (load the scripted module, decode the JPEG, run it once). Wall time of each
# whole process, the median of RUNS runs, interleaved; prints the ratio.
# Usage: bench/vision_startup.sh BUILD_DIR [RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "$1" && pwd)"
runs=${2:-5}
work="$build/vision_startup"
mkdir -p "$work"
cd "$work"
/usr/bin/python3 "$here/../examples/vision/make_detector.py" . >/dev/null 2>&1

cat > pytorch_detect.py <<'PY'
import torch, torchvision
from torchvision.io import ImageReadMode, decode_image, read_file
model = torch.jit.load("detector.pt")
image = decode_image(read_file("photo.jpg"), ImageReadMode.RGB).div(255)
with torch.no_grad():
    losses, detections = model([image])
print(len(detections[0]["scores"]))
PY

now() { date +%s.%N; }
seconds() {  # seconds COMMAND...: wall time of one run
  local t0 t1
  t0=$(now)
  "$@" >/dev/null 2>&1
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
tsb_times=() py_times=()
for ((i = 0; i < runs; i++)); do
  tsb_times+=("$(seconds "$build/bin/tsb" --library torchvision run detector.pt \
    --args '[[{"image": "photo.jpg"}]]' --summary)")
  py_times+=("$(seconds /usr/bin/python3 pytorch_detect.py)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t=$(median "${tsb_times[@]}") p=$(median "${py_times[@]}")
printf 'tsb run:        %.3f s (median of %d)\n' "$t" "$runs"
printf 'PyTorch script: %.3f s (median of %d)\n' "$p" "$runs"
printf 'ratio tsb / PyTorch: %.2f\n' "$(echo "$t / $p" | bc -l)"
