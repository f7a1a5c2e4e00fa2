package client

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"github.com/servecmp/servecmp/benchmark/result"
)

// attempt records what httptrace saw of one send.
type attempt struct {
	reused, gotByte atomic.Bool
}

func (a *attempt) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { a.reused.Store(i.Reused) },
		GotFirstResponseByte: func() { a.gotByte.Store(true) },
	})
}

// neverReached reports whether the failed send err may be retried.
func (a *attempt) neverReached(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && a.reused.Load() && !a.gotByte.Load() &&
		failureClass(ctx, err).class == result.ClassConnection
}

// roundTrip sends req (the request of p) and applies the retry rule:
// when the send never reached the server, p is sent again on a
// connection of its own and rec is marked retried.
func (c *Client) roundTrip(ctx context.Context, req *http.Request, p *Prepared, rec *result.Record) (*http.Response, error) {
	var a attempt
	resp, err := c.hc.Do(req.WithContext(a.trace(req.Context())))
	if !a.neverReached(ctx, err) {
		return resp, err
	}
	again, nerr := c.newRequest(req.Context(), p)
	if nerr != nil {
		return nil, err
	}
	rec.Retried, rec.RetryReason = true, c.scrub(err.Error())
	return c.fresh.Do(again)
}
