#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "runtime/rest/http_server.hpp"
#include "weir/config.hpp"

using namespace weir::runtime::rest;

namespace {

std::string pem_of(int (*write)(BIO*, void*), void* object) {
  BIO* bio = BIO_new(BIO_s_mem());
  write(bio, object);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

// A self-signed certificate for 127.0.0.1 and its key, as PEM text.
struct SelfSigned {
  std::string certificate, key;
  SelfSigned(const char* name = "127.0.0.1") {
    EVP_PKEY* pkey = EVP_RSA_gen(2048);
    X509* x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -60);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(name), -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_set_pubkey(x, pkey);
    X509_sign(x, pkey, EVP_sha256());
    certificate = pem_of([](BIO* b, void* o) { return PEM_write_bio_X509(b, static_cast<X509*>(o)); }, x);
    key = pem_of(
        [](BIO* b, void* o) {
          return PEM_write_bio_PrivateKey(b, static_cast<EVP_PKEY*>(o), nullptr, nullptr, 0, nullptr, nullptr);
        },
        pkey);
    X509_free(x);
    EVP_PKEY_free(pkey);
  }
};

std::unique_ptr<X509, decltype(&X509_free)> certificate_of(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return {x, X509_free};
}

// A blocking TLS client that trusts `server` and presents `client` if given.
class TlsClient {
public:
  TlsClient(uint16_t port, const SelfSigned& server, const SelfSigned* client = nullptr) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_), certificate_of(server.certificate).get());
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (client) {
      SSL_CTX_use_certificate(ctx_, certificate_of(client->certificate).get());
      BIO* bio = BIO_new_mem_buf(client->key.data(), static_cast<int>(client->key.size()));
      EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
      SSL_CTX_use_PrivateKey(ctx_, key);
      EVP_PKEY_free(key);
      BIO_free(bio);
    }
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    connected_ = SSL_connect(ssl_) == 1;
  }
  ~TlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    ::close(fd_);
  }

  bool connected() const { return connected_; }

  bool send(const std::string& bytes) {
    return SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) == static_cast<int>(bytes.size());
  }

  // One response's status and body (Content-Length framed); status 0 if it ended first.
  std::pair<int, std::string> read_response() {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos)
      if (!fill()) return {0, ""};
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    size_t at = head.find("Content-Length: ");
    size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 16));
    while (buffer_.size() < length)
      if (!fill()) return {0, ""};
    std::string body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return {std::stoi(head.substr(9, 3)), body};
  }

private:
  bool fill() {
    char chunk[16384];
    int n = SSL_read(ssl_, chunk, sizeof chunk);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

HttpResponse echo(const HttpRequest& request) {
  return json_response(200, request.method + " " + request.target + " " + std::to_string(request.body.size()) + " "
                              + request.body.substr(0, 8));
}

HttpServerOptions https(const SelfSigned& server) {
  HttpServerOptions options;
  options.listener = "https://127.0.0.1:0";
  options.tls = TlsOptions{};
  options.tls->certificate_chain = server.certificate;
  options.tls->private_key = server.key;
  return options;
}

} // namespace

BOOST_AUTO_TEST_SUITE(tls)

BOOST_AUTO_TEST_CASE(requests_over_tls_kept_alive_pipelined_and_large) {
  SelfSigned server;
  HttpServer http(https(server), echo);
  TlsClient client(http.port(), server);
  BOOST_REQUIRE(client.connected());
  client.send("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  BOOST_TEST(client.read_response().second == "GET /a 0 ");
  BOOST_TEST(client.read_response().second == "GET /b 0 ");
  // A body of many TLS records, and an answer after it on the same connection.
  std::string big(3 * 1024 * 1024, 'z');
  client.send("PUT /big HTTP/1.1\r\nContent-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big);
  BOOST_TEST(client.read_response().second == "PUT /big 3145728 zzzzzzzz");
  client.send("GET /after HTTP/1.1\r\n\r\n");
  BOOST_TEST(client.read_response().second == "GET /after 0 ");
}

BOOST_AUTO_TEST_CASE(required_client_certificates_are_checked) {
  SelfSigned server, client, stranger("stranger");
  HttpServerOptions options = https(server);
  options.tls->trusted_certificates = client.certificate;
  options.tls->client_auth = ClientAuth::required;
  HttpServer http(options, echo);
  {
    TlsClient trusted(http.port(), server, &client);
    BOOST_REQUIRE(trusted.connected());
    trusted.send("GET /ok HTTP/1.1\r\n\r\n");
    BOOST_TEST(trusted.read_response().first == 200);
  }
  for (const SelfSigned* who : std::initializer_list<const SelfSigned*>{nullptr, &stranger}) {
    // TLS 1.3 reports the refusal after the client's handshake ends: on first read.
    TlsClient refused(http.port(), server, who);
    bool answered = refused.connected() && refused.send("GET /no HTTP/1.1\r\n\r\n") &&
                    refused.read_response().first != 0;
    BOOST_TEST(!answered, (who ? "a stranger's certificate" : "no certificate") << " was answered");
  }
  TlsClient again(http.port(), server, &client);
  again.send("GET /again HTTP/1.1\r\n\r\n");
  BOOST_TEST(again.read_response().first == 200);
}

BOOST_AUTO_TEST_CASE(a_key_that_is_not_the_certificates_is_refused_naming_it) {
  SelfSigned server, other;
  HttpServerOptions options = https(server);
  options.tls->private_key = other.key;
  try {
    HttpServer http(options, echo);
    BOOST_FAIL("a mismatched key was accepted");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(e.key() == "listeners.https.ssl.keystore.key");
    BOOST_TEST(std::string{e.what()}.find("does not match") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
