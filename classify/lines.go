package classify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/servecmp/servecmp/rules"
)

// WriteNames classifies names by name alone and writes one line each to
// w, "region<TAB>rule-id<TAB>name", with "-" as the rule id of a name
// that no rule matches. With nvtx the names are NVTX, annotation or
// python-frame texts matched against the nvtx rules.
func WriteNames(w io.Writer, set *rules.Set, nvtx bool, names []string) error {
	bw := bufio.NewWriter(w)
	for _, n := range names {
		writeName(bw, set, nvtx, n)
	}
	return bw.Flush()
}

// WriteLines is WriteNames over the non-empty lines of r, their line
// endings removed, as they are read; it stops when ctx ends. What was
// classified before a read error is written all the same.
func WriteLines(ctx context.Context, w io.Writer, set *rules.Set, nvtx bool, r io.Reader) error {
	bw := bufio.NewWriter(w)
	err := eachLineContext(ctx, r, func(line string) error {
		if line != "" {
			writeName(bw, set, nvtx, line)
		}
		return nil
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the reader may still hold bw: leave it
	}
	ferr := bw.Flush()
	if err != nil {
		return err
	}
	return ferr
}

func writeName(w *bufio.Writer, set *rules.Set, nvtx bool, name string) {
	region, id := set.Lookup(name, nvtx)
	fmt.Fprintf(w, "%s\t%s\t%s\n", region, id, name)
}

// eachLineContext is eachLine that returns ctx's error as soon as ctx is
// cancelled, even while a read is blocked (a terminal or an idle pipe);
// fn is then no longer called, and the reading goroutine ends with the
// process or the next line.
func eachLineContext(ctx context.Context, r io.Reader, fn func(string) error) error {
	if err := ctx.Err(); err != nil {
		return err // a reader that is already at its end must not win the race
	}
	done := make(chan error, 1)
	var stopped atomic.Bool
	go func() {
		done <- eachLine(r, func(line string) error {
			if stopped.Load() {
				return context.Canceled
			}
			return fn(line)
		})
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		stopped.Store(true)
		return ctx.Err()
	}
}

// eachLine calls fn for every line of r without its line ending. Lines may
// be long (demangled CUTLASS names run to kilobytes).
func eachLine(r io.Reader, fn func(string) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
