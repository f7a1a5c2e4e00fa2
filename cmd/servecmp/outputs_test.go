package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// outputs checks the files the tests make servecmp write (TestMain sets
// atomicfile.Written to add): JSON and JSON Lines against the schema
// each names, CSV for numbers that load as numbers. It keeps the
// problems, and counts what it saw, for after the tests.
type outputs struct {
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
	err      error
	seen     map[string]int // file kind (schema, "csv", extension) → files checked
	problems []string
}

func newOutputs() *outputs {
	o := &outputs{seen: map[string]int{}}
	o.schemas, o.err = loadSchemas()
	return o
}

// schemaFile maps the schema name a file carries (before its /version)
// to its file in docs/schema.
var schemaFile = map[string]string{
	"servecmp.workload": "workload", "servecmp.result": "result", "servecmp.record": "record", "servecmp.check": "check",
	"servecmp.analysis": "analysis", "servecmp.summary": "analysis", "servecmp.compare": "compare", "servecmp.step": "step",
}

// noSchema are the JSON outputs that name no schema of their own, and
// why.
var noSchema = map[string]string{}

func (o *outputs) add(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		o.problems = append(o.problems, fmt.Sprintf("%s: %v", path, err))
		return
	}
	var probs []string
	switch ext := filepath.Ext(path); ext {
	case ".json":
		probs = o.checkJSON(path, [][]byte{data})
	case ".jsonl":
		probs = o.checkJSON(path, jsonLines(data))
	case ".csv":
		o.seen["csv"]++
		probs = csvNumbers(path, data)
	default:
		o.seen[ext]++
	}
	o.problems = append(o.problems, probs...)
}

func jsonLines(data []byte) [][]byte {
	var docs [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			docs = append(docs, append([]byte{}, sc.Bytes()...))
		}
	}
	return docs
}

// checkJSON validates every document of a file against the schema its
// first document names (a workload's header, a record's own field),
// stopping at the first that fails.
func (o *outputs) checkJSON(path string, docs [][]byte) []string {
	if o.err != nil {
		return []string{o.err.Error()}
	}
	if len(docs) == 0 {
		return []string{path + ": empty"}
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(docs[0], &head); err != nil {
		return []string{fmt.Sprintf("%s: not JSON: %v", path, err)}
	}
	name, _, _ := strings.Cut(head.Schema, "/")
	file, ok := schemaFile[name]
	if !ok {
		if why, ok := noSchema[filepath.Base(path)]; ok {
			o.seen["json without schema ("+why+")"]++
			return nil
		}
		return []string{fmt.Sprintf("%s: schema %q names no file in docs/schema", path, head.Schema)}
	}
	o.seen[file]++
	for i, d := range docs {
		if err := validate(o.schemas[file], d); err != nil {
			return []string{fmt.Sprintf("%s (document %d) does not match %s.json: %v", path, i+1, file, err)}
		}
	}
	return nil
}

// problems is what the checks found, each once.
func (o *outputs) problemsList() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := slices.Clone(o.problems)
	slices.Sort(out)
	return slices.Compact(out)
}

func (o *outputs) summary() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var parts []string
	for k, n := range o.seen {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(parts)
	return "outputs checked as the tests wrote them: " + strings.Join(parts, ", ")
}

// naValues are the fields pandas' read_csv reads as missing by default.
var naValues = map[string]bool{"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true, "-NaN": true,
	"-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true, "NA": true, "NULL": true, "NaN": true, "None": true,
	"n/a": true, "nan": true, "null": true}

// pandasNumber reports whether pandas' C parser reads field as a number
// (an integer, a decimal, an exponent, inf or infinity with any case and
// sign).
func pandasNumber(field string) bool {
	f := strings.TrimSpace(field)
	switch strings.ToLower(strings.TrimLeft(f, "+-")) {
	case "inf", "infinity":
		return true
	}
	if strings.ContainsAny(f, "_xXpP") || strings.HasPrefix(strings.TrimLeft(f, "+-"), "0x") {
		return false // Go accepts these forms; pandas does not
	}
	_, err := strconv.ParseFloat(f, 64)
	return err == nil
}

// csvNumbers reads a CSV file strictly, as pandas' read_csv would type
// it: a column holding numbers loads as numbers only when every field
// that is not missing is one. A column where numbers are at least half
// of the fields present but not all of them would load as text: that is
// a problem. (A column of text with a few number-like names, such as a
// model called "7", is text and stays so.)
func csvNumbers(path string, data []byte) []string {
	r := csv.NewReader(bytes.NewReader(data))
	rows, err := r.ReadAll()
	if err != nil {
		return []string{fmt.Sprintf("%s: not strict CSV: %v", path, err)}
	}
	if len(rows) == 0 {
		return []string{path + ": no header line"}
	}
	var out []string
	for c, name := range rows[0] {
		nums, texts := 0, []string{}
		for _, row := range rows[1:] {
			switch v := row[c]; {
			case naValues[v]:
			case pandasNumber(v):
				nums++
			default:
				texts = append(texts, v)
			}
		}
		if nums > 0 && len(texts) > 0 && nums >= len(texts) {
			out = append(out, fmt.Sprintf("%s: column %s holds %d numbers and %d text fields (%q...): pandas loads it as text", path, name, nums, len(texts), texts[0]))
		}
	}
	return out
}
