package benchmark

// The retry rule: a request that provably never reached the server is
// sent again, once, on a fresh connection; anything else stays a failure.
// "Provably" means the send failed with a connection error on a reused
// keep-alive connection before any byte of the response arrived: the
// server had closed that connection after its previous response (llama.cpp
// does so after every streamed response while answering keep-alive, and so
// do proxies and load balancers at their idle limits). A failure on a
// fresh connection, a timeout, a cancellation, or one after any response
// byte is never retried: the server may have seen that request.
