// `tsb serve`: the models of a repository over the Open Inference
// Protocol's HTTP/REST API and, when built with gRPC and asked for, its
// gRPC API in the same process (docs/serve.md). A host of the C ABI like tsb:
// it includes tsbridge.h and the host kit, and no LibTorch or core header.
#ifndef TSBRIDGE_HOSTS_SERVE_SERVER_H_
#define TSBRIDGE_HOSTS_SERVE_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsb::serve {

struct ServeOptions {
  std::string repository;
  std::string address = "0.0.0.0";
  int port = 8000;          // 0: any free port (the one chosen is printed)
  size_t workers = 0;       // inference calls at once; 0: the cores
  size_t queue = 64;        // requests waiting for a worker before 503
  int64_t deadline_ms = 0;  // longest wait for a worker before 504; 0: none
  size_t max_body = 64 << 20;  // bytes; a longer body is refused (413)
  int keep_alive_s = 5;     // an idle connection is closed after this
  int grpc_port = -1;       // the gRPC API's port; -1: none, 0: any free port (printed)
};

// Loads the repository, serves it until SIGTERM or SIGINT, then lets the
// requests in flight finish and returns 0; prints why and returns 1 if it
// cannot start. Plugins and operator libraries are the caller's to load first.
int Serve(const ServeOptions& options);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_SERVER_H_
