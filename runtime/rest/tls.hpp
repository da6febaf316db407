// TLS for an https REST listener (OpenSSL), configured as Kafka Connect's
// `listeners.https.` keys with PEM material: the server's certificate chain and
// key, and optionally the certificates that client certificates must chain to.
// What is wrong with the material throws weir::ConfigError naming the key.
#pragma once

#include <memory>
#include <string>

struct ssl_ctx_st;
struct ssl_st;

namespace weir::runtime::rest {

/// Kafka's `ssl.client.auth`.
enum class ClientAuth { none, requested, required };

/// PEM text, not file names (worker_config reads `…location` files into these).
struct TlsOptions {
  std::string certificate_chain; // the server's certificate first, then intermediates
  std::string private_key;
  std::string key_password; // for an encrypted private key; empty: none
  std::string trusted_certificates; // CAs for client certificates; empty: none trusted
  ClientAuth client_auth = ClientAuth::none;
};

/// The key under which each TlsOptions field is configured, for error messages.
inline constexpr const char* tls_key_chain = "listeners.https.ssl.keystore.certificate.chain";
inline constexpr const char* tls_key_key = "listeners.https.ssl.keystore.key";
inline constexpr const char* tls_key_truststore = "listeners.https.ssl.truststore.certificates";
inline constexpr const char* tls_key_client_auth = "listeners.https.ssl.client.auth";

/// An OpenSSL server context: TLS 1.2 and later, the chain and key checked to
/// match, client certificates verified against `trusted_certificates` (required:
/// a handshake without one fails). Thread-safe once built.
class TlsContext {
public:
  explicit TlsContext(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// A server-side session on socket `fd` (not owned), ready to accept; nullptr if
  /// OpenSSL is out of memory.
  ssl_st* session(int fd) const;

private:
  ssl_ctx_st* ctx_ = nullptr;
};

} // namespace weir::runtime::rest
