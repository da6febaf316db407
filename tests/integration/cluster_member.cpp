// A cluster member and nothing else: the membership actor of one node, for the
// membership integration test to start, kill, stop and resume as processes.
//
//   cluster_member LISTEN SEEDS GROUP SECRET HEARTBEAT_MS UNREACHABLE_MS
//
// Prints one line per change of its view:
//   VIEW leader=ID members=ID/Status,... unreachable=ID,...
// and, when a seed refuses it, "REFUSED reason" and exits with status 3.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>

#include "actors/cluster/membership_actor.hpp"
#include "actors/messages.hpp"

namespace {

std::atomic<int> exit_code{-1};

extern "C" void on_signal(int) { exit_code = 0; }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    auto comma = s.find(',', start);
    if (comma == std::string::npos)
      comma = s.size();
    if (comma > start)
      out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

caf::behavior printer(caf::event_based_actor*) {
  using weir::actors::cluster::members_atom;
  using weir::actors::cluster::MembershipSnapshot;
  return {[](members_atom, const MembershipSnapshot& s) {
    if (!s.refused.empty()) {
      std::printf("REFUSED %s\n", s.refused.c_str());
      std::fflush(stdout);
      exit_code = 3;
      return;
    }
    std::string members, unreachable;
    for (const auto& m : s.members)
      members += (members.empty() ? "" : ",") + m.id + "/"
                 + std::string{weir::runtime::cluster::to_string(m.status)};
    for (const auto& id : s.unreachable)
      unreachable += (unreachable.empty() ? "" : ",") + id;
    std::printf("VIEW leader=%s members=%s unreachable=%s\n", s.leader.c_str(), members.c_str(),
                unreachable.c_str());
    std::fflush(stdout);
  }};
}

} // namespace

int main(int argc, char** argv) {
  using namespace weir::actors;
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s LISTEN SEEDS GROUP SECRET HEARTBEAT_MS UNREACHABLE_MS\n",
                 argv[0]);
    return 2;
  }
  std::string listen = argv[1];
  std::chrono::milliseconds heartbeat{std::stoi(argv[5])};
  std::chrono::milliseconds unreachable{std::stoi(argv[6])};
  std::signal(SIGTERM, on_signal);

  caf::actor_system_config cfg;
  announce_types(cfg);
  cluster::configure_middleman(cfg, heartbeat, unreachable);
  caf::actor_system sys{cfg};

  auto started = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  cluster::MembershipSettings settings;
  settings.group_id = argv[3];
  settings.secret = argv[4];
  settings.self = {listen + "#" + std::to_string(started), listen, started,
                   weir::runtime::cluster::MemberStatus::up, 0};
  settings.seeds = split(argv[2]);
  settings.heartbeat = heartbeat;
  settings.unreachable_after = unreachable;
  settings.subscriber = sys.spawn(printer);
  auto membership = cluster::spawn_membership(sys, settings);

  auto colon = listen.rfind(':');
  auto port = sys.middleman().publish(membership, static_cast<uint16_t>(std::stoi(listen.substr(colon + 1))),
                                      listen.substr(0, colon).c_str(), true);
  if (!port) {
    std::fprintf(stderr, "cannot listen on %s: %s\n", listen.c_str(), sys.render(port.error()).c_str());
    return 1;
  }
  while (exit_code < 0)
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  caf::anon_send_exit(membership, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(settings.subscriber, caf::exit_reason::user_shutdown);
  sys.middleman().unpublish(membership, *port);
  return exit_code;
}
