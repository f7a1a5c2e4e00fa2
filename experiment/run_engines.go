//go:build unix

package experiment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/redact"
)

// engines starts the launched engines before the first step that needs
// them and stops each after the last.
type engines struct {
	e     *Experiment
	st    *Store
	o     RunOptions
	todo  []Step
	procs map[string]*Process
	last  map[string]int  // side → index in todo of its last step
	up    map[string]bool // sides without launch found answering
}

func newEngines(e *Experiment, st *Store, o RunOptions, todo []Step) *engines {
	m := &engines{e: e, st: st, o: o, todo: todo, procs: map[string]*Process{}, last: map[string]int{}, up: map[string]bool{}}
	for i, s := range todo {
		for _, side := range sidesOf(s) {
			m.last[side] = i
		}
	}
	return m
}

// sidesOf lists the engines a step sends requests to.
func sidesOf(s Step) []string {
	switch s.Kind {
	case KindCheck:
		return []string{"a", "b"}
	case KindSweep, KindRun, KindProfile:
		return []string{s.Side}
	}
	return nil
}

// before starts the launched engines step s needs that are not running.
func (m *engines) before(ctx context.Context, s Step) error {
	for _, side := range sidesOf(s) {
		l := m.e.Side(side).Launch
		if l == nil {
			if err := m.reachable(ctx, side); err != nil {
				return err
			}
			continue
		}
		if m.procs[side] != nil {
			continue
		}
		if probe(ctx, httppolicy.Client(httppolicy.Options{Timeout: time.Second}), l.ReadyURL, m.o.APIKey) == nil {
			return fmt.Errorf("engine %s: something already answers at %s before the launch (an engine left running?): stop it, or drop launch to measure it as it is", side, l.ReadyURL)
		}
		logs, err := m.st.Out().Sub(LogsDir)
		if err != nil {
			return fmt.Errorf("engine %s: %v", side, err)
		}
		fmt.Fprintf(m.o.Stderr, "servecmp run: starting engine %s: %s (logs in %s)\n", side, l.CommandLine(), logs.Path())
		p, err := StartReady(ctx, *l, LaunchOptions{Name: side, Logs: logs, Dir: m.e.Dir, Self: m.o.Self, Poll: m.o.Poll, APIKey: m.o.APIKey})
		if err != nil {
			return err
		}
		m.procs[side] = p
	}
	return nil
}

// reachAll checks, before the first step, that every engine servecmp
// does not launch and some step needs answers: an engine that is down is
// named before the other side's sweep and runs take their minutes.
func (m *engines) reachAll(ctx context.Context) error {
	for _, side := range []string{"a", "b"} {
		if _, needed := m.last[side]; !needed || m.e.Side(side).Launch != nil {
			continue
		}
		if err := m.reachable(ctx, side); err != nil {
			return err
		}
	}
	return nil
}

// reachable checks, once per side, that an engine servecmp does not
// launch answers at all (any HTTP status will do) before a step sends it
// requests: a refused connection is the cause to report, not the failed
// check or run it would lead to.
func (m *engines) reachable(ctx context.Context, side string) error {
	if m.up[side] {
		return nil
	}
	url := strings.TrimRight(m.e.Side(side).URL, "/") + DefaultReadyPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("engine %s: %v", side, err)
	}
	resp, err := httppolicy.Client(httppolicy.Options{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("engine %s: %w", side, ErrInterrupted)
		}
		return fmt.Errorf("engine %s at %s is unreachable (%s): start it first, or let run start it (%s.launch in the experiment file)", side,
			redact.URL(m.e.Side(side).URL), reachError(err), side)
	}
	httppolicy.Drain(resp.Body, 1<<16)
	resp.Body.Close()
	m.up[side] = true
	return nil
}

// reachError is the cause of a failed connection in a few words
// ("connection refused", "no such host"), or the error itself.
func reachError(err error) string {
	for _, cause := range []string{"connection refused", "no such host", "i/o timeout", "network is unreachable", "no route to host", "connection reset by peer"} {
		if strings.Contains(err.Error(), cause) {
			return cause
		}
	}
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return redact.Text(ue.Err.Error())
	}
	return redact.Text(err.Error())
}

// after stops the engines whose last step was todo[i].
func (m *engines) after(i int) {
	for side, last := range m.last {
		if last == i {
			m.stop(side)
		}
	}
}

func (m *engines) stop(side string) {
	p := m.procs[side]
	if p == nil {
		return
	}
	if err := p.Stop(); err != nil {
		fmt.Fprintf(m.o.Stderr, "servecmp run: warning: %v\n", err)
	} else {
		fmt.Fprintf(m.o.Stderr, "servecmp run: stopped engine %s\n", side)
	}
	delete(m.procs, side)
}

// stopAll stops every engine still running.
func (m *engines) stopAll() {
	for _, side := range []string{"a", "b"} {
		m.stop(side)
	}
}
