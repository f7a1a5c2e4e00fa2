// Package present is servecmp's one presentation layer: it turns each
// domain type (an analysis report, a benchmark result, a check report, a
// comparison) into tables of raw values with units, which the encoders
// of output/table (text, CSV, markdown, JSON, HTML) then write, and into
// the text readings built around them. A comparison's answer is
// compare's: present prints its conclusion's sentence and never
// re-derives it.
//
// Nothing below the output tree imports output/table or this package;
// data flows one way: domain value → present → table → encoder. Nothing
// here formats a number: rounding and units are the encoders' work.
package present
