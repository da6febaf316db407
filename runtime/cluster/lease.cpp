#include "runtime/cluster/lease.hpp"

#include <algorithm>

namespace weir::runtime::cluster {

KafkaReach::Change KafkaReach::update(Clock::time_point last_contact, Clock::time_point now) {
  auto heard = std::max(last_contact, resumed_);
  silence_ = std::chrono::duration_cast<std::chrono::milliseconds>(now - heard);
  bool silent = now - heard > timeout_;
  if (silent == cut_off_)
    return Change::none;
  cut_off_ = silent;
  return silent ? Change::lost : Change::regained;
}

void LeaderLease::observe(int64_t offset, const std::string& leader, Clock::time_point now) {
  if (offset == offset_)
    return;
  offset_ = offset;
  leader_ = leader;
  seen_ = now;
}

bool LeaderLease::held_by_another(const std::string& self, Clock::time_point now) const {
  return offset_ >= 0 && leader_ != self && now - seen_ < timeout_;
}

} // namespace weir::runtime::cluster
