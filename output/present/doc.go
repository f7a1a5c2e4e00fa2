// Package present is servecmp's one presentation layer: it turns each
// domain type (an analysis report, a benchmark result, a check report, a
// comparison) into tables of raw values with units, which the encoders
// of internal/table (text, CSV, markdown, JSON) then write.
//
// Domain packages never import internal/table or this package; data
// flows one way: domain value → present → table → encoder. Nothing here
// formats a number: rounding and units are the encoders' work.
package present
