#include "hosts/serve/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <exception>
#include <iterator>
#include <mutex>
#include <thread>
#include <unordered_set>

namespace tsb::serve {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using Clock = HttpExchange::Clock;

std::string_view View(beast::string_view s) { return {s.data(), s.size()}; }

// Beast's synchronous stream over a connected socket: recvmsg and sendmsg
// straight on the descriptor, so that the socket's SO_RCVTIMEO and
// SO_SNDTIMEO end a stalled read or write (Asio's synchronous calls poll
// again after a timeout), and a message's header and body leave in one
// sendmsg.
class SocketStream {
 public:
  explicit SocketStream(int fd) : fd_(fd) {}

  template <typename Buffers>
  size_t read_some(const Buffers& buffers, beast::error_code& ec) {
    return Transfer(buffers, ec, [this](msghdr* m) { return ::recvmsg(fd_, m, 0); });
  }
  template <typename Buffers>
  size_t write_some(const Buffers& buffers, beast::error_code& ec) {
    return Transfer(buffers, ec, [this](msghdr* m) { return ::sendmsg(fd_, m, MSG_NOSIGNAL); });
  }
  // The throwing forms Beast's stream concepts ask for; the server uses the above.
  template <typename Buffers>
  size_t read_some(const Buffers& buffers) {
    return OrThrow([&](beast::error_code& ec) { return read_some(buffers, ec); });
  }
  template <typename Buffers>
  size_t write_some(const Buffers& buffers) {
    return OrThrow([&](beast::error_code& ec) { return write_some(buffers, ec); });
  }

 private:
  template <typename Call>
  static size_t OrThrow(Call call) {
    beast::error_code ec;
    const size_t n = call(ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  template <typename Buffers, typename Call>
  static size_t Transfer(const Buffers& buffers, beast::error_code& ec, Call call) {
    iovec parts[16];
    size_t count = 0;
    for (auto it = net::buffer_sequence_begin(buffers);
         it != net::buffer_sequence_end(buffers) && count < std::size(parts); ++it) {
      const net::const_buffer part = *it;
      if (part.size() == 0) continue;
      parts[count].iov_base = const_cast<void*>(part.data());
      parts[count].iov_len = part.size();
      ++count;
    }
    ec = {};
    if (count == 0) return 0;
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = count;
    for (;;) {
      const ssize_t n = call(&message);
      if (n > 0) return static_cast<size_t>(n);
      if (n == 0) {
        ec = net::error::eof;  // Beast's sign of a closed connection
        return 0;
      }
      if (errno == EINTR) continue;
      ec = errno == EAGAIN || errno == EWOULDBLOCK
               ? beast::error_code(net::error::timed_out)
               : beast::error_code(errno, boost::system::system_category());
      return 0;
    }
  }

  int fd_;
};

// The request target's path: no query, %XX decoded.
std::string DecodePath(std::string_view target) {
  target = target.substr(0, target.find('?'));
  std::string path;
  path.reserve(target.size());
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == '%' && i + 2 < target.size() && hex(target[i + 1]) >= 0 &&
        hex(target[i + 2]) >= 0) {
      path += static_cast<char>(hex(target[i + 1]) * 16 + hex(target[i + 2]));
      i += 2;
    } else {
      path += target[i];
    }
  }
  return path;
}

std::string PeerAddress(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  char text[INET6_ADDRSTRLEN] = "-";
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    if (address.ss_family == AF_INET) {
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
    } else if (address.ss_family == AF_INET6) {
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text,
                  sizeof text);
    }
  }
  return text;
}

// The status a failed read is answered with; 0: none, the connection
// ended, stalled past the timeout or broke.
int RefusalStatus(const beast::error_code& ec, std::string& why) {
  if (ec.category() != http::make_error_code(http::error::end_of_stream).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    return 0;
  }
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::header_limit) return 431;
  why = ec.message();
  return 400;
}

}  // namespace

std::string_view HttpExchange::Header(std::string_view name) const {
  if (fields == nullptr) return {};
  const auto& all = *static_cast<const http::fields*>(fields);
  const auto it = all.find(beast::string_view(name.data(), name.size()));
  return it == all.end() ? std::string_view() : View(it->value());
}

struct HttpServer::State {
  HttpOptions options;
  HttpHandler& handler;
  int listening = -1;

  std::mutex mutex;  // guards what follows
  std::condition_variable work;
  bool stopping = false;
  std::deque<int> accepted;         // connections no thread serves yet
  std::unordered_set<int> waiting;  // connections waiting for a request

  State(HttpOptions o, HttpHandler& h) : options(std::move(o)), handler(h) {}

  // Whether to read the next request on fd: no once stopping. While it
  // waits for one, Stop() may shut its reading down.
  bool BeginWait(int fd) {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return false;
    waiting.insert(fd);
    return true;
  }
  void EndWait(int fd) {
    std::lock_guard<std::mutex> lock(mutex);
    waiting.erase(fd);
  }
  bool Stopping() {
    std::lock_guard<std::mutex> lock(mutex);
    return stopping;
  }

  void Work() {
    for (;;) {
      int fd;
      {
        std::unique_lock<std::mutex> lock(mutex);
        work.wait(lock, [this] { return stopping || !accepted.empty(); });
        if (stopping) return;  // Stop() closed what was still accepted
        fd = accepted.front();
        accepted.pop_front();
      }
      try {
        Serve(fd);
      } catch (...) {  // out of memory: this connection ends, the server goes on
      }
      ::close(fd);
    }
  }

  // Requests on one connection until it closes, stalls, breaks or the
  // server stops.
  void Serve(int fd) {
    const timeval timeout{static_cast<time_t>(options.timeout.count()), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const int one = 1;  // a response is one send: nothing for Nagle to hold back
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const std::string remote = PeerAddress(fd);
    SocketStream stream(fd);
    beast::flat_buffer buffer;  // kept: a pipelined request's bytes carry over
    while (BeginWait(fd)) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options.max_body);
      parser.header_limit(kHttpHeaderLimit);
      beast::error_code ec;
      http::read_header(stream, buffer, parser, ec);
      EndWait(fd);
      if (!ec && !parser.is_done()) {
        if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
          http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
          http::write(stream, go_on, ec);
        }
        if (!ec) http::read(stream, buffer, parser, ec);
      }
      HttpExchange exchange;
      exchange.remote = remote;
      std::string path;
      if (parser.is_header_done()) {
        exchange.method = View(parser.get().method_string());
        path = DecodePath(View(parser.get().target()));
        exchange.path = path;
        exchange.fields = static_cast<const http::fields*>(&parser.get());
      }
      if (ec) {
        std::string why;
        const int status = RefusalStatus(ec, why);
        if (status != 0) Refuse(stream, fd, exchange, status, why);
        return;
      }
      auto& request = parser.get();
      exchange.body = std::move(request.body());
      exchange.received = Clock::now();
      try {
        handler.Handle(exchange);
      } catch (const std::exception& e) {
        Reset(exchange);
        handler.Refuse(exchange, 500, e.what());
      } catch (...) {
        Reset(exchange);
        handler.Refuse(exchange, 500, "unknown exception");
      }
      const bool keep_alive = request.keep_alive() && !Stopping();
      const bool sent = Write(stream, exchange, request.version(), keep_alive);
      handler.Sent(exchange);
      if (!sent || !keep_alive) return;
    }
  }

  static void Reset(HttpExchange& exchange) {
    exchange.status = 500;
    exchange.content_type = "application/json";
    exchange.headers.clear();
    exchange.response.clear();
  }

  // The response, headers and body in one send; false if it failed.
  static bool Write(SocketStream& stream, HttpExchange& exchange, unsigned version,
                    bool keep_alive) {
    http::response<http::string_body> response{static_cast<http::status>(exchange.status),
                                               version};
    response.set(http::field::content_type,
                 beast::string_view(exchange.content_type.data(), exchange.content_type.size()));
    for (const auto& [name, value] : exchange.headers) response.set(name, value);
    response.keep_alive(keep_alive);
    response.body().swap(exchange.response);
    response.prepare_payload();
    beast::error_code ec;
    http::write(stream, response, ec);
    response.body().swap(exchange.response);  // the log line counts its bytes
    return !ec;
  }

  // Answers a request the server will not serve, then closes: first it
  // reads (for at most the timeout) what the client still sends, so that
  // the client reads the answer rather than a reset connection.
  void Refuse(SocketStream& stream, int fd, HttpExchange& exchange, int status,
              std::string_view why) {
    exchange.status = status;
    handler.Refuse(exchange, status, why);
    Write(stream, exchange, 11, false);
    handler.Sent(exchange);
    ::shutdown(fd, SHUT_WR);
    char discard[16 << 10];
    const auto until = Clock::now() + options.timeout;
    while (Clock::now() < until && ::recv(fd, discard, sizeof discard, 0) > 0) {
    }
  }
};

HttpServer::HttpServer(HttpOptions options, HttpHandler& handler)
    : state_(std::make_unique<State>(std::move(options), handler)) {}

HttpServer::~HttpServer() {
  if (state_->listening >= 0) ::close(state_->listening);
}

int HttpServer::Listen(std::string& error) {
  net::io_context io;
  beast::error_code ec;
  net::ip::tcp::resolver resolver(io);
  const auto found = resolver.resolve(state_->options.address,
                                      std::to_string(state_->options.port),
                                      net::ip::tcp::resolver::passive, ec);
  if (ec || found.empty()) {
    error = "cannot resolve " + state_->options.address + ": " + ec.message();
    return -1;
  }
  const net::ip::tcp::endpoint endpoint = found.begin()->endpoint();
  net::ip::tcp::acceptor acceptor(io);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + state_->options.address + ":" +
            std::to_string(state_->options.port) + ": " + ec.message();
    return -1;
  }
  const int port = acceptor.local_endpoint().port();
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->listening = acceptor.release();
  if (state_->stopping) ::shutdown(state_->listening, SHUT_RDWR);
  return port;
}

void HttpServer::Run() {
  State& s = *state_;
  std::vector<std::thread> threads;
  threads.reserve(s.options.threads);
  for (size_t i = 0; i < s.options.threads; ++i) threads.emplace_back([&s] { s.Work(); });
  for (;;) {
    const int fd = ::accept4(s.listening, nullptr, nullptr, SOCK_CLOEXEC);
    const int error = errno;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.stopping) {
        if (fd >= 0) ::close(fd);
        break;
      }
      if (fd >= 0) {
        s.accepted.push_back(fd);
        s.work.notify_one();
        continue;
      }
    }
    if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
      // Out of descriptors or memory: the connection waits in the backlog.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  for (std::thread& t : threads) t.join();
}

void HttpServer::ServeConnection(int fd) { state_->Serve(fd); }

void HttpServer::Stop() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stopping = true;
  if (s.listening >= 0) ::shutdown(s.listening, SHUT_RDWR);  // wakes accept4
  for (const int fd : s.waiting) ::shutdown(fd, SHUT_RD);    // wakes their reads
  // Accepted before the stop but not served yet: refused now, not after
  // the requests in flight.
  for (const int fd : s.accepted) ::close(fd);
  s.accepted.clear();
  s.work.notify_all();
}

}  // namespace tsb::serve
