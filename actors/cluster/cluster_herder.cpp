#include "actors/cluster/cluster_herder.hpp"

#include <memory>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <spdlog/spdlog.h>

#include "engine/connector_registry.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/rest/config_info.hpp"
#include "runtime/rest/forward.hpp"
#include "runtime/rest/router.hpp"
#include "runtime/rest/weir_json.hpp"

namespace weir::actors::cluster {

namespace rest = runtime::rest;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

std::chrono::milliseconds remaining(Deadline d) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now());
  return std::clamp(left, std::chrono::milliseconds{1000}, std::chrono::milliseconds{60000});
}

std::string config_json(const rest::ConfigMap& config) {
  std::string out = "{";
  for (const auto& [k, v] : config) {
    if (out.size() > 1)
      out += ',';
    runtime::convert::append_json_string(k, out);
    out += ':';
    runtime::convert::append_json_string(v, out);
  }
  return out + "}";
}

std::string path_of(const std::string& name) { return "/connectors/" + rest::percent_encode(name); }

rest::ConnectorType type_of(const rest::ConfigMap& config) {
  auto cls = config.count("connector.class") ? config.at("connector.class") : std::string{};
  return engine::find_sink(cls)     ? rest::ConnectorType::sink
         : engine::find_source(cls) ? rest::ConnectorType::source
                                        : rest::ConnectorType::unknown;
}

/// Polls `done` until it holds or `timeout` passes (a change written to the config
/// topic reaches this node's worker a moment later).
template <class F>
void wait_for(F done, std::chrono::milliseconds timeout) {
  auto until = Clock::now() + timeout;
  while (!done() && Clock::now() < until)
    std::this_thread::sleep_for(20ms);
}

bool knows(NodeHerder& herder, const std::string& name) {
  auto names = herder.connectors(Deadline::max());
  return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

std::string ClusterHerder::leader_url() {
  auto members = links_.view->members();
  if (members.leader.empty())
    throw rest::conflict("Cannot complete request because no leader is known yet: the cluster is "
                         "forming, or this node reaches no other member");
  if (members.leader == links_.member_id)
    return {};
  for (const auto& m : members.members)
    if (m.id == members.leader && !m.rest_url.empty())
      return m.rest_url;
  throw rest::conflict("Cannot complete request because the leader " + members.leader
                       + " has not told its REST URL yet");
}

void ClusterHerder::write_config(const std::string& name, const rest::ConfigMap& config,
                                 std::optional<std::string> target_state, Deadline d) {
  if (target_state)
    links_.configs->put_target_state(name, *target_state);
  links_.configs->put_connector(name, config);
  if (!links_.configs->catch_up(remaining(d)))
    throw rest::RequestTimeout("reading the config topic back after writing connector " + name);
}

rest::Created ClusterHerder::put_connector_config(const std::string& name, const rest::ConfigMap& config,
                                                  std::optional<rest::InitialState> initial_state,
                                                  bool allow_replace, Deadline d) {
  bool existed = knows(node_herder(), name);
  if (auto url = leader_url(); !url.empty()) {
    if (allow_replace) {
      rest::forward_request(url, "PUT", path_of(name) + "/config", config_json(config),
                            links_.rest_token, remaining(d));
    } else {
      std::string body = "{\"name\":";
      runtime::convert::append_json_string(name, body);
      body += ",\"config\":" + config_json(config);
      if (initial_state)
        body += std::string{",\"initial_state\":\""}
                + (*initial_state == rest::InitialState::paused    ? "PAUSED"
                   : *initial_state == rest::InitialState::stopped ? "STOPPED"
                                                                   : "RUNNING")
                + "\"";
      rest::forward_request(url, "POST", "/connectors", body + "}", links_.rest_token, remaining(d));
    }
  } else {
    rest::throw_if_invalid(node_herder().validate_connector_config(config, d));
    existed = links_.configs->snapshot().connectors.count(name) > 0;
    if (existed && !allow_replace)
      throw rest::already_exists("Connector " + name + " already exists");
    std::optional<std::string> target;
    if (initial_state)
      target = *initial_state == rest::InitialState::paused    ? "PAUSED"
               : *initial_state == rest::InitialState::stopped ? "STOPPED"
                                                               : "RUNNING";
    write_config(name, config, target, d);
    spdlog::info("cluster: connector {} {} in the config topic", name, existed ? "updated" : "created");
  }
  wait_for([&] { return knows(node_herder(), name); }, 3s);
  return {!existed, {name, config, {}, type_of(config), {}}};
}

rest::Created ClusterHerder::patch_connector_config(const std::string& name, const rest::ConfigPatch& patch,
                                                    Deadline d) {
  auto config = rest::apply_config_patch(node_herder().connector_info(name, d).config, patch);
  config["name"] = name;
  return put_connector_config(name, config, std::nullopt, true, d);
}

void ClusterHerder::delete_connector(const std::string& name, Deadline d) {
  if (auto url = leader_url(); !url.empty()) {
    rest::forward_request(url, "DELETE", path_of(name), {}, links_.rest_token, remaining(d));
  } else {
    if (!links_.configs->snapshot().connectors.count(name))
      throw rest::not_found("Connector " + name + " not found");
    auto tasks = static_cast<int>(node_herder().task_configs(name, d).size());
    links_.configs->delete_connector(name);
    if (!links_.configs->catch_up(remaining(d)))
      throw rest::RequestTimeout("reading the config topic back after deleting connector " + name);
    links_.statuses->delete_connector(name, tasks);
  }
  wait_for([&] { return !knows(node_herder(), name); }, 3s);
}

void ClusterHerder::set_target_state(const std::string& name, const std::string& state,
                                     const std::string& verb, Deadline d) {
  if (auto url = leader_url(); !url.empty())
    rest::forward_request(url, "PUT", path_of(name) + "/" + verb, {}, links_.rest_token, remaining(d));
  else if (!links_.configs->snapshot().connectors.count(name))
    throw rest::not_found("Connector " + name + " not found");
  else
    links_.configs->put_target_state(name, state);
}

void ClusterHerder::pause_connector(const std::string& name, Deadline d) {
  set_target_state(name, "PAUSED", "pause", d);
}

void ClusterHerder::resume_connector(const std::string& name, Deadline d) {
  set_target_state(name, "RUNNING", "resume", d);
}

void ClusterHerder::stop_connector(const std::string& name, Deadline d) {
  set_target_state(name, "STOPPED", "stop", d);
}

void ClusterHerder::restart_connector(const std::string& name, Deadline d) {
  // The node its instance is assigned to restarts its connector actor, which makes
  // its task configs again for the leader to store; every node restarts the tasks
  // whose stored config then changed. Another node's is told through its
  // membership actor, and does not pass it on: should the instance have moved
  // meanwhile, its new node has started a new connector actor anyway.
  auto assignment = links_.configs->snapshot().assignment;
  auto owner = assignment ? assignment->owner_of({name, runtime::cluster::Work::connector_instance}) : std::string{};
  if (owner.empty() || owner == links_.address)
    return node_herder().restart_connector(name, d); // nothing when no connector actor runs here
  node_herder().connector_info(name, d); // 404 when unknown
  auto handle = links_.view->handle_of(owner);
  if (!handle)
    throw rest::conflict("Cannot restart connector " + name + ": its node " + owner + " is not reachable");
  caf::anon_send(handle, forward_atom::value, caf::make_message(restart_atom::value, name));
}

rest::ConnectorStatus ClusterHerder::connector_status(const std::string& name, Deadline d) {
  auto status = node_herder().connector_status(name, d);
  if (status.connector.state == "STOPPED")
    return status;
  auto shared = links_.statuses->snapshot();
  if (auto it = shared.connectors.find(name); it != shared.connectors.end()) {
    status.connector.worker_id = it->second.worker_id;
    // The node of its connector actor knows whether it could make its task configs.
    if (it->second.state == "FAILED" && status.connector.state == "RUNNING")
      status.connector = {it->second.state, it->second.worker_id, it->second.trace};
  }
  auto count = node_herder().task_configs(name, d).size();
  auto assignment = links_.configs->snapshot().assignment;
  std::vector<rest::TaskState> tasks;
  for (size_t t = 0; t < count; ++t) {
    auto id = static_cast<int>(t);
    auto here = std::find_if(status.tasks.begin(), status.tasks.end(),
                             [&](const rest::TaskState& s) { return s.id == id; });
    // Whose status counts: the node the leader gave the task to, as every node reads it.
    std::optional<std::string> owner; // its worker id; nullopt: no assignment yet
    if (assignment) {
      auto address = assignment->owner_of({name, id});
      owner = address.empty() ? "" : assignment->nodes.at(address).worker_id;
      if (address == links_.address)
        owner = node_herder().worker_id();
    }
    const runtime::cluster::StatusRecord* elsewhere = nullptr;
    if (!owner) {
      if (auto it = shared.tasks.find({name, id}); it != shared.tasks.end())
        elsewhere = &it->second;
    } else if (auto it = shared.task_reports.find({name, id}); it != shared.task_reports.end()) {
      if (auto mine = it->second.find(*owner); mine != it->second.end())
        elsewhere = &mine->second;
    }
    // A paused connector's tasks are assigned nowhere: every node says PAUSED alike.
    bool unassigned_by_design = status.connector.state != "RUNNING";
    if (here != status.tasks.end() && (!owner || *owner == node_herder().worker_id() || unassigned_by_design))
      tasks.push_back(*here);
    else if (elsewhere)
      tasks.push_back({id, {elsewhere->state, elsewhere->worker_id, elsewhere->trace}});
    else
      tasks.push_back({id, {"UNASSIGNED", owner.value_or(""), ""}});
  }
  status.tasks = std::move(tasks);
  return status;
}

rest::TaskState ClusterHerder::task_status(const rest::TaskId& id, Deadline d) {
  for (const auto& t : connector_status(id.connector, d).tasks)
    if (t.id == id.task)
      return t;
  throw rest::not_found("Task " + id.connector + "-" + std::to_string(id.task) + " not found");
}

std::string ClusterHerder::owner_url(const rest::TaskId& id, rest::Forward forward, const std::string& doing,
                                     Deadline d) {
  auto name = id.connector + "-" + std::to_string(id.task);
  auto where = task_status(id, d).state.worker_id;
  if (where == node_herder().worker_id())
    return {};
  if (where.empty())
    throw rest::conflict("Cannot " + doing + " task " + name + ": it is not assigned to any node yet");
  // Kafka Connect's answer to a request forwarded once that still finds no owner.
  if (forward == rest::Forward::refused)
    throw rest::conflict("Cannot complete request because of a conflicting operation (e.g. worker "
                         "rebalance): task " + name + " was forwarded to this node, which sees it on "
                         + where);
  return links_.rest_scheme + "://" + where;
}

void ClusterHerder::restart_task(const rest::TaskId& id, rest::Forward forward, Deadline d) {
  auto url = owner_url(id, forward, "restart", d);
  if (url.empty())
    return node_herder().restart_task(id, forward, d);
  rest::forward_request(url, "POST",
                        path_of(id.connector) + "/tasks/" + std::to_string(id.task) + "/restart?forward=false",
                        {}, links_.rest_token, remaining(d));
}

void ClusterHerder::tap(const rest::TaskId& id, const std::string& stage, int count, rest::Forward forward,
                        Deadline d, rest::TapSink& sink) {
  auto url = owner_url(id, forward, "tap", d);
  if (url.empty())
    return node_herder().tap(id, stage, count, forward, d, sink);
  // The owner waits as long as this tap has left; its answer (records or error) is
  // this one's, streamed through line by line, and abandoned when the reader goes.
  auto left = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now()).count());
  std::string pending; // a line split between two pieces
  rest::forward_stream(
    url,
    "/weir" + path_of(id.connector) + "/tasks/" + std::to_string(id.task) + "/stages/" + rest::percent_encode(stage)
      + "/tap?count=" + std::to_string(count) + "&timeout_ms=" + std::to_string(left) + "&forward=false",
    links_.rest_token, std::chrono::milliseconds{left} + 5s,
    [&](std::string_view piece) {
      pending += piece;
      size_t start = 0;
      for (size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
        if (end > start && !sink.record(std::string_view{pending}.substr(start, end - start)))
          return false;
      pending.erase(0, start);
      return true;
    },
    [&] { return sink.gone(); });
}

rest::ConnectorStatus ClusterHerder::restart_connector_and_tasks(const rest::RestartRequest& request,
                                                                 Deadline d) {
  auto status = connector_status(request.connector, d);
  if (!request.only_failed || status.connector.state == "FAILED") {
    restart_connector(request.connector, d);
    status.connector.state = "RESTARTING";
  }
  for (auto& t : status.tasks) {
    if (!request.include_tasks || (request.only_failed && t.state.state != "FAILED"))
      continue;
    restart_task({request.connector, t.id}, rest::Forward::allowed, d);
    t.state.state = "RESTARTING";
    t.state.trace.clear();
  }
  return status;
}

std::string ClusterHerder::alter_connector_offsets(const std::string& name,
                                                   const std::vector<rest::ConnectorOffset>& offsets,
                                                   Deadline d) {
  return node_herder().alter_connector_offsets(name, offsets, d);
}

std::string ClusterHerder::reset_connector_offsets(const std::string& name, Deadline d) {
  return node_herder().reset_connector_offsets(name, d);
}

void ClusterHerder::set_cluster_logger_level(const std::string& name, const std::string& level,
                                             Deadline d) {
  node_herder().set_worker_logger_level(name, level, d);
  for (const auto& m : links_.view->members().members)
    if (m.id != links_.member_id && !m.rest_url.empty()) {
      try {
        rest::forward_request(m.rest_url, "PUT", "/admin/loggers/" + rest::percent_encode(name),
                              "{\"level\":\"" + level + "\"}", links_.rest_token, remaining(d));
      } catch (const std::exception& e) {
        spdlog::warn("cluster: could not set logger {} on {}: {}", name, m.rest_url, e.what());
      }
    }
}

rest::ActorTree ClusterHerder::node_tree(const std::optional<std::string>& connector, Deadline d) {
  auto tree = node_herder().actor_tree(connector, d);
  auto members = links_.view->members();
  for (auto& node : tree.nodes)
    node.leader = members.leader == links_.member_id;
  return tree;
}

// Every other live member's membership actor is asked at once, all with one
// common deadline (the request's, at most 5 s): a member that is stopped or cut off
// costs the answer that wait once, not once per member, and is listed as
// unreachable, as is a member that membership already holds unreachable.
rest::ActorTree ClusterHerder::actor_tree(const std::optional<std::string>& connector, Deadline d) {
  auto tree = node_tree(connector, d);
  auto members = links_.view->members();
  auto wait = std::min(remaining(d), std::chrono::milliseconds{5000});
  caf::scoped_actor self{*links_.system};
  using Answer = decltype(self->request(caf::actor{}, wait, tree_atom::value, std::string{}, int64_t{}));
  struct Asked {
    std::string id; ///< the member's worker id (host:port of its REST listener)
    bool leader;
    std::optional<Answer> answer; ///< none: known unreachable, not asked
  };
  std::vector<Asked> asked;
  for (const auto& m : members.members) {
    if (m.id == links_.member_id || m.status != runtime::cluster::MemberStatus::up)
      continue;
    Asked a{m.rest_url.empty() ? m.id : m.rest_url.substr(m.rest_url.find("//") + 2), m.id == members.leader, {}};
    bool unreachable = std::find(members.unreachable.begin(), members.unreachable.end(), m.id)
                       != members.unreachable.end();
    auto handle = members.handles.find(m.id);
    if (!unreachable && handle != members.handles.end())
      // The member gathers its tree in 4/5 of the wait, so its answer arrives in time.
      a.answer.emplace(self->request(handle->second, wait, tree_atom::value, connector.value_or(""),
                                     static_cast<int64_t>(wait.count() * 4 / 5)));
    asked.push_back(std::move(a));
  }
  for (auto& a : asked) {
    bool answered = false;
    if (a.answer)
      a.answer->receive(
        [&](std::string& json) {
          try {
            for (auto& node : rest::parse_actor_tree(json).nodes)
              tree.nodes.push_back(std::move(node));
            answered = true;
          } catch (const std::exception& e) {
            spdlog::warn("cluster: the actor tree from {} is malformed: {}", a.id, e.what());
          }
        },
        [&](caf::error& e) {
          spdlog::warn("cluster: no actor tree from {} within {} ms ({}): listed as unreachable", a.id,
                       wait.count(), self->system().render(e));
        });
    if (answered)
      continue;
    rest::TreeNode node{a.id, a.leader, {}};
    node.unreachable = true;
    tree.nodes.push_back(std::move(node));
  }
  return tree;
}

caf::actor spawn_tree_source(caf::actor_system& sys, ClusterHerder& herder) {
  return sys.spawn<caf::detached>([&herder]() -> caf::behavior {
    return {
      [&herder](tree_atom, const std::string& connector, int64_t budget_ms) -> caf::result<std::string> {
        try {
          std::string out;
          rest::append_actor_tree(herder.node_tree(connector.empty() ? std::nullopt : std::optional{connector},
                                                   Clock::now() + std::chrono::milliseconds{budget_ms}),
                                  out);
          return out;
        } catch (const std::exception& e) {
          return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
        }
      },
    };
  });
}

void ClusterHerder::publish_statuses() {
  auto [mine, generation] = node_herder().assigned();
  auto self = node_herder().worker_id();
  // Only what changed since the last call goes to the topic.
  auto changed = [&](const std::string& key, const runtime::cluster::StatusRecord& record) {
    auto [it, fresh] = published_.try_emplace(key, record);
    if (!fresh && it->second == record)
      return false;
    it->second = record;
    return true;
  };
  // A task that left this node is UNASSIGNED here, as Kafka Connect's workers say
  // when they stop one (readers take the record of the node it is assigned to, so
  // this never hides its new node's), and forgotten: should it come back, its
  // status is written again.
  auto local = node_herder().local_statuses();
  auto instances = node_herder().instances();
  for (auto it = published_.begin(); it != published_.end();) {
    bool here = false;
    for (const auto& status : local) {
      for (const auto& t : status.tasks)
        here = here || it->first == "task " + status.name + "-" + std::to_string(t.id);
      here = here || (it->first == "connector " + status.name && instances.count(status.name));
    }
    if (here) {
      ++it;
      continue;
    }
    const auto& key = it->first;
    auto dash = key.rfind('-');
    if (key.starts_with("task ") && dash != std::string::npos) {
      auto connector = key.substr(5, dash - 5);
      // A deleted connector's statuses stay deleted.
      if (std::any_of(local.begin(), local.end(), [&](const auto& s) { return s.name == connector; }))
        links_.statuses->put_task(connector, std::stoi(key.substr(dash + 1)),
                                  {"UNASSIGNED", "", self, generation});
    }
    it = published_.erase(it);
  }
  for (const auto& status : local) {
    for (const auto& t : status.tasks) {
      runtime::cluster::StatusRecord record{t.state.state, t.state.trace, self, generation};
      if (changed("task " + status.name + "-" + std::to_string(t.id), record))
        links_.statuses->put_task(status.name, t.id, record);
    }
    // The connector's own status comes from where its connector actor runs.
    runtime::cluster::StatusRecord record{status.connector.state, status.connector.trace, self, generation};
    if (instances.count(status.name) && changed("connector " + status.name, record))
      links_.statuses->put_connector(status.name, record);
  }
}

} // namespace weir::actors::cluster
