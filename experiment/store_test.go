package experiment

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRun plays a runner: every step to do is begun, writes its output
// and finishes complete, except that stopAt (when set) is begun and left
// as a crash leaves it. It returns the steps it began.
func fakeRun(t *testing.T, st *Store, plan []Step, stopAt string) []string {
	t.Helper()
	var ran []string
	for _, s := range st.Todo(plan) {
		if _, err := st.Begin(s); err != nil {
			t.Fatal(err)
		}
		ran = append(ran, s.Name)
		if err := st.Write(s, "result.json", []byte(s.Key)); err != nil {
			t.Fatal(err)
		}
		if s.Name == stopAt {
			return ran
		}
		if err := st.Finish(s, StatusComplete, nil); err != nil {
			t.Fatal(err)
		}
	}
	return ran
}

func openStore(t *testing.T) *Store {
	t.Helper()
	st, err := OpenStore(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func TestResumeSkipsDoneSteps(t *testing.T) {
	st := openStore(t)
	plan := Plan(parse(t, planSrc), "wl")
	if got := fakeRun(t, st, plan, ""); len(got) != len(plan) {
		t.Fatalf("first run did %v", got)
	}
	for _, s := range plan {
		if !st.Done(s) {
			t.Errorf("%s not done", s.Name)
		}
	}
	if got := fakeRun(t, st, plan, ""); len(got) != 0 {
		t.Errorf("rerun of the same file did %v", got)
	}
}

func TestChangeInvalidatesDependents(t *testing.T) {
	st := openStore(t)
	fakeRun(t, st, Plan(parse(t, planSrc), "wl"), "")
	plan := Plan(parse(t, strings.Replace(planSrc, "concurrency: 16}", "concurrency: 8}", 1)), "wl")
	got := strings.Join(fakeRun(t, st, plan, ""), " ")
	if want := "run-a-1 run-b-1 run-b-2 run-a-2 run-a-3 run-b-3 report"; got != want {
		t.Errorf("after changing runs.concurrency did %q; want %q", got, want)
	}
	// The check's output is the first run's.
	b, err := os.ReadFile(filepath.Join(st.Dir(plan[0]), "result.json"))
	if err != nil || string(b) != plan[0].Key {
		t.Errorf("check output %q, %v", b, err)
	}
}

func TestInterruptedStepIsRedone(t *testing.T) {
	st := openStore(t)
	plan := Plan(parse(t, planSrc), "wl")
	first := fakeRun(t, st, plan, "run-b-2")
	if first[len(first)-1] != "run-b-2" {
		t.Fatalf("first run did %v", first)
	}
	cut := plan[5] // run-b-2, before run-a-2 (counterbalanced)
	f, err := st.Read(cut)
	if err != nil || f.Status != StatusIncomplete || f.End != "" {
		t.Fatalf("interrupted step.json = %+v, %v", f, err)
	}
	// An output the attempt wrote, and a file the user put there.
	if err := st.Write(cut, "stale.txt", nil); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(st.Dir(cut), "stale.txt")
	notes := filepath.Join(st.Dir(cut), "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(fakeRun(t, st, plan, ""), " ")
	if want := "run-b-2 run-a-2 run-a-3 run-b-3 report"; got != want {
		t.Errorf("rerun did %q; want %q", got, want)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the redone step kept an old output: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("the redone step touched a file it did not write: %q, %v", b, err)
	}
}

func TestFailedStepIsRedone(t *testing.T) {
	st := openStore(t)
	plan := Plan(parse(t, planSrc), "wl")
	fakeRun(t, st, plan, "")
	if _, err := st.Begin(plan[1]); err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(plan[1], StatusFailed, errors.New("engine a exited")); err != nil {
		t.Fatal(err)
	}
	if f, _ := st.Read(plan[1]); f.Status != StatusFailed || f.Error != "engine a exited" {
		t.Errorf("step.json = %+v", f)
	}
	if got := strings.Join(names(st.Todo(plan)), " "); got != "sweep-a report" {
		t.Errorf("todo %q", got)
	}
}

// TestRedoneStepRedoesDependents: a step redone with an unchanged key
// (its folder was lost) still makes the report be redone.
func TestRedoneStepRedoesDependents(t *testing.T) {
	st := openStore(t)
	plan := Plan(parse(t, planSrc), "wl")
	fakeRun(t, st, plan, "")
	if err := os.RemoveAll(st.Dir(plan[3])); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(st.Todo(plan)), " "); got != "run-a-1 report" {
		t.Errorf("todo %q", got)
	}
}

func TestStepFile(t *testing.T) {
	st := openStore(t)
	clock := time.Date(2026, 12, 1, 20, 0, 0, 0, time.FixedZone("CET", 3600))
	st.Now = func() time.Time { clock = clock.Add(90 * time.Second); return clock }
	s := Step{Name: "check", Kind: KindCheck, Key: strings.Repeat("ab", 32)}
	if err := st.Finish(s, StatusComplete, nil); err == nil {
		t.Error("Finish without Begin accepted")
	}
	if _, err := st.Begin(s); err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(s, StatusComplete, errors.New("ignored")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(st.Dir(s), StepFileName))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"schema": StepSchema, "step": "check", "key": s.Key, "status": "complete",
		"start": "2026-12-01T19:01:30Z", "end": "2026-12-01T19:03:00Z"}
	if len(got) != len(want) {
		t.Errorf("step.json %s", b)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v; want %v", k, got[k], v)
		}
	}
	if !st.Done(s) {
		t.Error("not done")
	}
	other := s
	other.Key = strings.Repeat("cd", 32)
	if st.Done(other) {
		t.Error("done under another key")
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := st.Begin(Step{Name: bad}); err == nil {
			t.Errorf("Begin(%q) accepted", bad)
		}
	}
}

func TestHashFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := HashFile(p)
	if err != nil || h != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashFile = %s, %v", h, err)
	}
	if _, err := HashFile(p + ".missing"); err == nil {
		t.Error("missing file hashed")
	}
}

// TestRunRefusesOutputOverInput: an experiment file kept in the output
// directory under an output's name is refused before any step, and left
// as it was.
func TestRunRefusesOutputOverInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	src := "a: {url: \"http://127.0.0.1:1\", model: m}\nb: {url: \"http://127.0.0.1:2\", model: m}\nworkload: {random: {num: 2, input_len: 4, output_len: 2}}\nruns: {count: 1, concurrency: 1}\n"
	exp := filepath.Join(dir, "check", "check.json")
	os.MkdirAll(filepath.Dir(exp), 0o755)
	os.WriteFile(exp, []byte(src), 0o644)
	e, err := Parse(exp, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), e, dir, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "is also an input") {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(exp); string(b) != src {
		t.Fatalf("the input changed: %q", b)
	}
}

// FuzzRunFiles: any bytes as a run directory's manifest are read, or
// refused with one line; an accepted one names only entries inside the
// directory.
func FuzzRunFiles(f *testing.F) {
	f.Add([]byte(`{"schema":"servecmp.run-files/1","wrote":["check/","check/step.json"],"owns":["profile-a/traces/"]}`))
	f.Add([]byte(`{"schema":"servecmp.run-files/1","wrote":["../x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, FilesName), data, 0o644)
		st, err := OpenStore(dir)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		defer st.Close()
		for _, e := range append(append([]string{}, st.files.Wrote...), st.files.Owns...) {
			if !localEntry(e) {
				t.Fatalf("accepted entry %q", e)
			}
		}
		if err := st.Remove("check"); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
