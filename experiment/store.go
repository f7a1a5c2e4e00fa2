package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/internal/redact"
)

// Status is the state a step.json records.
type Status string

// Step statuses. A step is incomplete from Begin until Finish, so a step
// cut short by a crash or an interrupt stays incomplete; failed means the
// step ran and could not produce its result (an outcome such as a check
// that found mismatches is a complete step).
const (
	StatusComplete   Status = "complete"
	StatusIncomplete Status = "incomplete"
	StatusFailed     Status = "failed"
)

// StepFileName is the name of the record in each step's folder.
const StepFileName = "step.json"

// StepSchema names the step.json format.
const StepSchema = "servecmp.step/1"

// StepFile is the content of a step.json. Times are RFC 3339, UTC.
type StepFile struct {
	Schema string `json:"schema"`
	Step   string `json:"step"`
	Key    string `json:"key"`
	Status Status `json:"status"`
	Start  string `json:"start"`
	End    string `json:"end,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Store keeps one folder per step under an output directory: the step's
// outputs, then its step.json, written atomically and last. It touches
// only what a run wrote there: every file and folder a run creates is
// listed in the directory's manifest (FilesName) before it is made, and
// a step begun again removes its own listed outputs only; anything else
// in the directory (a note, the experiment file itself) stays. Every name
// is resolved inside the directory (atomicfile.Dir): a link planted in it
// cannot lead a write out of it. The store holds the directory's lock
// from OpenStore to Close: a second run on the same directory is refused.
type Store struct {
	dir    string
	d      *atomicfile.Dir
	files  *runFiles
	unlock func()
	// Now gives the times recorded; time.Now by default.
	Now func() time.Time
}

// Names of the store's own files in the output directory.
const (
	// FilesName is the manifest: the entries runs wrote in the directory.
	FilesName = ".servecmp-run.json"
	// LockName is the lock a run holds on the directory.
	LockName = ".servecmp-run.lock"
	// FilesSchema names the manifest's format.
	FilesSchema = "servecmp.run-files/1"
	// maxStepFile bounds a step.json and the manifest when read (bytes).
	maxStepFile = 16 << 20
)

// OpenStore opens dir as a run's output directory: made (with its
// parents) when missing; an existing directory must be empty or be one a
// run wrote (it holds FilesName). It takes the directory's lock. inputs
// are the files the run reads (the experiment file, the workload, the key
// file): no output may replace one. Close the store when the run ends.
func OpenStore(dir string, inputs ...string) (*Store, error) {
	if err := CheckOutDir(dir); err != nil {
		return nil, err
	}
	d, err := atomicfile.OpenDir(dir, inputs...)
	if err != nil {
		return nil, err
	}
	st := &Store{dir: dir, d: d, Now: time.Now}
	if st.unlock, err = d.Untracked().Lock(LockName); err != nil {
		d.Close()
		return nil, err
	}
	if st.files, err = loadFiles(d); err != nil {
		st.Close()
		return nil, err
	}
	d.OnCreate(func(rel string, isDir bool) error { return st.files.add(d, rel, isDir) })
	return st, nil
}

// CheckOutDir refuses, before anything is done, an output directory a run
// cannot use: a path that is not a directory, or an existing, non-empty
// directory that no run wrote (a run would mix its steps with what the
// directory holds).
func CheckOutDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || len(ents) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	own := 0
	for _, e := range ents {
		switch e.Name() {
		case FilesName:
			return nil
		case LockName:
			own++ // a run that stopped before writing anything
		}
	}
	if own == len(ents) {
		return nil
	}
	return fmt.Errorf("%s is not empty and no servecmp run wrote it (no %s in it): choose a new or empty directory, or the directory of an earlier run of this experiment", dir, FilesName)
}

// Close releases the lock and the directory.
func (st *Store) Close() {
	if st.unlock != nil {
		st.unlock()
		st.unlock = nil
	}
	st.d.Close()
}

// Out is the output directory, for the files a run writes outside the
// steps (report, workload, logs).
func (st *Store) Out() *atomicfile.Dir { return st.d }

// Dir is the folder of step s.
func (st *Store) Dir(s Step) string { return filepath.Join(st.dir, s.Name) }

func stepFile(s Step) string { return s.Name + "/" + StepFileName }

// Read returns the step.json of s; an error wrapping fs.ErrNotExist when
// the step never started. Anything but a regular file under the name (a
// FIFO) is an error, never a wait.
func (st *Store) Read(s Step) (StepFile, error) {
	var f StepFile
	b, err := st.d.ReadFile(stepFile(s), maxStepFile)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %v", st.d.Join(stepFile(s)), err)
	}
	return f, nil
}

// Done reports whether s completed with its current key.
func (st *Store) Done(s Step) bool {
	f, err := st.Read(s)
	return err == nil && f.Key == s.Key && f.Status == StatusComplete
}

// Todo lists, in plan order, the steps to run: those not done, and those
// that build on a step to run (so that a redone step never leaves a
// dependent built on its old outputs).
func (st *Store) Todo(plan []Step) []Step {
	redo := map[string]bool{}
	var out []Step
	for _, s := range plan {
		if !st.Done(s) || slices.ContainsFunc(s.Deps, func(d string) bool { return redo[d] }) {
			redo[s.Name] = true
			out = append(out, s)
		}
	}
	return out
}

// Begin starts step s: it removes the outputs an earlier attempt wrote in
// the step's folder (those the manifest lists; anything else stays),
// records the step as incomplete with its start time, and returns the
// folder for the step's outputs.
func (st *Store) Begin(s Step) (string, error) {
	if s.Name == "" || filepath.Base(s.Name) != s.Name || s.Name == "." || s.Name == ".." || s.Name == LogsDir || s.Name == PlotsDir {
		return "", fmt.Errorf("step name %q is not a folder name", s.Name)
	}
	if err := st.Remove(s.Name); err != nil {
		return "", err
	}
	if _, err := st.d.Sub(s.Name); err != nil {
		return "", err
	}
	f := StepFile{Schema: StepSchema, Step: s.Name, Key: s.Key, Status: StatusIncomplete, Start: st.stamp()}
	return st.Dir(s), st.write(s, f)
}

// Remove removes the entry rel (a file, or a folder with what runs wrote
// in it) when a run wrote it, and only what a run wrote: a folder that
// still holds other files stays, with them.
func (st *Store) Remove(rel string) error {
	return st.files.remove(st.d, rel)
}

// Own marks the folder rel, made by the run, as wholly the run's: what
// others write in it on the run's behalf (an engine's traces) goes with
// it.
func (st *Store) Own(rel string) error { return st.files.own(st.d, rel) }

// Write writes name in step s's folder.
func (st *Store) Write(s Step, name string, data []byte) error {
	return st.d.Write(s.Name+"/"+name, data)
}

// WriteFunc writes name in step s's folder with fill.
func (st *Store) WriteFunc(s Step, name string, fill func(io.Writer) error) error {
	return st.d.WriteFunc(s.Name+"/"+name, fill)
}

// Stream is a stream of name in step s's folder (records).
func (st *Store) Stream(s Step, name string) *atomicfile.Stream {
	return st.d.Stream(s.Name + "/" + name)
}

// Finish records the end of step s with status, after its outputs are
// written; for a failed or incomplete step, cause says why (scrubbed of
// secrets). It keeps the start time Begin recorded.
func (st *Store) Finish(s Step, status Status, cause error) error {
	f, err := st.Read(s)
	if err != nil || f.Key != s.Key {
		return fmt.Errorf("step %s: finished without being begun", s.Name)
	}
	f.Status, f.End, f.Error = status, st.stamp(), ""
	if cause != nil && status != StatusComplete {
		f.Error = redact.Text(cause.Error())
	}
	return st.write(s, f)
}

func (st *Store) stamp() string { return st.Now().UTC().Format(time.RFC3339) }

func (st *Store) write(s Step, f StepFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return st.d.Write(stepFile(s), append(b, '\n'))
}

// HashFile is the hex SHA-256 of a file's content (a workload's hash).
func HashFile(path string) (string, error) {
	f, err := infile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
