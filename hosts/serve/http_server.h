// A small HTTP/1.1 server on Boost.Beast's parser and serializer: a fixed
// pool of threads, each serving one connection at a time with blocking
// reads and writes; keep-alive, a body limit, read and write timeouts, a
// stop that lets requests in flight finish. What it serves is the
// handler's (server.cc routes the protocol). Each response is one send:
// headers and body together (docs/serve.md, "Why Boost.Beast").
#ifndef TSBRIDGE_HOSTS_SERVE_HTTP_SERVER_H_
#define TSBRIDGE_HOSTS_SERVE_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tsb::serve {

// One request and the response the handler makes to it.
struct HttpExchange {
  using Clock = std::chrono::steady_clock;

  // The request: method and path ("-" where a refused request had none),
  // the path percent-decoded and without its query.
  std::string_view method = "-", path = "-";
  std::string_view remote;  // the client's address
  std::string body;         // the handler may move it away
  std::optional<Clock::time_point> received;  // when it was read whole; none if refused
  // A request header's value, "" if there is none.
  std::string_view Header(std::string_view name) const;

  // The response: JSON unless the handler says otherwise.
  int status = 200;
  std::string_view content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type and -Length
  std::string response;

  const void* fields = nullptr;  // the parser's (http_server.cc), for Header()
};

// What the server calls; every call comes on a connection's thread.
class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // A request read whole: fill the response. An exception becomes a 500.
  virtual void Handle(HttpExchange& exchange) = 0;
  // A request the server refuses itself: 400 (malformed), 413 (the body
  // is over the limit), 431 (the headers are), 500 (Handle threw); `why`
  // says what was wrong. Fill the response's body.
  virtual void Refuse(HttpExchange& exchange, int status, std::string_view why) = 0;
  // After the response was sent (or sending it failed): the log line.
  virtual void Sent(const HttpExchange& exchange) = 0;
};

// The request line and headers may take this many bytes; more is 431.
inline constexpr size_t kHttpHeaderLimit = 64 << 10;

struct HttpOptions {
  std::string address = "0.0.0.0";
  int port = 8000;               // 0: any free port
  size_t threads = 8;            // connections served at once
  size_t max_body = 64 << 20;    // bytes; a longer body is refused (413)
  std::chrono::seconds timeout{5};  // idle between requests, and per read or write
};

class HttpServer {
 public:
  HttpServer(HttpOptions options, HttpHandler& handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens: the port (the one chosen for port 0), or -1 with
  // `error` saying why.
  int Listen(std::string& error);
  // Accepts and serves until Stop(); returns once every connection ended.
  void Run();
  // From any thread, before or during Run(): closes the listening socket
  // (new connections are refused) and the idle connections; a request in
  // flight is answered, then its connection closes.
  void Stop();

  // Serves the requests of one connected socket until it closes, stalls,
  // breaks or the server stops, as each of Run()'s threads does; the caller
  // closes fd. Public for the fuzz target (tests/fuzz/serve_http_fuzzer.cc),
  // which needs no listening socket.
  void ServeConnection(int fd);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_HTTP_SERVER_H_
