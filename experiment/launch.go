//go:build unix

package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/servecmp/servecmp/internal/httppolicy"
)

// LaunchOptions says where and how an engine is launched.
type LaunchOptions struct {
	// Name labels the engine ("a", "b"): messages say "engine NAME" and
	// the logs are engine-NAME.stdout and engine-NAME.stderr in LogDir.
	Name   string
	LogDir string
	Dir    string // working directory; "" = the current one
	// Self, when set, is run in place of a program named "servecmp", so
	// that `launch: "servecmp serve-sim ..."` starts this very binary
	// rather than whichever one PATH finds.
	Self string
	// Poll is the gap between readiness probes; 200ms when 0.
	Poll time.Duration
}

// Process is an engine started by Start. Its methods are safe for
// concurrent use.
type Process struct {
	spec   Launch
	opt    LaunchOptions
	cmd    *exec.Cmd
	exited chan struct{} // closed once the command has been waited for
	logs   []*os.File
	errLog string // stderr log path
	errOff int64  // where this launch's stderr starts in it

	stopOnce sync.Once
	stopErr  error
}

// Start runs l's command (no shell) in its own process group, appending
// its stdout and stderr to the log files, and returns once it has started;
// WaitReady then waits for it to serve. When ctx ends, the process is
// stopped as by Stop.
func Start(ctx context.Context, l Launch, o LaunchOptions) (*Process, error) {
	if len(l.Command) == 0 {
		return nil, fmt.Errorf("engine %s: launch: no command", o.Name)
	}
	p := &Process{spec: l, opt: o, exited: make(chan struct{})}
	out, err := p.openLog("stdout")
	if err != nil {
		return nil, err
	}
	errf, err := p.openLog("stderr")
	if err != nil {
		p.closeLogs()
		return nil, err
	}
	p.errLog = errf.Name()
	if st, err := errf.Stat(); err == nil {
		p.errOff = st.Size()
	}
	prog := l.Command[0]
	if prog == "servecmp" && o.Self != "" {
		prog = o.Self
	}
	p.cmd = exec.Command(prog, l.Command[1:]...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = o.Dir, out, errf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		p.closeLogs()
		return nil, fmt.Errorf("engine %s: launch %s: %v", o.Name, prog, err)
	}
	go func() {
		_ = p.cmd.Wait()
		p.closeLogs()
		close(p.exited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Stop()
		case <-p.exited:
		}
	}()
	return p, nil
}

// openLog opens engine-NAME.KIND in the log folder for appending and
// writes a header naming the launch.
func (p *Process) openLog(kind string) (*os.File, error) {
	path := filepath.Join(p.opt.LogDir, "engine-"+p.opt.Name+"."+kind)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %v", p.opt.Name, err)
	}
	fmt.Fprintf(f, "=== servecmp: launch at %s: %s\n", time.Now().UTC().Format(time.RFC3339), p.spec.CommandLine())
	p.logs = append(p.logs, f)
	return f, nil
}

func (p *Process) closeLogs() {
	for _, f := range p.logs {
		_ = f.Close()
	}
}

// StartReady is Start then WaitReady; when the engine does not become
// ready it is stopped and the error says why.
func StartReady(ctx context.Context, l Launch, o LaunchOptions) (*Process, error) {
	p, err := Start(ctx, l, o)
	if err != nil {
		return nil, err
	}
	if err := p.WaitReady(ctx); err != nil {
		_ = p.Stop()
		return nil, err
	}
	return p, nil
}

// Pid is the process id of the command (and the id of its group).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the command has ended, for whatever reason.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// WaitReady polls the readiness URL (GET, 2xx) until it answers, the
// command exits, the readiness timeout passes or ctx ends.
func (p *Process) WaitReady(ctx context.Context) error {
	poll := p.opt.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	deadline := time.Now().Add(p.spec.ReadyTimeout)
	client := httppolicy.Client(httppolicy.Options{Timeout: 2 * time.Second})
	last := "no answer yet"
	for {
		err := probe(ctx, client, p.spec.ReadyURL)
		if err == nil {
			return nil
		}
		last = err.Error()
		wait := min(poll, time.Until(deadline))
		select {
		case <-p.exited:
			return fmt.Errorf("engine %s: exited before it was ready (%s)%s", p.opt.Name, p.cmd.ProcessState, p.stderrTail())
		case <-ctx.Done():
			return fmt.Errorf("engine %s: not ready: %w", p.opt.Name, context.Cause(ctx))
		case <-time.After(wait):
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("engine %s: not ready after %s (last probe: %s)%s", p.opt.Name, p.spec.ReadyTimeout, last, p.stderrTail())
		}
	}
}

// probe GETs url once; nil on a 2xx answer.
func probe(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// stderrTail is "; stderr: LINE | LINE | LINE" with the last lines this
// launch wrote to stderr, or "" when it wrote none.
func (p *Process) stderrTail() string {
	f, err := os.Open(p.errLog)
	if err != nil {
		return ""
	}
	defer f.Close()
	const most = 4096
	off := p.errOff
	if st, err := f.Stat(); err == nil && st.Size()-off > most {
		off = st.Size() - most
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, most))
	var lines []string
	for l := range bytes.SplitSeq(b, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" && !strings.HasPrefix(s, "=== servecmp: launch at ") {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "; stderr: " + strings.Join(lines[max(0, len(lines)-3):], " | ")
}

// Stop ends the engine: SIGTERM to its whole process group, then, once
// the grace period has passed with a member still alive, SIGKILL to the
// group. It returns when the command has been waited for. Stop is
// idempotent: later calls return the first call's result.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *Process) stop() error {
	pgid := p.Pid()
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("engine %s: stop: %v", p.opt.Name, err)
	}
	grace := time.NewTimer(p.spec.Grace)
	defer grace.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-grace.C:
			if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("engine %s: stop: %v", p.opt.Name, err)
			}
			<-p.exited
			return nil
		case <-tick.C:
			if isClosed(p.exited) && syscall.Kill(-pgid, 0) != nil {
				return nil // the leader was waited for and the group is empty
			}
		}
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
