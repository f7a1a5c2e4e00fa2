package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckNew(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "wl.jsonl")
	if err := os.WriteFile(existing, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		force bool
		ok    bool
	}{
		{Stdout, false, true}, {filepath.Join(dir, "new.jsonl"), false, true}, {existing, false, false}, {existing, true, true},
	} {
		if err := CheckNew(tc.path, tc.force); (err == nil) != tc.ok {
			t.Errorf("CheckNew(%s, %v) = %v", tc.path, tc.force, err)
		}
	}
}

func TestEmitFileAndStdoutAgree(t *testing.T) {
	l, _ := ParseLength("3")
	reqs, err := Random(RandomSpec{Num: 2, InputLen: l, OutputLen: l, Vocab: 50})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wl.jsonl")
	var stdout, log, fileOut, fileLog bytes.Buffer
	if err := Emit(Stdout, &stdout, &log, reqs); err != nil {
		t.Fatal(err)
	}
	if err := Emit(path, &fileOut, &fileLog, reqs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(stdout.Bytes(), b) || stdout.Len() != len(b) || fileLog.Len() != 0 {
		t.Fatalf("file and stdout differ (%v)", err)
	}
	toFile, toStdout := fileOut.String(), log.String()
	sha := strings.Fields(toFile)[4]
	if !strings.HasPrefix(toFile, "workload: 2 requests  sha256 ") || toFile != "workload: 2 requests  sha256 "+sha+"  "+path+"\n" ||
		toStdout != "workload: 2 requests  sha256 "+sha+"  (stdout)\n" {
		t.Errorf("summaries %q and %q", toFile, toStdout)
	}
}

func TestImportReport(t *testing.T) {
	st := ImportStats{Read: 5, Kept: 2, Skipped: map[string]int{"too long": 2, "no reply": 1}, IgnoredKeys: []string{"meta", "x"}}
	want := []string{"workload: read 5 records, kept 2; skipped: 1 no reply, 2 too long", "workload: ignored keys: meta, x"}
	if got := st.Report(); !slices.Equal(got, want) {
		t.Errorf("Report() = %q, want %q", got, want)
	}
	if got := (ImportStats{Read: 1, Kept: 1}).Report(); !slices.Equal(got, []string{"workload: read 1 records, kept 1"}) {
		t.Errorf("Report() = %q", got)
	}
	if w := (ShareGPTOptions{Num: 3}).Shortfall(st); w != "asked for 3 conversations, only 2 usable" {
		t.Errorf("Shortfall = %q", w)
	}
	if w := (ShareGPTOptions{Num: 2}).Shortfall(st); w != "" {
		t.Errorf("Shortfall = %q", w)
	}
}
