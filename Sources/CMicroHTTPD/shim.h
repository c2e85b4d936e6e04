#ifndef PREFLIGHT_CMICROHTTPD_SHIM_H
#define PREFLIGHT_CMICROHTTPD_SHIM_H
/*
** OVERVIEW
**
** libmicrohttpd as Swift sees it, plus the few calls Swift cannot make itself:
** MHD_start_daemon, MHD_get_connection_info and MHD_get_daemon_info are variadic,
** so each gets a wrapper with fixed arguments here. The socket helpers serve the
** design of PreflightService/HTTP (see Daemon.swift): the thread that waits for a
** job while its connection is suspended watches the connection's socket for the
** client going away, and an upload that crosses a limit mid-body is answered
** straight on the socket (MHD can only queue a response before or after a body).
**
** Every function is static inline: this is a system-library module, it has no
** object file of its own.
*/
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Linux's "peer closed its writing half", without requiring _GNU_SOURCE. */
#ifndef POLLRDHUP
#define POLLRDHUP 0x2000
#endif

/*
** Starts a daemon on host:port (an IPv4 or IPv6 literal) with the options the
** service uses. Returns NULL when the address does not parse (errno EINVAL) or
** the daemon cannot start (errno as MHD left it, e.g. EADDRINUSE).
*/
static inline struct MHD_Daemon *preflight_mhd_start(
    unsigned int flags, const char *host, uint16_t port,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    unsigned int connection_timeout_s, unsigned int per_ip_connection_limit,
    unsigned int connection_limit, size_t connection_memory_limit, unsigned int thread_pool_size) {
  struct sockaddr_in v4;
  struct sockaddr_in6 v6;
  const struct sockaddr *address;
  memset(&v4, 0, sizeof v4);
  memset(&v6, 0, sizeof v6);
  if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    address = (const struct sockaddr *)&v4;
  } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    address = (const struct sockaddr *)&v6;
    flags |= MHD_USE_IPv6;
  } else {
    errno = EINVAL;
    return NULL;
  }
  errno = 0;
  return MHD_start_daemon(
      flags, port, NULL, NULL, handler, handler_cls,
      MHD_OPTION_SOCK_ADDR, address,
      MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_s,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
      MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
      MHD_OPTION_END);
}

/*
** Raises the soft limit of open descriptors to wanted, or to the hard limit when that
** is lower; never lowers it.
*/
static inline void preflight_raise_descriptor_limit(unsigned long wanted) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) wanted = limit.rlim_max;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= wanted) return;
  if (limit.rlim_cur == RLIM_INFINITY) return;
  limit.rlim_cur = wanted;
  (void)setrlimit(RLIMIT_NOFILE, &limit);
}

/* The port the daemon listens on (the real one when it was started with 0). */
static inline uint16_t preflight_mhd_daemon_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/* Sets one connection's idle timeout (MHD_set_connection_option is variadic). */
static inline void preflight_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
  (void)MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/* The connection's socket, or -1. */
static inline int preflight_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

/*
** The client's address as text (an IPv4 or IPv6 literal) in buffer; "" when the
** connection has none MHD can say.
*/
static inline void preflight_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  buffer[0] = '\0';
  if (info == NULL || info->client_addr == NULL) return;
  if (info->client_addr->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, buffer, (socklen_t)size);
  } else if (info->client_addr->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, buffer, (socklen_t)size);
  }
}

/*
** 1 when the client closed the connection (or it broke), 0 while it is open.
** Waits at most timeout_ms. A client that half-closes after its request counts as gone.
*/
static inline int preflight_peer_closed(int fd, int timeout_ms) {
  struct pollfd p;
  p.fd = fd;
  p.events = POLLRDHUP;
  p.revents = 0;
  if (poll(&p, 1, timeout_ms) <= 0) return 0;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/*
** 1 when a body still missing missing_bytes can never arrive: the client has shut down
** its sending half (or the connection broke) and fewer bytes than that wait unread in
** the socket. libmicrohttpd's epoll mode is edge-triggered and takes a short read for
** "drained": when the client's last bytes and its FIN arrive together, no event
** follows the read, and the connection would wait for its idle timeout.
*/
static inline int preflight_body_cut_short(int fd, long long missing_bytes) {
  int unread = 0;
  if (fd < 0 || missing_bytes <= 0 || !preflight_peer_closed(fd, 0)) return 0;
  if (ioctl(fd, FIONREAD, &unread) != 0) return 1;
  return (long long)unread < missing_bytes;
}

/*
** Answers a request in the middle of its body, which MHD_queue_response cannot do:
** writes the complete response (status line, headers, body) on the socket and shuts
** down the sending half. Returns a duplicate of the socket (close-on-exec), or -1:
** MHD closes its own descriptor when the handler returns MHD_NO, and whoever holds the
** duplicate reads and drops what the client still sends for a while before closing it,
** so that the close does not reset the connection before the client has read the
** answer (a "lingering close"), without holding MHD's polling thread meanwhile.
*/
static inline int preflight_answer_mid_body(int fd, const char *response, size_t length) {
  size_t sent = 0;
  while (sent < length) {
    ssize_t n = send(fd, response + sent, length - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      /* MHD's sockets do not block: wait (briefly) for room for a small answer. */
      struct pollfd p;
      p.fd = fd;
      p.events = POLLOUT;
      p.revents = 0;
      if (poll(&p, 1, 100) <= 0) return -1;
      continue;
    }
    if (n <= 0) return -1;
    sent += (size_t)n;
  }
  shutdown(fd, SHUT_WR);
  return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

#endif
