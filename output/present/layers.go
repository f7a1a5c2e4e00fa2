package present

import (
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/output/table"
)

// ComparisonLayers splits Comparison(rep) as the text report does: the
// layer-1 tables (serving performance) and the layer-2 tables (GPU time,
// empty without profiles), each with its heading. Other encoders of the
// whole report (the HTML page) follow the text report's order with it.
func ComparisonLayers(rep *compare.Report) (heading1 string, layer1 []*table.Table, heading2 string, layer2 []*table.Table) {
	ts := Comparison(rep)
	n1 := layer1Count(rep)
	return layer1Heading, ts[:n1], layer2Heading, ts[n1:]
}
