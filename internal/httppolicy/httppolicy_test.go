package httppolicy

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/internal/redact"
)

// proxyHits counts the requests the proxy of TestMain received.
var proxyHits atomic.Int64

// TestMain points HTTP_PROXY and HTTPS_PROXY at a recording server before
// any request is made (Go reads them once per process), so that the tests
// below see what a user with a proxy in the environment would.
func TestMain(m *testing.M) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	os.Setenv("HTTP_PROXY", proxy.URL)
	os.Setenv("HTTPS_PROXY", proxy.URL)
	os.Setenv("NO_PROXY", "")
	code := m.Run()
	proxy.Close()
	os.Exit(code)
}

// TestProxyIgnored checks that the environment's proxy is never used,
// and, as a control, that Go's default client would have used it.
func TestProxyIgnored(t *testing.T) {
	if Transport(Options{}).Proxy != nil {
		t.Fatal("the transport has a proxy function")
	}
	// A host that is not loopback: Go never proxies loopback addresses.
	req, _ := http.NewRequest(http.MethodGet, "http://engine.invalid/v1/models", nil)
	before := proxyHits.Load()
	if resp, err := (&http.Client{}).Do(req); err == nil {
		resp.Body.Close()
	}
	if proxyHits.Load() == before {
		t.Skip("control: the default client did not use HTTP_PROXY here")
	}
	before = proxyHits.Load()
	req, _ = http.NewRequest(http.MethodGet, "http://engine.invalid/v1/models", nil)
	req.Header.Set("Authorization", "Bearer sk-secret")
	resp, err := Client(Options{}).Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a request to an unresolvable host succeeded: it went through a proxy")
	}
	if proxyHits.Load() != before {
		t.Fatal("the proxy received the request")
	}
}

// TestRedirectRefused checks that a 307 to another server is an error
// naming both ends, and that the other server never sees the request (nor
// the key it carried).
func TestRedirectRefused(t *testing.T) {
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
	}))
	defer other.Close()
	for _, status := range []int{301, 302, 303, 307, 308} {
		first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/completions", status)
		}))
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, first.URL+"/v1/completions", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer sk-secret")
		resp, err := Client(Options{}).Do(req)
		first.Close()
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%d: followed or accepted", status)
		}
		if !errors.Is(err, ErrRedirect) {
			t.Errorf("%d: error %v does not match ErrRedirect", status, err)
		}
		if !strings.Contains(err.Error(), other.URL) {
			t.Errorf("%d: error %q does not say where the redirect pointed", status, err)
		}
	}
	if n := otherHits.Load(); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

// TestRedirectMasksCredentials checks that a Location carrying
// credentials is masked in the policy's own message, and wholly once the
// error passes redact.Text as every printed error does (net/http's
// wrapper names the redirect's URL as it was).
func TestRedirectMasksCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://user:pw-secret@127.0.0.1:1/x", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := Client(Options{}).Get(srv.URL)
	var re *RedirectError
	if !errors.As(err, &re) || strings.Contains(re.Error(), "pw-secret") {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(redact.Text(err.Error()), "pw-secret") {
		t.Fatalf("redacted error %q", redact.Text(err.Error()))
	}
}

func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		body   string
		limit  int64
		tooBig bool
	}{{"", 4, false}, {"abcd", 4, false}, {"abcde", 4, true}} {
		b, err := ReadBody(strings.NewReader(c.body), c.limit)
		if got := errors.Is(err, ErrTooLarge); got != c.tooBig {
			t.Errorf("%q limit %d: error %v", c.body, c.limit, err)
		}
		if int64(len(b)) > c.limit {
			t.Errorf("%q limit %d: returned %d bytes", c.body, c.limit, len(b))
		}
	}
}
