package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Schema names the workload file format.
//
// Version 1: the first line is a Header; every other line is a Request.
// Files without the header (written before it existed, or by hand) are
// read as well. The header is part of the bytes the sha256 covers.
const Schema = "servecmp.workload/1"

// Header is a workload file's first line.
type Header struct {
	Schema   string `json:"schema"`
	Requests int    `json:"requests"` // the request lines that follow
}

// isHeader reports whether line is a header: an object with a "schema"
// key (a request never has one).
func isHeader(line []byte) bool {
	var probe struct {
		Schema *string `json:"schema"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Schema != nil
}

// checkHeader validates a header line: known fields only and a schema
// this version reads.
func checkHeader(line []byte) error {
	var h Header
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("header: %s", jsonMsg(err))
	}
	if h.Schema != Schema {
		if strings.HasPrefix(h.Schema, "servecmp.workload/") {
			return fmt.Errorf("header: schema %q is newer than this servecmp reads (%s)", h.Schema, Schema)
		}
		return fmt.Errorf("header: schema %q is not a servecmp workload (%s)", h.Schema, Schema)
	}
	return nil
}
