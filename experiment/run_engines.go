//go:build unix

package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/servecmp/servecmp/internal/httppolicy"
)

// engines starts the launched engines before the first step that needs
// them and stops each after the last.
type engines struct {
	e     *Experiment
	st    *Store
	o     RunOptions
	todo  []Step
	procs map[string]*Process
	last  map[string]int // side → index in todo of its last step
}

func newEngines(e *Experiment, st *Store, o RunOptions, todo []Step) *engines {
	m := &engines{e: e, st: st, o: o, todo: todo, procs: map[string]*Process{}, last: map[string]int{}}
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
		if l == nil || m.procs[side] != nil {
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
