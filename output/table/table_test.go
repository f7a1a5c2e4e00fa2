package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() []*Table {
	t := &Table{Name: "regions", Title: "Regions", Columns: []Column{
		{Name: "region"}, {Name: "count", Unit: Count}, {Name: "busy", Unit: NS}, {Name: "share", Unit: Share},
	}}
	t.Add("attention", int64(3), int64(1_500_000), 0.25)
	t.Add("ffn", int64(12), int64(250), nil)
	t.Notes = []string{"shares are of the window"}
	u := &Table{Name: "w", Title: "Work", Columns: []Column{{Name: "rank", Max: 4}, {Name: "per_req", Unit: NSPerReq}}}
	u.Add("0", math.NaN())
	u.Add("abcdefgh", 2.5e6)
	return []*Table{t, u}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := `Regions
region     count  busy ms  share %
attention      3    1.500     25.0
ffn           12    0.000        -
note: shares are of the window

Work
rank  per_req ms/req
0                  -
abc…           2.500
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestCSV: the long table has one line per non-key cell, with the
// table, row number, row key, column header, unit and raw value.
func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := `table,row,key,column,unit,value,text
regions,1,attention,count,,3,
regions,1,attention,busy_ns,ns,1500000,
regions,1,attention,share,share,0.25,
regions,2,ffn,count,,12,
regions,2,ffn,busy_ns,ns,250,
regions,2,ffn,share,share,,
w,1,0,per_req_ns_per_req,ns/req,,
w,2,abcdefgh,per_req_ns_per_req,ns/req,2500000,
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 9 {
		t.Errorf("long CSV does not read back as one table: %d rows, %v", len(rows), err)
	}
}

// TestTidyCSV: one table per file, the units in the headers, no comment
// or blank lines; WriteCSVDir names each file after its table.
func TestTidyCSV(t *testing.T) {
	var b bytes.Buffer
	if err := TidyCSV(&b, sample()[0]); err != nil {
		t.Fatal(err)
	}
	if want := "region,count,busy_ns,share\nattention,3,1500000,0.25\nffn,12,250,\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	dir := t.TempDir()
	ts := append(sample(), sample()[1])
	paths, err := WriteCSVDir(dir, ts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"regions.csv", "w.csv", "w_2.csv"}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("file %d is %s, want %s", i, p, want[i])
		}
		data, _ := os.ReadFile(p)
		if rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll(); err != nil || len(rows) != 3 {
			t.Errorf("%s: %d rows, %v", p, len(rows), err)
		}
	}
	if len(paths) != 3 {
		t.Errorf("wrote %v", paths)
	}
	if _, err := WriteCSVDir(filepath.Join(paths[0], "under-a-file"), ts); err == nil {
		t.Error("WriteCSVDir under a file succeeded")
	}
	// A name planted as a link out of the directory is replaced, never
	// followed: the file it points to stays.
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	planted := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(planted, "regions.csv")); err != nil {
		t.Skip(err)
	}
	if _, err := WriteCSVDir(planted, ts); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("--csv-dir followed a planted link: victim %q", b)
	}
}

// TestHeaders: one spelling per column in every encoder; a name that
// carries its unit is not suffixed again.
func TestHeaders(t *testing.T) {
	tests := []struct {
		c             Column
		text, md, csv string
	}{
		{Column{Name: "ttft_ms_p50", Unit: "ms"}, "ttft_ms_p50", "ttft_ms_p50", "ttft_ms_p50"},
		{Column{Name: "busy", Unit: NS}, "busy ms", "busy (ms)", "busy_ns"},
		{Column{Name: "busy_share", Unit: Share}, "busy %", "busy (%)", "busy_share"},
		{Column{Name: "share", Unit: Share}, "share %", "share (%)", "share"},
		{Column{Name: "busy_per_output_token", Unit: NSPerTok}, "busy_per_output_token ms", "busy_per_output_token (ms)", "busy_per_output_token_ns"},
		{Column{Name: "busy_per_work_ns_a", Unit: NSPerTok}, "busy_per_work_a ms", "busy_per_work_a (ms)", "busy_per_work_ns_a"},
		{Column{Name: "delta", Unit: "%"}, "delta %", "delta (%)", "delta_pct"},
		{Column{Name: "output_throughput", Unit: "tok/s"}, "output_throughput tok/s", "output_throughput (tok/s)", "output_throughput"},
		{Column{Name: "sum", Unit: NSPerTok}, "sum ms/tok", "sum (ms/tok)", "sum_ns_per_token"},
		{Column{Name: "wait", Unit: "s"}, "wait s", "wait (s)", "wait_s"},
	}
	for _, tc := range tests {
		if got := textHeader(tc.c); got != tc.text {
			t.Errorf("textHeader(%v) = %q, want %q", tc.c, got, tc.text)
		}
		if got := mdHeader(tc.c); got != tc.md {
			t.Errorf("mdHeader(%v) = %q, want %q", tc.c, got, tc.md)
		}
		if got := CSVHeader(tc.c); got != tc.csv {
			t.Errorf("CSVHeader(%v) = %q, want %q", tc.c, got, tc.csv)
		}
		// One name: the text head's name is the CSV (and JSON) name less
		// the part that spells its unit.
		if tb, cb := strings.Fields(textHeader(tc.c))[0], withoutUnit(CSVHeader(tc.c)); tb != cb && tb != CSVHeader(tc.c) {
			t.Errorf("%v: text names it %q, CSV %q", tc.c, tb, CSVHeader(tc.c))
		}
	}
}

// withoutUnit drops the parts of a CSV name that spell a unit.
func withoutUnit(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, "_ns_per_token"), "_ns_per_req")
	var out []string
	for i, p := range strings.Split(name, "_") {
		if i == 0 || (p != "ns" && p != "pct" && p != "share" && p != "s") {
			out = append(out, p)
		}
	}
	return strings.Join(out, "_")
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tables []struct {
			Name string
			Rows [][]any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tables) != 2 || got.Tables[0].Rows[0][2].(float64) != 1_500_000 || got.Tables[1].Rows[0][1] != nil {
		t.Errorf("unexpected JSON: %s", b.String())
	}
}

// TestTextPerWorkDigits: per-work cells keep three significant digits below
// 0.1 ms, so that microsecond figures of two systems can be compared.
func TestTextPerWorkDigits(t *testing.T) {
	for v, want := range map[float64]string{2.5e6: "2.500", 172_400: "0.172", 17_240: "0.0172", 3_014: "0.00301", 0: "0.000", 12: "0.0000120", 0.001: "0.000000001"} {
		if got := textCell(NSPerTok, v, true); got != want {
			t.Errorf("textCell(ns/token, %v, sig3) = %q, want %q", v, got, want)
		}
	}
	if got := textCell(NSPerTok, 17_240.0, false); got != "0.017" {
		t.Errorf("without Sig3: %q", got)
	}
	if got := textCell(NS, 17_240.0, true); got != "0.017" {
		t.Errorf("ns cells keep three decimals: %q", got)
	}
	var b bytes.Buffer
	Text(&b, []*Table{{Name: "w", Columns: []Column{{Name: "busy", Unit: NSPerTok, Sig3: true}}, Rows: [][]any{{3_014.0}}}})
	if b.String() != "busy ms/tok\n    0.00301\n" {
		t.Errorf("Text with a Sig3 column: %q", b.String())
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	ts := sample()
	ts[1].Add("x|y", int64(3_000_000))
	if err := Markdown(&b, ts); err != nil {
		t.Fatal(err)
	}
	want := `### Regions

| region | count | busy (ms) | share (%) |
| --- | ---: | ---: | ---: |
| attention | 3 | 1.500 | 25.0 |
| ffn | 12 | 0.000 | - |

_shares are of the window_

### Work

| rank | per_req (ms/req) |
| --- | ---: |
| 0 | - |
| abcdefgh | 2.500 |
| x\|y | 3.000 |
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestDisplayDigits: Digits and Floor change what Text and Markdown show,
// never what CSV and JSON write.
func TestDisplayDigits(t *testing.T) {
	p := Column{Name: "p", Unit: Count, Digits: 4, Floor: 1e-4}
	cases := []struct {
		v          any
		text, md   string
		csv        string
		unitColumn Column
	}{
		{1234.5678, "1234.6", "1234.6", "1234.5678", p},
		{12.34567, "12.35", "12.35", "12.34567", p},
		{0.0123456, "0.01235", "0.01235", "0.0123456", p},
		{-0.5, "<0.0001", "<0.0001", "-0.5", p},
		{0.00009, "<0.0001", "<0.0001", "0.00009", p},
		{1.5e6, "1500000", "1.5e+06", "1500000", p},
		{0.123456, "12.3", "12.3", "0.123456", Column{Name: "s", Unit: Share, Digits: 4}},
		{math.NaN(), "-", "-", "", p},
		{int64(123456), "123456", "123456", "123456", p},
		{"text", "text", "text", "text", p},
	}
	for _, c := range cases {
		tb := []*Table{{Name: "t", Columns: []Column{c.unitColumn}, Rows: [][]any{{c.v}}}}
		var tx, md, cs bytes.Buffer
		Text(&tx, tb)
		Markdown(&md, tb)
		TidyCSV(&cs, tb[0])
		if got := lastLine(tx.String()); got != c.text {
			t.Errorf("Text(%v) = %q, want %q", c.v, got, c.text)
		}
		if got := lastLine(md.String()); got != "| "+c.md+" |" {
			t.Errorf("Markdown(%v) = %q, want %q", c.v, got, c.md)
		}
		if got := strings.TrimSuffix(strings.TrimPrefix(cs.String(), CSVHeader(c.unitColumn)+"\n"), "\n"); got != c.csv {
			t.Errorf("CSV(%v) = %q, want %q", c.v, got, c.csv)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct{ in, want string }{{"text", "text"}, {"md", "markdown"}, {"markdown", "markdown"}, {"csv", "csv"}, {"json", "json"}} {
		name, enc, err := Lookup(tc.in)
		if err != nil || name != tc.want || enc == nil {
			t.Errorf("Lookup(%q) = %q, %v, %v; want %q", tc.in, name, enc != nil, err, tc.want)
		}
	}
	for _, bad := range []string{"", "yaml", "TEXT"} {
		if _, _, err := Lookup(bad); err == nil || !strings.Contains(err.Error(), "text, csv, json, markdown") {
			t.Errorf("Lookup(%q): error %v, want one naming the formats", bad, err)
		}
	}
}
