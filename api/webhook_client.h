// The HTTP transport of alert deliveries (orchestrator::WebhookSender): one POST over a fresh
// connection, Beast kept out of this header. http:// only (orchestrator/alerts/webhook.h says
// why). Redirects are not followed: a 3xx is an answer like any other non-2xx.
//
// Threading: runs on the awaiting coroutine's executor; nothing blocks it. Honours the
// coroutine's terminal cancellation and post.timeout (resolution, connect, write and read
// together).
#pragma once

#include <boost/asio/awaitable.hpp>

#include "orchestrator/alerts/webhook.h"

namespace droidlab::api {

boost::asio::awaitable<orchestrator::WebhookAnswer> PostWebhook(orchestrator::WebhookPost post);

}  // namespace droidlab::api
