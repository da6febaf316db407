// Forwarding a REST request to another worker (a cluster node's writes go to the
// leader, a task's restart to the node running it), as Kafka Connect does.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/rest/tls.hpp"

namespace weir::runtime::rest {

/// How requests to a worker at an https:// URL are made, as Kafka Connect's REST
/// client uses its listener's ssl settings: the server's certificate must chain to
/// `options.trusted_certificates` (empty: the system's CAs) and name the host it
/// was dialled at, and `options.certificate_chain` and `private_key` (when both are
/// given) are presented to a listener that asks for a client certificate. Until it
/// is called, https workers are checked against the system's CAs and no certificate
/// is presented. Thread-safe.
void set_forward_tls(const TlsOptions& options);

/// Sends `method path` with a JSON `body` to the worker at `base_url`
/// (http://HOST:PORT or https://HOST:PORT) and returns the body of its 2xx answer. Its error answer is
/// rethrown as RestError with the same status and message; no answer is a 500
/// naming the worker ("Cannot forward the request to the leader at URL: ...").
/// `token` is the bearer token the cluster's workers share (empty: none).
std::string forward_request(const std::string& base_url, const std::string& method,
                            const std::string& path, const std::string& body,
                            const std::string& token, std::chrono::milliseconds timeout);

/// Sends GET `path` to the worker at `base_url` and passes the body of its 2xx
/// answer to `each`, piece by piece as it arrives (a streamed answer: a tap).
/// `each` returning false, or `stop` returning true (asked every 100 ms), abandons
/// the request: its connection closes, so the worker sees its client go. Errors as
/// forward_request's; none once abandoned.
void forward_stream(const std::string& base_url, const std::string& path, const std::string& token,
                    std::chrono::milliseconds timeout, const std::function<bool(std::string_view)>& each,
                    const std::function<bool()>& stop);

} // namespace weir::runtime::rest
