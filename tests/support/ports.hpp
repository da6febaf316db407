// Free loopback TCP ports for processes a test starts with fixed addresses (cluster
// nodes must know each other's addresses before any of them runs).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace weir::testing {

/// `n` distinct free ports on 127.0.0.1: each is bound to port 0 and read back, and
/// all are held until the last is picked, so the kernel cannot hand one out twice.
/// They are released on return; the caller's processes bind them right after (a
/// small race with other programs remains).
inline std::vector<uint16_t> free_ports(size_t n) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  for (size_t i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0
              && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    if (fd >= 0)
      fds.push_back(fd);
    if (!ok)
      break;
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : fds)
    ::close(fd);
  if (ports.size() != n)
    throw std::runtime_error("cannot find free loopback ports");
  return ports;
}

} // namespace weir::testing
