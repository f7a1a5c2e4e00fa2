package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/servecmp/servecmp/internal/infile"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// Stdout is the output path that means standard output.
const Stdout = "-"

// CheckNew refuses to replace the workload file at path unless force: a
// workload file is frozen once written. Stdout is always accepted.
func CheckNew(path string, force bool) error {
	if path == Stdout || force {
		return nil
	}
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return fmt.Errorf("%s exists; a workload file is frozen once written (use --force to replace it)", path)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return nil
}

// Emit writes reqs to the file path (atomically), or to stdout when path
// is Stdout, and then a one-line summary, the request count, the sha256
// of the bytes written and where they went: to stdout after a file, to
// log when the workload itself went to stdout.
func Emit(path string, stdout, log io.Writer, reqs []Request) error {
	return EmitWithHeader(path, stdout, log, nil, reqs)
}

// EmitWithHeader is Emit with a header line first, when h is not zero
// (see WriteWithHeader).
func EmitWithHeader(path string, stdout, log io.Writer, h *Header, reqs []Request) error {
	if path != Stdout {
		sha, err := WriteFileWithHeader(path, h, reqs)
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		_, err = fmt.Fprintf(stdout, "workload: %d requests  sha256 %s  %s\n", len(reqs), sha, path)
		return err
	}
	var buf bytes.Buffer
	if err := WriteWithHeader(&buf, h, reqs); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(log, "workload: %d requests  sha256 %s  (stdout)\n", len(reqs), hex.EncodeToString(sum[:]))
	return nil
}

// FromJSONLFile imports the JSONL file at path (see FromJSONL).
func FromJSONLFile(path string, opts ImportOptions) ([]Request, ImportStats, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, ImportStats{}, err
	}
	defer f.Close()
	return FromJSONL(path, f, opts)
}

// ShareGPTFile imports the ShareGPT file at path (see ShareGPT).
func ShareGPTFile(path string, opts ShareGPTOptions) ([]Request, ImportStats, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, ImportStats{}, err
	}
	defer f.Close()
	return ShareGPT(path, f, opts)
}

// Report is the import summary, one line each: records read and kept with
// the skipped ones by reason, then the ignored keys when there are any.
func (s ImportStats) Report() []string {
	line := fmt.Sprintf("workload: read %d records, kept %d", s.Read, s.Kept)
	if len(s.Skipped) > 0 {
		var reasons []string
		for r, n := range s.Skipped {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(reasons)
		line += "; skipped: " + strings.Join(reasons, ", ")
	}
	out := []string{line}
	if len(s.IgnoredKeys) > 0 {
		out = append(out, "workload: ignored keys: "+strings.Join(s.IgnoredKeys, ", "))
	}
	return out
}

// why says why no record was kept: the reasons records were skipped,
// most frequent first.
func (s ImportStats) why() string {
	if len(s.Skipped) == 0 {
		return fmt.Sprintf("%d read, none skipped for a reason", s.Read)
	}
	reasons := make([]string, 0, len(s.Skipped))
	for r := range s.Skipped {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if s.Skipped[reasons[i]] != s.Skipped[reasons[j]] {
			return s.Skipped[reasons[i]] > s.Skipped[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", s.Skipped[r], r)
	}
	return fmt.Sprintf("%d read, skipped: %s", s.Read, strings.Join(parts, ", "))
}

// Shortfall is the warning that fewer conversations were usable than
// opts.Num asked for, or "" when there is none.
func (opts ShareGPTOptions) Shortfall(s ImportStats) string {
	if opts.Num > 0 && s.Kept < opts.Num {
		return fmt.Sprintf("asked for %d conversations, only %d usable", opts.Num, s.Kept)
	}
	return ""
}
