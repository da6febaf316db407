#include "runtime/rest/tls.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstring>
#include <vector>

#include "weir/config.hpp"

namespace weir::runtime::rest {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

// OpenSSL's last error, in words, emptying its queue.
std::string openssl_error() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no PEM data found";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

[[noreturn]] void fail(const char* key, const std::string& why) {
  throw ConfigError(key, std::string{"Invalid value for configuration "} + key + ": " + why);
}

// Every certificate in a PEM text, in order; at least one, else ConfigError.
std::vector<X509Ptr> certificates(const std::string& pem, const char* key) {
  std::unique_ptr<BIO, BioFree> bio{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))};
  std::vector<X509Ptr> out;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(x);
  ERR_clear_error(); // the end of the text reads as an error
  if (out.empty()) fail(key, "no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
  return out;
}

int password_callback(char* buffer, int size, int, void* password) {
  const auto& text = *static_cast<const std::string*>(password);
  if (text.size() > static_cast<size_t>(size)) return -1;
  std::memcpy(buffer, text.data(), text.size());
  return static_cast<int>(text.size());
}

} // namespace

TlsContext::TlsContext(const TlsOptions& options) {
  if (options.certificate_chain.empty()) fail(tls_key_chain, "an https listener needs a certificate chain (PEM)");
  if (options.private_key.empty()) fail(tls_key_key, "an https listener needs a private key (PEM)");
  ctx_ = SSL_CTX_new(TLS_server_method());
  if (!ctx_) fail(tls_key_chain, "cannot create a TLS context: " + openssl_error());
  try {
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    // Writes from a non-blocking socket: as much as fits, retried from anywhere.
    SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    auto chain = certificates(options.certificate_chain, tls_key_chain);
    if (SSL_CTX_use_certificate(ctx_, chain.front().get()) != 1) fail(tls_key_chain, openssl_error());
    for (size_t i = 1; i < chain.size(); ++i)
      if (SSL_CTX_add1_chain_cert(ctx_, chain[i].get()) != 1) fail(tls_key_chain, openssl_error());

    std::unique_ptr<BIO, BioFree> bio{
        BIO_new_mem_buf(options.private_key.data(), static_cast<int>(options.private_key.size()))};
    std::string password = options.key_password;
    std::unique_ptr<EVP_PKEY, KeyFree> key{PEM_read_bio_PrivateKey(bio.get(), nullptr, password_callback, &password)};
    if (!key) fail(tls_key_key, "cannot read the private key (PEM; encrypted needs listeners.https.ssl.key.password): "
                                    + openssl_error());
    if (SSL_CTX_use_PrivateKey(ctx_, key.get()) != 1 || SSL_CTX_check_private_key(ctx_) != 1)
      fail(tls_key_key, "the private key does not match the certificate chain's first certificate");

    if (options.client_auth != ClientAuth::none) {
      if (options.trusted_certificates.empty())
        fail(tls_key_client_auth, "client certificates need " + std::string{tls_key_truststore}
                                      + " (or a PEM truststore file) to check them against");
      X509_STORE* store = SSL_CTX_get_cert_store(ctx_);
      STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
      for (auto& ca : certificates(options.trusted_certificates, tls_key_truststore)) {
        X509_STORE_add_cert(store, ca.get());
        sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca.get())));
      }
      SSL_CTX_set_client_CA_list(ctx_, names); // the context owns them now
      int mode = SSL_VERIFY_PEER;
      if (options.client_auth == ClientAuth::required) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      SSL_CTX_set_verify(ctx_, mode, nullptr);
    }
  } catch (...) {
    SSL_CTX_free(ctx_);
    throw;
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

ssl_st* TlsContext::session(int fd) const {
  SSL* ssl = SSL_new(ctx_);
  if (!ssl) return nullptr;
  SSL_set_fd(ssl, fd); // a socket BIO that does not close `fd`
  SSL_set_accept_state(ssl);
  return ssl;
}

} // namespace weir::runtime::rest
