package gputelemetry

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/servecmp/servecmp/benchmark/result"

	dto "github.com/prometheus/client_model/go"

	"github.com/servecmp/servecmp/benchmark/promscrape"
	"github.com/servecmp/servecmp/internal/redact"
)

// Bounds on one exporter page.
const (
	maxPageBytes   = 8 << 20
	maxPageSeries  = 1 << 15
	maxGPUsPerNode = 64
)

// keyOf identifies a GPU within its node: the UUID, else the index.
func keyOf(g result.GPUID) string {
	if g.UUID != "" {
		return g.UUID
	}
	return "#" + g.Index
}

// labelOf names a GPU within its node for messages: "gpu0", else the
// UUID.
func labelOf(g result.GPUID) string {
	if g.Index != "" {
		return "gpu" + g.Index
	}
	return g.UUID
}

// reading is one GPU's fields in one page; NaN marks an absent field.
type reading struct {
	id result.GPUID
	v  [nFields]float64
}

// page is one parsed exporter page.
type page struct {
	gpus      []reading
	dups      int          // series for a GPU and field already filled
	unlabeled int          // series with neither a UUID nor an index
	overCap   int          // series of GPUs beyond maxGPUsPerNode
	invalid   [nFields]int // values dropped as out of range
}

// parsePage reads one exporter page. It never panics; an error means the
// page was not valid text format or over its bounds.
func parsePage(body []byte) (page, error) {
	fams, err := promscrape.Families(body, maxPageSeries)
	if err != nil {
		return page{}, err
	}
	var p page
	at := map[string]int{} // GPU key -> index in p.gpus
	for f := range nFields {
		for _, name := range fields[f].names {
			if mf, ok := fams[name]; ok {
				p.addFamily(field(f), mf, at)
			}
		}
	}
	return p, nil
}

// addFamily files the series of one family under their GPUs.
func (p *page) addFamily(f field, mf *dto.MetricFamily, at map[string]int) {
	for _, m := range mf.GetMetric() {
		id, ok := labelsOf(m)
		if !ok {
			p.unlabeled++
			continue
		}
		v, ok := promscrape.Value(mf.GetType(), m)
		if !ok || !f.valid(v) {
			p.invalid[f]++
			continue
		}
		i, seen := at[keyOf(id)]
		if !seen {
			if len(p.gpus) >= maxGPUsPerNode {
				p.overCap++
				continue
			}
			i = len(p.gpus)
			at[keyOf(id)] = i
			r := reading{id: id}
			for j := range r.v {
				r.v[j] = math.NaN()
			}
			p.gpus = append(p.gpus, r)
		}
		r := &p.gpus[i]
		switch {
		case math.IsNaN(r.v[f]):
			r.v[f] = v
		case f == fEvents: // both event families: either bit counts
			r.v[f] = float64(uint64(r.v[f]) | uint64(v))
		default:
			p.dups++
		}
	}
}

// labelsOf reads a series' GPU labels; false when it names no GPU (no
// UUID and no decimal index). The labels kept are text from outside bound
// for the result, its warnings and the report: secrets recognised by
// their shape are masked (redact.Secrets) before they are clipped, and a
// UUID that held one is no UUID (two such GPUs must not merge into one).
func labelsOf(m *dto.Metric) (result.GPUID, bool) {
	var id result.GPUID
	for _, lp := range m.GetLabel() {
		var dst *string
		switch lp.GetName() {
		case labelIndex:
			if n, err := strconv.ParseUint(clip(lp.GetValue()), 10, 16); err == nil {
				id.Index = strconv.FormatUint(n, 10)
			}
			continue
		case labelUUID:
			dst = &id.UUID
		case labelPCI:
			dst = &id.PCIBusID
		case labelDevice:
			dst = &id.Device
		case labelModel:
			dst = &id.Model
		case labelHost:
			dst = &id.Host
		case labelDriver:
			dst = &id.Driver
		default:
			continue
		}
		*dst = scrubLabel(lp.GetValue())
	}
	if strings.Contains(id.UUID, redact.Mask) {
		id.UUID = ""
	}
	return id, id.UUID != "" || id.Index != ""
}

// scrubbed remembers scrubLabel's answers: an exporter repeats the same
// label values on every page, and masking secrets costs far more than a
// lookup. Bounded: emptied when full.
var scrubbed struct {
	sync.Mutex
	m map[string]string
}

// maxScrubbed bounds the remembered label values.
const maxScrubbed = 4096

// scrubLabel masks the secrets in a label value (redact.Secrets), then
// clips it.
func scrubLabel(v string) string {
	scrubbed.Lock()
	out, ok := scrubbed.m[v]
	scrubbed.Unlock()
	if ok {
		return out
	}
	out = clip(redact.Secrets(v))
	if len(v) <= 4*maxLabel { // a longer value is not worth keeping
		scrubbed.Lock()
		if len(scrubbed.m) >= maxScrubbed || scrubbed.m == nil {
			scrubbed.m = make(map[string]string, 64)
		}
		scrubbed.m[v] = out
		scrubbed.Unlock()
	}
	return out
}

// clip bounds a label value to maxLabel bytes on a rune boundary and
// drops control characters.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) <= maxLabel {
		return s
	}
	cut := maxLabel
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
