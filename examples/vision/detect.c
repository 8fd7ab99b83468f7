/* Objects in a JPEG, from plain C99: tsbridge loads torchvision's operator
 * library by name, torchvision's image operators decode the picture, the
 * scripted detector runs, and the detections are read back through the C
 * ABI. No Python, no C++ type.
 *
 * Usage: tsb_vision_detect detector.pt photo.jpg
 * Output: "100 detections in photo.jpg", then the three best boxes. */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tsbridge/tsbridge.h>

static void check(tsb_status* s, const char* call) {
  if (s == NULL) return;
  fprintf(stderr, "%s failed: %s\n", call, tsb_status_get_message(s));
  tsb_status_free(s);
  exit(1);
}
#define CHECK(call) check((call), #call)

/* Calls an operator with positional arguments. */
static void op(const char* name, const tsb_any* args, size_t n, tsb_any* out) {
  tsb_call_args call = tsb_call_args_make(args, n);
  check(tsb_op_call(name, &call, out), name);
}

int main(int argc, char** argv) {
  tsb_module* detector = NULL;
  tsb_any path, data, image, scaled, images, result, detections, found, boxes, labels, scores;
  tsb_any args[2], key;
  DLManagedTensor *box_data, *label_data, *score_data;
  size_t count = 0, i;
  if (argc != 3) {
    fprintf(stderr, "usage: %s detector.pt photo.jpg\n", argv[0]);
    return 2;
  }
  CHECK(tsb_plugin_load_bundled()); /* Tuple: the detector returns (losses, detections) */
  CHECK(tsb_library_load("torchvision", NULL));
  CHECK(tsb_module_load(argv[1], &detector));

  /* image::read_file, image::decode_image (RGB), then / 255: float32 CHW. */
  path = tsb_any_borrowed_str(argv[2]);
  op("image::read_file", &path, 1, &data);
  args[0] = data;
  args[1] = tsb_any_int(3);
  op("image::decode_image", args, 2, &image);
  args[0] = image;
  args[1] = tsb_any_int(255);
  op("aten::div", args, 2, &scaled);
  CHECK(tsb_list_new(TSB_TYPE_ANY, &scaled, 1, &images));

  {
    tsb_call_args call = tsb_call_args_make(&images, 1);
    CHECK(tsb_module_call(detector, "forward", &call, &result));
  }
  /* result: (losses, [ {"boxes": Tensor, "labels": Tensor, "scores": Tensor} ]) */
  CHECK(tsb_list_get(&result, 1, &detections));
  CHECK(tsb_list_get(&detections, 0, &found));
  key = tsb_any_borrowed_str("boxes");
  CHECK(tsb_dict_get(&found, &key, &boxes));
  key = tsb_any_borrowed_str("labels");
  CHECK(tsb_dict_get(&found, &key, &labels));
  key = tsb_any_borrowed_str("scores");
  CHECK(tsb_dict_get(&found, &key, &scores));

  /* The tensors' memory, without a copy, through DLPack (CPU, contiguous:
   * the detector's outputs are). */
  CHECK(tsb_tensor_to_dlpack(&boxes, &box_data));
  CHECK(tsb_tensor_to_dlpack(&labels, &label_data));
  CHECK(tsb_tensor_to_dlpack(&scores, &score_data));
  count = (size_t)score_data->dl_tensor.shape[0];
  printf("%zu detections in %s\n", count, argv[2]);
  for (i = 0; i < count && i < 3; ++i) {
    const float* box = (const float*)box_data->dl_tensor.data + 4 * i;
    printf("  label %lld score %.4f box [%.1f, %.1f, %.1f, %.1f]\n",
           (long long)((const int64_t*)label_data->dl_tensor.data)[i],
           ((const float*)score_data->dl_tensor.data)[i], box[0], box[1], box[2], box[3]);
  }
  box_data->deleter(box_data);
  label_data->deleter(label_data);
  score_data->deleter(score_data);

  tsb_any_release(&boxes);
  tsb_any_release(&labels);
  tsb_any_release(&scores);
  tsb_any_release(&found);
  tsb_any_release(&detections);
  tsb_any_release(&result);
  tsb_any_release(&images);
  tsb_any_release(&scaled);
  tsb_any_release(&image);
  tsb_any_release(&data);
  tsb_module_free(detector);
  return 0;
}
