package emit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/profile"
)

func TestWarn(t *testing.T) {
	var b bytes.Buffer
	Warn(&b, "one", "http://user:secret@host/x")
	got := b.String()
	if !strings.HasPrefix(got, "servecmp: warning: one\nservecmp: warning: ") || strings.Contains(got, "secret") {
		t.Errorf("Warn wrote %q", got)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	switch {
	case errors.Is(err, ErrNotComparable):
		return 3
	case errors.Is(err, ErrTooManyFailures):
		return 4
	}
	return 1
}

func TestBenchmarkOutcome(t *testing.T) {
	ok := result.Summary{RequestsOK: 9, RequestsFailed: 1, FailedByClass: map[string]int{"http_500": 1}}
	for _, tc := range []struct {
		name      string
		res       result.Result
		maxFailed float64
		code      int
		want      string
	}{
		{"ok", result.Result{Summary: ok}, 0.2, 0, ""},
		{"share", result.Result{Summary: ok}, 0.05, 4, "10.0% of the requests failed"},
		{"none", result.Result{Summary: result.Summary{RequestsFailed: 2}}, 1, 4, "no request succeeded (2 failed"},
		{"incomplete", result.Result{Summary: ok, Incomplete: true}, 1, 1, "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, log bytes.Buffer
			err := Benchmark(&out, &log, "", &tc.res, tc.maxFailed)
			if exitCode(err) != tc.code || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v (exit %d); want exit %d mentioning %q", err, exitCode(err), tc.code, tc.want)
			}
			if out.Len() == 0 {
				t.Error("no text summary on stdout")
			}
		})
	}
}

func TestResultFiles(t *testing.T) {
	res := &result.Result{Schema: result.Schema, Summary: result.Summary{RequestsOK: 1}, Warnings: []string{"w1"}}
	var out, log bytes.Buffer
	if err := Benchmark(&out, &log, "-", res, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "{") || !strings.Contains(log.String(), "servecmp: warning: w1") {
		t.Errorf("--out -: stdout %q, stderr %q; want the JSON, then the text and warnings on stderr", out.String(), log.String())
	}
	path := filepath.Join(t.TempDir(), "p.json")
	pr := &profile.Result{Result: &result.Result{Summary: result.Summary{RequestsFailed: 3}}, Profile: &profile.Block{API: "vllm"}}
	out.Reset()
	err := Profile(&out, &log, path, pr)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "no request succeeded") {
		t.Errorf("profile with no success: %v (exit %d), want exit 1", err, exitCode(err))
	}
	if b, rerr := os.ReadFile(path); rerr != nil || !strings.Contains(string(b), `"profile"`) {
		t.Errorf("profile result file: %v %q", rerr, b)
	}
	err = Profile(&out, &log, filepath.Join(t.TempDir(), "none", "p.json"), pr)
	if err == nil || !strings.HasPrefix(err.Error(), "writing ") {
		t.Errorf("unwritable result file: %v, want a writing error first", err)
	}
}

func TestFilesWrite(t *testing.T) {
	dir := t.TempDir()
	rep := &compare.Report{Schema: compare.Schema, Comparable: true}
	var wrote []string
	f := Files{XLSX: filepath.Join(dir, "r.xlsx"), HTML: filepath.Join(dir, "r.html"), Plots: filepath.Join(dir, "plots"),
		Wrote: func(p string) { wrote = append(wrote, p) }}
	warnings, err := f.Write(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 2 || wrote[0] != f.XLSX || wrote[1] != f.HTML {
		t.Errorf("wrote %v, want the workbook and the page", wrote)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "no plot written to "+f.Plots) {
		t.Errorf("warnings %q, want the empty plot directory's", warnings)
	}
	if st, err := os.Stat(f.Plots); err != nil || !st.IsDir() {
		t.Errorf("plot directory not made: %v", err)
	}
	bad := Files{XLSX: filepath.Join(dir, "none", "r.xlsx")}
	if _, err := bad.Write(rep); err == nil || strings.Contains(err.Error(), "--xlsx") {
		t.Errorf("without Flags: %v, want an error not naming the flag", err)
	}
	bad.Flags = true
	if _, err := bad.Write(rep); err == nil || !strings.HasPrefix(err.Error(), "--xlsx "+bad.XLSX+": ") {
		t.Errorf("with Flags: %v, want an error naming --xlsx and the file", err)
	}
}

func TestNotComparable(t *testing.T) {
	if err := NotComparable(&compare.Report{Comparable: true}); err != nil {
		t.Errorf("comparable: %v", err)
	}
	err := NotComparable(&compare.Report{NotComparable: []string{"model", "workload"}})
	if exitCode(err) != 3 || !strings.Contains(err.Error(), "model, workload differ(s)") {
		t.Errorf("not comparable: %v (exit %d)", err, exitCode(err))
	}
}

func TestCheck(t *testing.T) {
	rep := &checkreport.Report{}
	path := filepath.Join(t.TempDir(), "check.json")
	var out, log bytes.Buffer
	if err := CheckReport(&out, &log, path, true, rep); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(file, out.Bytes()) || log.String() != "check: wrote "+path+"\n" {
		t.Errorf("json: file %q (%v), stdout %q, stderr %q", file, err, out.String(), log.String())
	}
	out.Reset()
	if err := CheckReport(&out, &log, "", false, rep); err != nil || out.Len() == 0 || bytes.HasPrefix(out.Bytes(), []byte("{")) {
		t.Errorf("text: %v, stdout %q", err, out.String())
	}
}
