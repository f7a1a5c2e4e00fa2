package workload

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Azure trace columns (AzureLLMInferenceTrace_*.csv): the arrival time and
// the prompt and output token counts. Other columns are ignored.
var azureColumns = []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}

// azureTimeLayouts are the timestamp forms read: a date and a time with
// any number of fractional digits, with or without a UTC offset (none
// means UTC), separated by a space or a T.
var azureTimeLayouts = []string{"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05"}

// azureSource reads an Azure LLM inference trace: a CSV file whose first
// line names the columns.
type azureSource struct {
	lr    *lineReader
	col   []int // index of each of azureColumns
	width int
	other []string
}

func (a *azureSource) ignored() []string { return a.other }

func (a *azureSource) where(n int) string { return fmt.Sprintf("%s:%d", a.lr.name, n) }

// fields splits one CSV line.
func csvFields(b []byte) ([]string, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, errors.New("a quoted field runs over more than one line")
	}
	return rec, nil
}

// header reads the column names.
func (a *azureSource) header() error {
	b, err := a.lr.next()
	if err == io.EOF {
		return fmt.Errorf("%s: empty file", a.lr.name)
	}
	if err != nil {
		return err
	}
	names, err := csvFields(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if err != nil {
		return fmt.Errorf("%s:1: %v", a.lr.name, err)
	}
	a.col, a.width = make([]int, len(azureColumns)), len(names)
	for i, want := range azureColumns {
		a.col[i] = -1
		for j, n := range names {
			if strings.EqualFold(strings.TrimSpace(n), want) {
				a.col[i] = j
			}
		}
		if a.col[i] < 0 {
			return fmt.Errorf("%s:1: no column %s (columns: %s; an Azure trace has %s)", a.lr.name, want,
				show(strings.Join(names, ", ")), strings.Join(azureColumns, ", "))
		}
	}
	for j, n := range names {
		if j != a.col[0] && j != a.col[1] && j != a.col[2] {
			a.other = append(a.other, n)
		}
	}
	return nil
}

func (a *azureSource) next() (traceLine, error) {
	if a.col == nil {
		if err := a.header(); err != nil {
			return traceLine{}, err
		}
	}
	for {
		b, err := a.lr.next()
		if err != nil {
			return traceLine{}, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		tl, err := a.parse(b)
		if err != nil {
			return traceLine{}, fmt.Errorf("%s:%d: %v", a.lr.name, a.lr.n, err)
		}
		tl.line = a.lr.n
		return tl, nil
	}
}

// parse reads one data line.
func (a *azureSource) parse(b []byte) (traceLine, error) {
	var tl traceLine
	rec, err := csvFields(b)
	if err != nil {
		return tl, err
	}
	if len(rec) != a.width {
		return tl, fmt.Errorf("%d fields, the header names %d", len(rec), a.width)
	}
	if tl.tsNs, err = azureTime(strings.TrimSpace(rec[a.col[0]])); err != nil {
		return tl, err
	}
	if tl.in, err = length(numberText(rec[a.col[1]]), azureColumns[1]); err != nil {
		return tl, err
	}
	tl.out, err = length(numberText(rec[a.col[2]]), azureColumns[2])
	return tl, err
}

// numberText is a CSV field as a number to read (spaces trimmed).
func numberText(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(empty)"
	}
	return json.Number(s)
}

// azureTime reads a TIMESTAMP as nanoseconds since 1970 (UTC when it has
// no offset), for years 1970 to 2200.
func azureTime(s string) (int64, error) {
	for _, l := range azureTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1970 || t.Year() > 2200 {
				break
			}
			return t.UnixNano(), nil
		}
	}
	return 0, fmt.Errorf("TIMESTAMP %q is not a date and time (2006-01-02 15:04:05.999, optional UTC offset) from 1970 to 2200", show(s))
}
