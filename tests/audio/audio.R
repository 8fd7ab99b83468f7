# torchaudio's operator library from R (audio_hosts_test.py checks the
# lines): the refusal before tsb_load_library("torchaudio"), the library
# found by name, and lfilter's result as JSON.
# Usage: Rscript audio.R MODELS_DIR
library(tsbridge)
models <- commandArgs(trailingOnly = TRUE)[1]
module <- file.path(models, "lfilter.pt")
e <- tryCatch(tsb_load(module), error = identity)
cat(conditionMessage(e), "\n", sep = "")
lib <- tsb_load_library("torchaudio")
cat(lib$name, " ", lib$path, "\n", sep = "")
args <- tsb_from_json(paste(readLines(file.path(models, "args.json")), collapse = ""),
                      "List[Tensor]")
m <- tsb_load(module)
cat(tsb_to_json(do.call(m$forward, args), "Tensor"), "\n", sep = "")
