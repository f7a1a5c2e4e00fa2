package table

import (
	"bytes"
	"encoding/json"
	"math"
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

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := "# regions\nregion,count,busy_ns,share\nattention,3,1500000,0.25\nffn,12,250,\n\n# w\nrank,per_req_ns_per_req\n0,\nabcdefgh,2500000\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
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
