package client

import (
	"context"
	"io"
	"net/http"
	"time"
)

// ServerDate asks the server for GET /v1/models and returns when the
// request was sent and when the answer's head arrived, on this host's
// wall clock, with the answer's Date header (HTTP-date, whole seconds).
// ok is false when the answer carried no Date that parses; the status
// does not matter, every answer is stamped. The body is read (at most
// 1 MiB) and dropped, so the connection can be reused.
func (c *Client) ServerDate(ctx context.Context) (sent, recv, date time.Time, ok bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/models", nil)
	if err != nil {
		return sent, recv, date, false, err
	}
	c.auth(req)
	sent = time.Now()
	resp, err := c.hc.Do(req)
	recv = time.Now()
	if err != nil {
		return sent, recv, date, false, err
	}
	_, _ = io.CopyN(io.Discard, resp.Body, 1<<20)
	_ = resp.Body.Close()
	date, perr := http.ParseTime(resp.Header.Get("Date"))
	return sent, recv, date, perr == nil, nil
}
