package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachLineStopsOnCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var lines atomic.Int64
	done := make(chan error, 1)
	go func() { done <- eachLineContext(ctx, pr, func(string) error { lines.Add(1); return nil }) }()
	fmt.Fprintln(pw, "first")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("eachLineContext still blocked after the interrupt")
	}
	var got []string
	if err := eachLineContext(context.Background(), strings.NewReader("a\nb\r\nc"), func(l string) error { got = append(got, l); return nil }); err != nil || strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("%v, lines %q", err, got)
	}
}
