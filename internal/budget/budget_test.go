package budget

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLimits(t *testing.T) {
	b := New(context.Background(), "chat template t.jinja", Limits{Steps: 10, Depth: 2, Bytes: 5})
	for range 10 {
		if err := b.Step(); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Step()
	var ee *ExceededError
	if !errors.Is(err, ErrExceeded) || !errors.As(err, &ee) || ee.Resource != "steps" || !strings.Contains(err.Error(), "chat template t.jinja: more than 10 steps") {
		t.Fatalf("steps: %v", err)
	}
	if b.Enter() != nil || b.Enter() != nil || b.Enter() == nil {
		t.Fatal("depth 3 of 2 accepted")
	}
	b.Leave()
	b.Leave()
	if err := b.Enter(); err != nil {
		t.Fatalf("depth after Leave: %v", err)
	}
	if b.Grow(5) != nil || b.Grow(1) == nil {
		t.Fatal("bytes")
	}
	free := New(nil, "x", Limits{})
	if free.Steps(1<<40) != nil || free.Grow(1<<40) != nil {
		t.Fatal("a zero limit bounded")
	}
}

// TestCancel: a cancelled context stops the job at its next check.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b := New(ctx, "render", Limits{})
	cancel()
	var err error
	for i := 0; i < CheckEvery && err == nil; i++ {
		err = b.Step()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after %d steps: %v", CheckEvery, err)
	}
	if _, err := b.Reader(strings.NewReader("abc")).Read(make([]byte, 3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("reader: %v", err)
	}
}

func TestReaderBytes(t *testing.T) {
	b := New(nil, "trace", Limits{Bytes: 4})
	_, err := io.ReadAll(b.Reader(strings.NewReader("abcdef")))
	if !errors.Is(err, ErrExceeded) {
		t.Fatalf("%v", err)
	}
}

// TestRatio: a bomb (zeros compress about a thousandfold) trips the
// ratio past the floor; ordinary text does not.
func TestRatio(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(make([]byte, 8<<20))
	zw.Close()
	in := &Counter{R: &z}
	zr, _ := gzip.NewReader(in)
	if _, err := io.ReadAll(Ratio(zr, in, 100, 1<<20, "gzip data")); !errors.Is(err, ErrExceeded) || !strings.Contains(err.Error(), "decompression bomb") {
		t.Fatalf("bomb: %v", err)
	}
	var y bytes.Buffer
	zw = gzip.NewWriter(&y)
	zw.Write([]byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 1000)))
	zw.Close()
	in = &Counter{R: &y}
	zr, _ = gzip.NewReader(in)
	if _, err := io.ReadAll(Ratio(zr, in, 100, 1<<20, "gzip data")); err != nil {
		t.Fatalf("text under the floor: %v", err)
	}
}
