// libFuzzer: tsb serve's HTTP/1.1 layer (hosts/serve/http_server.cc): the
// input is what a client sends on one connection, fed over a socket pair
// and closed. Whatever it is: requests answered or refused (400, 413, 431)
// in order, never a crash, a hang or a leak; the handler sees only
// requests read whole, and only the refusals the server documents.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hosts/serve/http_server.h"

namespace {

using tsb::serve::HttpExchange;

class EchoHandler : public tsb::serve::HttpHandler {
 public:
  void Handle(HttpExchange& x) override {
    if (!x.received || x.method.empty()) std::abort();  // only requests read whole
    // What server.cc reads of a request: a header, the body.
    const std::string_view length = x.Header("Inference-Header-Content-Length");
    x.response = std::string(x.method) + " " + std::string(x.path) + " " +
                 std::to_string(x.body.size()) + " " + std::string(length);
    if (x.path == "/throw") throw std::runtime_error("thrown");  // the 500 path
  }
  void Refuse(HttpExchange& x, int status, std::string_view why) override {
    if (status != 400 && status != 413 && status != 431 && status != 500) std::abort();
    x.response = std::string(why);
  }
  void Sent(const HttpExchange& x) override {
    if (x.status < 100 || x.status > 599) std::abort();
  }
};

tsb::serve::HttpServer& Server() {
  static EchoHandler handler;
  static tsb::serve::HttpServer* server = [] {
    tsb::serve::HttpOptions options;
    options.max_body = 256;  // reachable: 413 too
    options.timeout = std::chrono::seconds(1);
    return new tsb::serve::HttpServer(options, handler);  // for the process
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) std::abort();
  // Big enough for any input libFuzzer makes here (-max_len) and the
  // responses to it, so that neither side blocks: one thread does both.
  const int buffer = 4 << 20;
  ::setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  ::setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(ends[0], data + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0) std::abort();
    sent += static_cast<size_t>(n);
  }
  ::shutdown(ends[0], SHUT_WR);  // the client is done: end of stream after the input
  Server().ServeConnection(ends[1]);
  ::close(ends[1]);
  char discard[1 << 16];
  while (::recv(ends[0], discard, sizeof discard, 0) > 0) {
  }
  ::close(ends[0]);
  return 0;
}
