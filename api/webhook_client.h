// The HTTP transport of alert deliveries (orchestrator::WebhookSender): one POST over a fresh
// connection, http:// or https://, Beast and OpenSSL kept out of this header. Redirects are not
// followed: a 3xx is an answer like any other non-2xx.
//
// https://: TLS 1.2 or later; the receiver's certificate must chain to a CA of the system's store
// (Debian's ca-certificates) or of `ca_file` (a lab's own CA), and name the URL's host (its DNS
// name, or its IP address for an address); the host is sent as SNI. A certificate that fails is
// an attempt that fails, recorded with OpenSSL's reason, and retried like a refused connection.
//
// Threading: runs on the awaiting coroutine's executor; nothing blocks it (the CA certificates
// are read once, by MakeWebhookSender, at start-up). Honours the coroutine's terminal
// cancellation and post.timeout (resolution, connect, TLS handshake, write and read together).
#pragma once

#include <string>

#include "base/result.h"
#include "orchestrator/alerts/webhook.h"

namespace droidlab::api {

struct WebhookTlsOptions {
  std::string ca_file;  // PEM certificates trusted beside the system's; "" for none
};

// The sender the alert center is given. Error (with the file named): `ca_file` cannot be read or
// holds no certificate, or the system's store cannot be loaded.
BasicResult<orchestrator::WebhookSender, std::string> MakeWebhookSender(
    const WebhookTlsOptions& options);

}  // namespace droidlab::api
