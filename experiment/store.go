package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
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
// outputs, then its step.json, written atomically and last.
type Store struct {
	dir string
	// Now gives the times recorded; time.Now by default.
	Now func() time.Time
}

// OpenStore makes dir (and its parents) when missing and returns its store.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Store{dir: dir, Now: time.Now}, nil
}

// Dir is the folder of step s.
func (st *Store) Dir(s Step) string { return filepath.Join(st.dir, s.Name) }

func (st *Store) stepFile(s Step) string { return filepath.Join(st.Dir(s), StepFileName) }

// Read returns the step.json of s; an error wrapping fs.ErrNotExist when
// the step never started.
func (st *Store) Read(s Step) (StepFile, error) {
	var f StepFile
	b, err := os.ReadFile(st.stepFile(s))
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %v", st.stepFile(s), err)
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

// Begin starts step s: it empties the step's folder (outputs of an
// earlier attempt or key go), records the step as incomplete with its
// start time, and returns the folder for the step's outputs.
func (st *Store) Begin(s Step) (string, error) {
	if s.Name == "" || filepath.Base(s.Name) != s.Name || s.Name == "." || s.Name == ".." {
		return "", fmt.Errorf("step name %q is not a folder name", s.Name)
	}
	dir := st.Dir(s)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	f := StepFile{Schema: StepSchema, Step: s.Name, Key: s.Key, Status: StatusIncomplete, Start: st.stamp()}
	return dir, st.write(s, f)
}

// Finish records the end of step s with status, after its outputs are
// written; for a failed or incomplete step, cause says why. It keeps the
// start time Begin recorded.
func (st *Store) Finish(s Step, status Status, cause error) error {
	f, err := st.Read(s)
	if err != nil || f.Key != s.Key {
		return fmt.Errorf("step %s: finished without being begun", s.Name)
	}
	f.Status, f.End, f.Error = status, st.stamp(), ""
	if cause != nil && status != StatusComplete {
		f.Error = cause.Error()
	}
	return st.write(s, f)
}

func (st *Store) stamp() string { return st.Now().UTC().Format(time.RFC3339) }

func (st *Store) write(s Step, f StepFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(st.stepFile(s), append(b, '\n'))
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
