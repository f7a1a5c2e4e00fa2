package benchmark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// raw serves a fixed handler until the test ends and returns its URL.
func raw(t *testing.T, h http.HandlerFunc) string {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// doOne sends r to url through a client of its own and returns its
// record.
func doOne(t *testing.T, url string, r workload.Request, engine string) result.Record {
	t.Helper()
	c := client.New(client.Options{BaseURL: url, Conns: 1})
	defer c.Close()
	p, err := client.Prepare(&r, "m", engine, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Record
	c.Do(context.Background(), client.NewClock(), &p, &rec, nil)
	return rec
}
