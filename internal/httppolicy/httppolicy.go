// Package httppolicy is servecmp's one policy for the HTTP requests it
// sends: the load, the pre-flight check, engine detection, the prefix-cache
// resets, the profiler API, the server-metrics scraper (engine and DCGM GPU
// metrics) and the readiness probes of launched engines. Every client is
// made here, so that a new request inherits the policy.
//
// The policy:
//
//   - No proxy. HTTP_PROXY, HTTPS_PROXY and NO_PROXY are ignored by every
//     request: a benchmark through a proxy measures the proxy, and the API
//     key would reach it. servecmp talks to the URLs it is given, directly.
//   - No redirect. A 3xx answer is an error (ErrRedirect) naming where the
//     server pointed, with credentials masked: following it would send the
//     API key to another server and measure that server. The request that
//     carried the key is never repeated elsewhere.
//   - Bounded waits. Dialling and the TLS handshake are bounded (DialTimeout,
//     TLSTimeout); a whole exchange is bounded by Options.Timeout when the
//     caller gives one (streams bound their own requests).
//   - Bounded bodies. ReadBody reads at most a given number of bytes and
//     says so (ErrTooLarge) rather than cutting silently.
//
// Units: durations are time.Duration; sizes are bytes.
package httppolicy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/servecmp/servecmp/internal/redact"
)

// Bounds of every connection.
const (
	DialTimeout = 10 * time.Second
	TLSTimeout  = 10 * time.Second
	KeepAlive   = 30 * time.Second
	IdleTimeout = 90 * time.Second
)

// ErrRedirect is matched (errors.Is) by the error of a request the server
// answered with a redirect.
var ErrRedirect = errors.New("redirects are not followed")

// ErrTooLarge is matched (errors.Is) by ReadBody's error for a body over
// its bound.
var ErrTooLarge = errors.New("body too large")

// Options tune a client; the zero value is a client for short exchanges
// with no overall timeout.
type Options struct {
	// Timeout bounds one whole exchange, headers and body; 0: none (a
	// streaming caller bounds its requests by their context).
	Timeout time.Duration
	// Conns is the number of idle connections kept per host (0: Go's
	// default of 2).
	Conns int
	// NoKeepAlive makes every request dial its own connection.
	NoKeepAlive bool
	// NoCompression asks for bodies as they are (a compressed event
	// stream would be buffered by the decompressor).
	NoCompression bool
	// BufferSize sizes the connection's read and write buffers (0: Go's
	// default).
	BufferSize int
}

// Transport returns a transport with the policy: no proxy, bounded dial
// and handshake.
func Transport(o Options) *http.Transport {
	return &http.Transport{
		Proxy:               nil, // never from the environment: see the package comment
		DialContext:         (&net.Dialer{Timeout: DialTimeout, KeepAlive: KeepAlive}).DialContext,
		TLSHandshakeTimeout: TLSTimeout,
		MaxIdleConns:        o.Conns + 16,
		MaxIdleConnsPerHost: max(o.Conns+16, 2),
		IdleConnTimeout:     IdleTimeout,
		DisableKeepAlives:   o.NoKeepAlive,
		DisableCompression:  o.NoCompression,
		ReadBufferSize:      o.BufferSize,
		WriteBufferSize:     o.BufferSize,
	}
}

// Client returns a client with the policy over a new Transport(o).
func Client(o Options) *http.Client {
	return Wrap(Transport(o), o.Timeout)
}

// Wrap returns a client over rt that refuses redirects, with an overall
// timeout (0: none). rt should come from Transport.
func Wrap(rt http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: refuseRedirect}
}

// refuseRedirect is every client's CheckRedirect: the redirect is an
// error, so the request is not sent again anywhere.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	status := "a redirect"
	if req.Response != nil {
		status = req.Response.Status
	}
	from := "the server"
	if len(via) > 0 {
		from = redact.URL(via[len(via)-1].URL.String())
	}
	return &RedirectError{From: from, To: redact.URL(req.URL.String()), Status: status}
}

// RedirectError is a redirect refused; its URLs carry no credentials.
type RedirectError struct {
	From, To, Status string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s answered %s to %s: %v (the API key would follow it and another server would be measured); give the final URL", e.From, e.Status, e.To, ErrRedirect)
}

func (e *RedirectError) Unwrap() error { return ErrRedirect }

// ReadBody reads r to its end, at most limit bytes; a longer body is an
// error matching ErrTooLarge, returned with the first limit bytes.
func ReadBody(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}

// Drain reads and discards at most limit bytes of r, so that a connection
// can go back to the pool without waiting on an endless body.
func Drain(r io.Reader, limit int64) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r, limit))
}
