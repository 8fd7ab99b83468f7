/* torchaudio's operator library from C: a module calling
 * torchaudio::_lfilter is refused before the library is loaded (the advice
 * in C's words), then runs once tsb_library_load("torchaudio", NULL) found
 * the library by name. Prints the refusal, the library and the result as
 * JSON, one a line, for audio_hosts_test.py to check against PyTorch's.
 * Usage: tsb_audio_c MODELS_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsbridge/tsbridge.h"

static int Fail(tsb_status* s, const char* what) {
  fprintf(stderr, "%s: %s\n", what, tsb_status_get_message(s));
  tsb_status_free(s);
  return 1;
}

static char* ReadFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  size_t got = fread(text, 1, (size_t)size, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char module_path[4096], args_path[4096];
  snprintf(module_path, sizeof module_path, "%s/lfilter.pt", argv[1]);
  snprintf(args_path, sizeof args_path, "%s/args.json", argv[1]);
  tsb_module* module = NULL;
  tsb_status* s = tsb_module_load(module_path, &module);
  if (s == NULL) return Fail(tsb_status_new(TSB_ERR_INTERNAL, "loaded"), "without the library");
  printf("%s\n", tsb_status_get_message(s));
  tsb_status_free(s);

  int32_t id = -1;
  if ((s = tsb_library_load("torchaudio", &id)) != NULL) return Fail(s, "tsb_library_load");
  tsb_library_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if ((s = tsb_library_get_info(id, &info)) != NULL) return Fail(s, "tsb_library_get_info");
  printf("%s %s\n", info.name, info.path);
  if ((s = tsb_module_load(module_path, &module)) != NULL) return Fail(s, "tsb_module_load");

  int32_t list_type = 0;
  if ((s = tsb_type_parse("List[Tensor]", &list_type)) != NULL) return Fail(s, "tsb_type_parse");
  char* text = ReadFile(args_path);
  if (text == NULL) return 2;
  tsb_any list, args[3], out;
  if ((s = tsb_json_read(text, list_type, &list)) != NULL) return Fail(s, "tsb_json_read");
  free(text);
  for (size_t i = 0; i < 3; ++i) {
    if ((s = tsb_list_get(&list, i, &args[i])) != NULL) return Fail(s, "tsb_list_get");
  }
  tsb_call_args call = tsb_call_args_make(args, 3);
  if ((s = tsb_module_call(module, "forward", &call, &out)) != NULL) return Fail(s, "forward");
  char* json = NULL;
  if ((s = tsb_json_write(&out, &json)) != NULL) return Fail(s, "tsb_json_write");
  printf("%s\n", json);
  tsb_string_free(json);
  tsb_any_release(&out);
  for (size_t i = 0; i < 3; ++i) tsb_any_release(&args[i]);
  tsb_any_release(&list);
  tsb_module_free(module);
  return 0;
}
