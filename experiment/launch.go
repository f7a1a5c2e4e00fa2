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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/internal/proctree"
	"github.com/servecmp/servecmp/internal/redact"
)

// LaunchOptions says where and how an engine is launched.
type LaunchOptions struct {
	// Name labels the engine ("a", "b"): messages say "engine NAME" and
	// the logs are engine-NAME.stdout and engine-NAME.stderr in Logs (a
	// folder of the run's output directory), else in LogDir.
	Name   string
	Logs   *atomicfile.Dir
	LogDir string
	Dir    string // working directory; "" = the current one
	// Self, when set, is run in place of a program named "servecmp", so
	// that `launch: "servecmp serve-sim ..."` starts this very binary
	// rather than whichever one PATH finds.
	Self string
	// Poll is the gap between readiness probes; 200ms when 0.
	Poll time.Duration
	// APIKey is sent with the readiness probes (an engine started with an
	// API key answers /v1/models only with it) and scrubbed from the
	// logs.
	APIKey string
}

// Process is an engine started by Start. Its methods are safe for
// concurrent use.
type Process struct {
	spec   Launch
	opt    LaunchOptions
	cmd    *exec.Cmd
	tree   *proctree.Tree
	exited chan struct{} // closed once the command has been waited for
	logs   []io.Closer
	errLog string // stderr log path
	errOff int64  // where this launch's stderr starts in it

	stopOnce sync.Once
	stopErr  error
}

// Start runs l's command (no shell) as a process tree of its own
// (internal/proctree: its own process group, a parent-death signal on
// Linux, every descendant marked), appending its stdout and stderr to the
// log files with secrets scrubbed, and returns once it has started;
// WaitReady then waits for it to serve. When ctx ends, the process is
// stopped as by Stop.
func Start(ctx context.Context, l Launch, o LaunchOptions) (*Process, error) {
	if len(l.Command) == 0 {
		return nil, fmt.Errorf("engine %s: launch: no command", o.Name)
	}
	p := &Process{spec: l, opt: o, exited: make(chan struct{})}
	if p.opt.Logs == nil {
		d, err := atomicfile.OpenDir(o.LogDir)
		if err != nil {
			return nil, fmt.Errorf("engine %s: %v", o.Name, err)
		}
		defer d.Close() // the log files stay open
		p.opt.Logs = d
	}
	out, err := p.openLog("stdout")
	if err != nil {
		return nil, err
	}
	errf, err := p.openLog("stderr")
	if err != nil {
		p.closeLogs()
		return nil, err
	}
	p.errLog = errf.f.Name()
	if st, err := errf.f.Stat(); err == nil {
		p.errOff = st.Size()
	}
	prog := l.Command[0]
	if prog == "servecmp" && o.Self != "" {
		prog = o.Self
	}
	p.cmd = exec.Command(prog, l.Command[1:]...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = o.Dir, out, errf
	// The logs are written through pipes: a member of the tree that keeps
	// them open after the program ended does not hold Wait up for long.
	p.cmd.WaitDelay = 5 * time.Second
	p.tree = proctree.Prepare(p.cmd)
	if err := p.cmd.Start(); err != nil {
		p.closeLogs()
		return nil, fmt.Errorf("engine %s: launch %s: %v", o.Name, prog, err)
	}
	p.tree.Started(p.cmd)
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

// openLog opens engine-NAME.KIND in the log folder for appending (inside
// it: a planted link cannot lead it out) and writes a header naming the
// launch. What the engine writes passes a line scrubber (an engine that
// prints its arguments prints its --api-key).
func (p *Process) openLog(kind string) (*scrubLog, error) {
	f, err := p.opt.Logs.OpenAppend("engine-" + p.opt.Name + "." + kind)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %v", p.opt.Name, err)
	}
	fmt.Fprintf(f, "=== servecmp: launch at %s: %s\n", time.Now().UTC().Format(time.RFC3339), p.spec.CommandLine())
	l := &scrubLog{f: f, key: p.opt.APIKey}
	p.logs = append(p.logs, l)
	return l, nil
}

func (p *Process) closeLogs() {
	for _, f := range p.logs {
		_ = f.Close()
	}
}

// scrubLog writes an engine's output to its log a line at a time, each
// line scrubbed of secrets (redact.Text with the API key); a line longer
// than maxLogLine is written in pieces.
type scrubLog struct {
	mu      sync.Mutex
	f       *os.File
	key     string
	partial []byte
}

const maxLogLine = 64 << 10

func (l *scrubLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, b...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 && len(l.partial) < maxLogLine {
			return len(b), nil
		}
		if i < 0 {
			i = len(l.partial) - 1
		}
		if _, err := l.f.WriteString(redact.Text(string(l.partial[:i+1]), l.key)); err != nil {
			return len(b), err
		}
		l.partial = l.partial[i+1:]
	}
}

// Close writes what is left and closes the file.
func (l *scrubLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		_, _ = l.f.WriteString(redact.Text(string(l.partial), l.key))
		l.partial = nil
	}
	return l.f.Close()
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
		err := probe(ctx, client, p.spec.ReadyURL, p.opt.APIKey)
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

// probe GETs url once, with the API key when there is one; nil on a 2xx
// answer. Its error is scrubbed of the key and URL credentials.
func probe(ctx context.Context, client *http.Client, url, apiKey string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return errors.New(redact.Text(err.Error(), apiKey))
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return errors.New(redact.Text(err.Error(), apiKey))
	}
	httppolicy.Drain(resp.Body, 1<<16)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET %s: %s", redact.URL(url), resp.Status)
	}
	return nil
}

// stderrTail is "; stderr: LINE | LINE | LINE" with the last lines this
// launch wrote to stderr, or "" when it wrote none.
func (p *Process) stderrTail() string {
	f, err := infile.Open(p.errLog)
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
	p.stopOnce.Do(func() {
		p.stopErr = p.stop()
		p.tree.Done()
	})
	return p.stopErr
}

func (p *Process) stop() error {
	if err := p.tree.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("engine %s: stop: %v", p.opt.Name, err)
	}
	grace := time.NewTimer(p.spec.Grace)
	defer grace.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-grace.C:
			if err := p.tree.Signal(syscall.SIGKILL); err != nil {
				return fmt.Errorf("engine %s: stop: %v", p.opt.Name, err)
			}
			<-p.exited
			return p.killStragglers()
		case <-tick.C:
			if isClosed(p.exited) && !p.tree.Alive() {
				return nil // the leader was waited for; the group and its strays are gone
			}
		}
	}
}

// killStragglers waits briefly for the members SIGKILL reached to go,
// signalling again those that appeared meanwhile (a fork racing the
// kill).
func (p *Process) killStragglers() error {
	for range 50 {
		if !p.tree.Alive() {
			return nil
		}
		_ = p.tree.Signal(syscall.SIGKILL)
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("engine %s: stop: processes of the engine survive SIGKILL", p.opt.Name)
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
