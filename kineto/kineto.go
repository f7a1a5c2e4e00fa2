// Package kineto reads PyTorch-profiler (Kineto) traces into the
// source-neutral event model of package event.
//
// A Kineto trace is Chrome-trace JSON, plain or gzip-compressed, written by
// torch.profiler once per process (vLLM and SGLang write one file per rank).
// Read streams the document through its own JSON scanner: it validates the
// syntax, copies out only the fields it maps, skips everything else (host
// operator arguments are most of a trace) without decoding it, and holds
// only the token or small value being read. Object keys are matched exactly.
// A traceEvents element that is not an object, or whose name, ph, cat or
// args has a type other than expected, is skipped and counted in Warnings;
// later duplicates of a key replace earlier ones.
//
// Mapping of trace events (complete events, ph "X"; category compared
// without regard to case):
//   - cat kernel → event.Work of Kind Kernel; gpu_memcpy → Memcpy and
//     gpu_memset → Memset, named as the trace names them
//     ("Memcpy DtoD (Device -> Device)", "Memset (Device)"). args.device,
//     args.stream, args.correlation, args.grid and args.block give the
//     device, stream, correlation id and launch shape. A device-work event
//     without args.device is put on the device given by its pid.
//   - cat cuda_runtime, cuda_driver (ROCm traces use cuda_runtime with hip*
//     names; hip_runtime and hip_driver are accepted too) → event.Launch with
//     Correlation = args.correlation and TID = tid. Only calls whose
//     correlation id matches device work of the rank are kept; the rest
//     (synchronisation, attribute queries) carry no device work.
//   - cat user_annotation → event.Range of Kind Annotation; python_function →
//     event.Range of Kind PythonFrame, both on their host thread (tid).
//   - cat gpu_user_annotation is skipped: it is the GPU-side copy of a
//     record_function range whose host-side user_annotation is already read,
//     and kernels reach that range through their launches.
//   - every other category (cpu_op, ac2g flows, overhead, instant events) is
//     skipped.
//
// Units and rounding: ts and dur are microseconds with fractions. They are
// converted to integer nanoseconds on the trace's clock as
// Start = round(ts×1000) and End = round((ts+dur)×1000), rounding half away
// from zero on the decimal text exactly as written, so that large timestamps
// (1.7e15 µs) lose nothing to float64. Note End is not Start+round(dur×1000).
// An event with a negative duration is dropped and counted in the capture's
// Warnings, and so is one with times beyond ±event.MaxTime, and device work
// that starts before 0 or lasts over event.MaxDur (see event.TimesOK).
//
// Ranks: one event.Rank per device that ran work in the file. Rank.PID is the
// pid of that device's work events (Kineto writes the device index there on
// CUDA; it is not the host process id). Device is args.device. When the
// trace records its torch.distributed rank (distributedInfo.rank, >= 0),
// the capture's CapturedRank is that rank ("3") with CapturedRankFrom
// "trace:distributedInfo.rank"; the reader sets no display labels
// (package analysis does). GPU is the name
// that deviceProperties gives the device id; when no entry has that id (ROCm
// numbering can differ) and every entry names the same GPU, that name. A
// file holds one host process: every rank of a file carries its own copy of
// the file's host ranges, and the launches of its own work. SpanStart and
// SpanEnd are the first start and last end over the rank's device work and
// every host event of the mapped categories, whatever Options select.
//
// The capture has no CUDA-graph node records (GraphTraceMode is "",
// GraphNodes empty). Capture.Names and Capture.Shapes are shared by all ranks.
package kineto

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/budget"
)

// ErrNoKernels is returned (wrapped) for a trace without GPU kernel events.
var ErrNoKernels = errors.New("no GPU kernel events")

// Bounds of a trace (internal/budget): what a file may make Read hold or
// do, far beyond any real trace, so that a hostile one (a 1 MB gzip
// holding a 1 GiB kernel name, or 30 M events) ends in a one-line error
// or a counted drop instead of exhausting memory.
const (
	// MaxValueBytes bounds one JSON value Read holds (a name, a top-level
	// value it decodes): a longer one is an error.
	MaxValueBytes = 16 << 20
	// MaxNameBytes bounds an event's name: an event with a longer one is
	// dropped and counted in the capture's warnings.
	MaxNameBytes = 64 << 10
	// MaxEvents bounds the events kept from one file (device work,
	// launches and host ranges together): more is an error.
	MaxEvents = 20_000_000
	// MaxTraceBytes bounds the JSON text of one file, after
	// decompression.
	MaxTraceBytes = 64 << 30
	// MaxGzipRatio bounds how many times a gzip trace may expand once it
	// has given MaxGzipFloor bytes: more is a decompression bomb.
	MaxGzipRatio = 250
	MaxGzipFloor = 64 << 20
)

// maxEvents is MaxEvents, lowered by tests.
var maxEvents = MaxEvents

// Read decodes the trace from r (gzip or plain JSON, told apart by content)
// and returns its capture. path names the input in the capture; errors are
// one line and leave naming the file to the caller (package input does).
// A cancelled ctx stops the read with ctx's error.
func Read(ctx context.Context, r io.Reader, path string, opts event.Options) (*event.Capture, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(2)
	var src io.Reader = br
	var zerr *errRecorder
	if event.IsGzip(head) {
		in := &budget.Counter{R: br}
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("not readable as gzip: %v", gzipErr(err))
		}
		defer zr.Close()
		zerr = &errRecorder{r: zr}
		src = budget.Ratio(zerr, in, MaxGzipRatio, MaxGzipFloor, "gzip data")
	} else if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3) // a UTF-8 byte-order mark, as some editors write
	}
	src = budget.New(ctx, "trace JSON", budget.Limits{Bytes: MaxTraceBytes}).Reader(src)
	p := newParser(ctx, path, opts)
	if err := p.decode(src); err != nil {
		if zerr != nil && zerr.err != nil && zerr.err != io.EOF {
			return nil, fmt.Errorf("gzip data: %v", gzipErr(zerr.err))
		}
		return nil, err
	}
	if zerr != nil {
		// read to the end of the gzip stream, where its checksum is checked
		if _, err := io.Copy(io.Discard, zerr); err != nil {
			return nil, fmt.Errorf("gzip data: %v", gzipErr(err))
		}
	}
	return p.capture()
}

// errRecorder passes reads through and keeps the last error, so that a
// failure of the gzip layer is told apart from bad JSON inside it.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil {
		e.err = err
	}
	return n, err
}

// gzipErr words a gzip failure for a user.
func gzipErr(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the file ends early (truncated)"
	case errors.Is(err, gzip.ErrChecksum):
		return "checksum mismatch (damaged file)"
	case errors.Is(err, gzip.ErrHeader):
		return "bad gzip header"
	}
	return err.Error()
}

// intField is a JSON value read leniently as an integer: numbers (integral
// floats too) and numeric strings set it; anything else leaves it unset.
type intField struct {
	v  int64
	ok bool
}

func (f *intField) UnmarshalJSON(b []byte) error {
	*f = intField{}
	if len(b) >= 2 && b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	s := string(b)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		f.v, f.ok = v, true
		return nil
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && x == float64(int64(x)) && x > -9e18 && x < 9e18 {
		f.v, f.ok = int64(x), true
	}
	return nil
}

// numText returns the text of a JSON number value, or the content of a
// string value that starts like a number; nil for anything else.
func numText(raw []byte) []byte {
	if len(raw) >= 2 && raw[0] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return raw
	}
	return nil
}

// strField is a JSON string; any other value leaves it empty.
type strField string

func (s *strField) UnmarshalJSON(b []byte) error {
	*s = ""
	if len(b) >= 2 && b[0] == '"' {
		var v string
		if json.Unmarshal(b, &v) == nil {
			*s = strField(v)
		}
	}
	return nil
}

// dim3 is a launch dimension array of one to three non-negative integers;
// missing elements count as 1.
type dim3 struct {
	v  [3]int32
	ok bool
}

func (d *dim3) UnmarshalJSON(b []byte) error {
	*d = dim3{}
	var xs []intField
	if json.Unmarshal(b, &xs) != nil || len(xs) == 0 || len(xs) > 3 {
		return nil
	}
	d.v = [3]int32{1, 1, 1}
	for i, x := range xs {
		if !x.ok || x.v < 0 || x.v > 1<<31-1 {
			return nil
		}
		d.v[i] = int32(x.v)
	}
	d.ok = true
	return nil
}

// rawArgs holds the args fields of an event that Read uses.
type rawArgs struct {
	device, stream, correlation intField
	grid, block                 dim3
	name                        []byte // process_name metadata
}

// rawEvent holds the fields of one traceEvents element that Read uses. Its
// byte slices are scratch space reused from element to element.
type rawEvent struct {
	ph, cat, name []byte
	pid, tid      intField
	ts, dur       []byte // number text
	args          rawArgs
}

// reset empties ev, keeping its scratch space.
func (ev *rawEvent) reset() {
	*ev = rawEvent{
		ph: ev.ph[:0], cat: ev.cat[:0], name: ev.name[:0],
		ts: ev.ts[:0], dur: ev.dur[:0],
		args: rawArgs{name: ev.args.name[:0]},
	}
}

type devProp struct {
	ID   intField `json:"id"`
	Name strField `json:"name"`
}

// class is what Read does with an event category.
type class uint8

const (
	skip class = iota
	work
	launch
	annotation
	pyframe
)

func classify(cat []byte) (class, event.Kind) {
	var low [24]byte
	if len(cat) > len(low) {
		return skip, 0
	}
	for i, c := range cat {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(cat)]) {
	case "kernel":
		return work, event.Kernel
	case "gpu_memcpy", "memcpy":
		return work, event.Memcpy
	case "gpu_memset", "memset":
		return work, event.Memset
	case "cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "runtime", "driver":
		return launch, 0
	case "user_annotation":
		return annotation, 0
	case "python_function":
		return pyframe, 0
	}
	return skip, 0
}

// device collects the work of one device.
type device struct {
	id       int32
	pid      int64
	work     []event.Work
	min, max int64
}

type parser struct {
	ctx  context.Context
	path string
	opts event.Options

	names  *event.Names
	shapes *event.Shapes

	devices  map[int32]*device
	order    []int32 // devices in order of first appearance
	launches []event.Launch
	ranges   []event.Range
	hostMin  int64
	hostMax  int64
	hostSeen bool
	hostPID  int64
	hostSet  bool
	procName map[int64]string
	nameIDs  map[string]uint32 // names interned so far, looked up without allocating
	ev       rawEvent          // scratch for the element being read

	sawEvents  bool
	devProps   []devProp
	distRank   intField
	schema     string
	versions   []string
	dropped    int // negative durations
	outOfRange int // times outside the bounds of package event
	badTime    int // unreadable timestamps
	badType    int // elements with fields of unexpected types
	unnamed    int // device work with no name, renamed "[unnamed <cat>]"
	longName   int // events with a name over MaxNameBytes, dropped
	kept       int // events kept (work, launches, ranges)
	notObjects int
}

func newParser(ctx context.Context, path string, opts event.Options) *parser {
	return &parser{
		ctx: ctx, path: path, opts: opts,
		names: event.NewNames(), shapes: event.NewShapes(),
		devices:  map[int32]*device{},
		procName: map[int64]string{},
		nameIDs:  map[string]uint32{},
	}
}

// decode walks the top-level object, streaming traceEvents.
func (p *parser) decode(r io.Reader) error {
	s := newScanner(r)
	c, ok := s.next()
	if !ok {
		if s.rerr != nil {
			return s.rerr
		}
		return errors.New("empty input: not a PyTorch profiler trace")
	}
	switch c {
	case '{':
	case '[':
		return errors.New("not a PyTorch profiler trace: top level is a JSON array, not an object with traceEvents")
	default:
		if err := s.skip(0); err != nil {
			return fmt.Errorf("not JSON: %w", err)
		}
		return errors.New("not a PyTorch profiler trace: top level is not a JSON object")
	}
	s.pos++
	if c, ok := s.next(); ok && c == '}' {
		s.pos++
	} else {
		for {
			key, err := s.strValue()
			if err != nil {
				return err
			}
			k := topKey(key)
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := p.topValue(s, k); err != nil {
				return err
			}
			if err := s.sep('}'); err != nil {
				if err == errClosed {
					break
				}
				return err
			}
		}
	}
	if _, ok := s.next(); ok {
		return s.syntax("data after the top-level object")
	}
	if s.rerr != nil {
		return s.rerr
	}
	if !p.sawEvents {
		return errors.New("not a PyTorch profiler trace: no traceEvents array")
	}
	return nil
}

// top-level keys Read looks at
const (
	keyOther = iota
	keyEvents
	keyDevices
	keyDist
	keySchema
	keyCupti
	keyRoctracer
)

func topKey(k []byte) int {
	switch string(k) {
	case "traceEvents":
		return keyEvents
	case "deviceProperties":
		return keyDevices
	case "distributedInfo":
		return keyDist
	case "schemaVersion":
		return keySchema
	case "cupti_version":
		return keyCupti
	case "roctracer_version":
		return keyRoctracer
	}
	return keyOther
}

// topValue reads the value of a top-level key.
func (p *parser) topValue(s *scanner, k int) error {
	switch k {
	case keyEvents:
		return p.events(s)
	case keyOther:
		return s.skip(0)
	}
	raw, err := s.value()
	if err != nil {
		return err
	}
	p.topRaw(k, raw)
	return nil
}

// topRaw takes the raw value of a top-level key other than traceEvents.
func (p *parser) topRaw(k int, raw []byte) {
	switch k {
	case keyDevices:
		// a wrong type leaves the GPU names unknown
		var props []devProp
		_ = json.Unmarshal(raw, &props)
		p.devProps = append(p.devProps, props...)
	case keyDist:
		var di struct {
			Rank intField `json:"rank"`
		}
		_ = json.Unmarshal(raw, &di)
		p.distRank = di.Rank
	case keySchema:
		p.schema = string(numText(raw))
	case keyCupti, keyRoctracer:
		if v := numText(raw); v != nil {
			name := "cupti"
			if k == keyRoctracer {
				name = "roctracer"
			}
			p.versions = append(p.versions, name+" "+string(v))
		}
	}
}

// events streams the traceEvents array.
func (p *parser) events(s *scanner) error {
	c, ok := s.next()
	if !ok {
		return s.endErr()
	}
	if c != '[' {
		return errors.New("not a PyTorch profiler trace: traceEvents is not an array")
	}
	p.sawEvents = true
	s.pos++
	if c, ok := s.next(); ok && c == ']' {
		s.pos++
		return nil
	}
	for n := 0; ; n++ {
		if n&4095 == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		p.ev.reset()
		fit, err := p.element(s, &p.ev)
		if err != nil {
			return err
		}
		if fit {
			p.add(&p.ev)
		} else {
			p.badType++
		}
		if p.kept > maxEvents {
			return fmt.Errorf("more than %d events to keep: larger than servecmp reads (the bound on a trace); profile a shorter window", maxEvents)
		}
		if err := s.sep(']'); err != nil {
			if err == errClosed {
				return nil
			}
			return err
		}
	}
}

// event keys Read looks at
const (
	fOther = iota
	fPh
	fCat
	fName
	fPid
	fTid
	fTs
	fDur
	fArgs
)

func eventKey(k []byte) int {
	switch string(k) {
	case "ph":
		return fPh
	case "cat":
		return fCat
	case "name":
		return fName
	case "pid":
		return fPid
	case "tid":
		return fTid
	case "ts":
		return fTs
	case "dur":
		return fDur
	case "args":
		return fArgs
	}
	return fOther
}

// element reads one traceEvents element into ev. fit is false when the
// element is not an object (null excepted) or a field Read uses has a type
// it cannot take (a non-string name, a non-object args); the element is
// then skipped whole. Later duplicates of a key replace earlier ones.
func (p *parser) element(s *scanner, ev *rawEvent) (fit bool, err error) {
	c, ok := s.next()
	if !ok {
		return false, s.endErr()
	}
	if c != '{' {
		raw, err := s.value()
		if err != nil {
			return false, err
		}
		return string(raw) == "null", nil
	}
	s.pos++
	if c, ok := s.next(); ok && c == '}' {
		s.pos++
		return true, nil
	}
	fit = true
	for {
		key, err := s.strValue()
		if err != nil {
			return false, err
		}
		k := eventKey(key)
		if err := s.expect(':'); err != nil {
			return false, err
		}
		switch k {
		case fPh, fCat, fName:
			dst := &ev.ph
			if k == fCat {
				dst = &ev.cat
			} else if k == fName {
				dst = &ev.name
			}
			ok, err := s.stringInto(dst)
			if err != nil {
				return false, err
			}
			fit = fit && ok
		case fPid, fTid, fTs, fDur:
			raw, err := s.value()
			if err != nil {
				return false, err
			}
			switch k {
			case fPid:
				ev.pid.UnmarshalJSON(raw)
			case fTid:
				ev.tid.UnmarshalJSON(raw)
			case fTs:
				ev.ts = append(ev.ts[:0], numText(raw)...)
			case fDur:
				ev.dur = append(ev.dur[:0], numText(raw)...)
			}
		case fArgs:
			ok, err := p.args(s, &ev.args)
			if err != nil {
				return false, err
			}
			fit = fit && ok
		default:
			if err := s.skip(0); err != nil {
				return false, err
			}
		}
		if err := s.sep('}'); err != nil {
			if err == errClosed {
				return fit, nil
			}
			return false, err
		}
	}
}

// stringInto copies a string value into *dst; null leaves *dst as it is,
// and any other value is skipped and reported as not fitting.
func (s *scanner) stringInto(dst *[]byte) (fit bool, err error) {
	c, ok := s.next()
	if !ok {
		return false, s.endErr()
	}
	switch c {
	case '"':
		v, err := s.strValue()
		if err != nil {
			return false, err
		}
		*dst = append((*dst)[:0], v...)
		return true, nil
	case 'n':
		return true, s.literal("null")
	}
	return false, s.skip(0)
}

// args reads the args object of an event (null leaves it as it is).
func (p *parser) args(s *scanner, a *rawArgs) (fit bool, err error) {
	c, ok := s.next()
	if !ok {
		return false, s.endErr()
	}
	switch c {
	case 'n':
		return true, s.literal("null")
	case '{':
	default:
		return false, s.skip(0)
	}
	*a = rawArgs{name: a.name[:0]}
	s.pos++
	if c, ok := s.next(); ok && c == '}' {
		s.pos++
		return true, nil
	}
	fit = true
	for {
		key, err := s.strValue()
		if err != nil {
			return false, err
		}
		var f *intField
		var d *dim3
		isName := false
		switch string(key) {
		case "device":
			f = &a.device
		case "stream":
			f = &a.stream
		case "correlation":
			f = &a.correlation
		case "grid":
			d = &a.grid
		case "block":
			d = &a.block
		case "name":
			isName = true
		}
		if err := s.expect(':'); err != nil {
			return false, err
		}
		switch {
		case isName:
			ok, err := s.stringInto(&a.name)
			if err != nil {
				return false, err
			}
			fit = fit && ok
		case f != nil || d != nil:
			raw, err := s.value()
			if err != nil {
				return false, err
			}
			if f != nil {
				f.UnmarshalJSON(raw)
			} else {
				d.UnmarshalJSON(raw)
			}
		default:
			if err := s.skip(0); err != nil {
				return false, err
			}
		}
		if err := s.sep('}'); err != nil {
			if err == errClosed {
				return fit, nil
			}
			return false, err
		}
	}
}

func (p *parser) add(ev *rawEvent) {
	if string(ev.ph) == "M" {
		if string(ev.name) == "process_name" && ev.pid.ok && len(ev.args.name) > 0 {
			p.procName[ev.pid.v] = string(ev.args.name)
		}
		return
	}
	if string(ev.ph) != "X" {
		return
	}
	cl, kind := classify(ev.cat)
	if cl == skip {
		return
	}
	if len(ev.name) > MaxNameBytes {
		p.longName++
		return
	}
	start, end, err := interval(ev.ts, ev.dur)
	if err != nil {
		p.badTime++
		return
	}
	if end < start {
		p.dropped++
		return
	}
	if !timesInRange(cl == work, start, end) {
		p.outOfRange++
		return
	}
	if cl == work {
		p.addWork(ev, kind, start, end)
		return
	}
	if !p.hostSeen || start < p.hostMin {
		p.hostMin = start
	}
	if !p.hostSeen || end > p.hostMax {
		p.hostMax = end
	}
	p.hostSeen = true
	if !p.hostSet && ev.pid.ok {
		p.hostPID, p.hostSet = ev.pid.v, true
	}
	switch cl {
	case launch:
		if p.opts.Launches && ev.args.correlation.ok && ev.args.correlation.v > 0 {
			p.kept++
			p.launches = append(p.launches, event.Launch{
				Start: start, End: end,
				Correlation: uint64(ev.args.correlation.v),
				TID:         ev.tid.v,
				Name:        p.intern(ev.name),
			})
		}
	case annotation, pyframe:
		if p.opts.Ranges {
			k := event.Annotation
			if cl == pyframe {
				k = event.PythonFrame
			}
			p.kept++
			p.ranges = append(p.ranges, event.Range{
				Start: start, End: end, TID: ev.tid.v,
				Text: p.intern(ev.name), Kind: k,
			})
		}
	}
}

func (p *parser) addWork(ev *rawEvent, kind event.Kind, start, end int64) {
	var id int32
	switch {
	case ev.args.device.ok && ev.args.device.v >= 0 && ev.args.device.v <= 1<<31-1:
		id = int32(ev.args.device.v)
	case ev.pid.ok && ev.pid.v >= 0 && ev.pid.v <= 1<<31-1:
		id = int32(ev.pid.v)
	default:
		p.badType++
		return
	}
	d := p.devices[id]
	if d == nil {
		d = &device{id: id, pid: ev.pid.v, min: start, max: end}
		p.devices[id] = d
		p.order = append(p.order, id)
	}
	if start < d.min {
		d.min = start
	}
	if end > d.max {
		d.max = end
	}
	name := ev.name
	if len(name) == 0 {
		// Like nsys rows with a NULL name: keep the time, give it a name
		// that says so, and count it.
		p.unnamed++
		name = append(append([]byte("[unnamed "), ev.cat...), ']')
	}
	w := event.Work{
		Start: start, End: end,
		Name: p.intern(name),
		Kind: kind,
	}
	if c := ev.args.correlation; c.ok && c.v > 0 {
		w.Correlation = uint64(c.v)
	}
	if s := ev.args.stream; s.ok && s.v >= 0 && s.v <= 1<<32-1 {
		w.Stream = uint32(s.v)
	}
	if kind == event.Kernel && (ev.args.grid.ok || ev.args.block.ok) {
		w.Shape = p.shapes.ID(event.Shape{Grid: ev.args.grid.v, Block: ev.args.block.v})
	}
	p.kept++
	d.work = append(d.work, w)
}

// intern returns the Names id of b.
func (p *parser) intern(b []byte) uint32 {
	if id, ok := p.nameIDs[string(b)]; ok {
		return id
	}
	n := string(b)
	id := p.names.ID(n)
	p.nameIDs[n] = id
	return id
}

// capture assembles the ranks once the whole trace is read.
func (p *parser) capture() (*event.Capture, error) {
	kernels := 0
	for _, d := range p.devices {
		for i := range d.work {
			if d.work[i].Kind == event.Kernel {
				kernels++
			}
		}
	}
	if kernels == 0 {
		return nil, ErrNoKernels
	}
	c := &event.Capture{
		Path:        p.path,
		Format:      event.Kineto,
		ToolVersion: p.toolVersion(),
		Names:       p.names,
		Shapes:      p.shapes,
	}
	if p.distRank.ok && p.distRank.v >= 0 {
		c.CapturedRank, c.CapturedRankFrom = strconv.FormatInt(p.distRank.v, 10), "trace:distributedInfo.rank"
	}
	c.Warnings = append(c.Warnings, p.warnings()...)
	ids := append([]int32(nil), p.order...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var process string
	if p.hostSet {
		process = p.procName[p.hostPID]
	}
	for _, id := range ids {
		d := p.devices[id]
		rk := &event.Rank{
			Source:      p.path,
			Format:      event.Kineto,
			PID:         d.pid,
			Device:      id,
			ToolVersion: c.ToolVersion,
			Process:     process,
			Work:        d.work,
			SpanStart:   d.min,
			SpanEnd:     d.max,
			Names:       p.names,
			Shapes:      p.shapes,
		}
		if p.hostSeen {
			rk.SpanStart = min(rk.SpanStart, p.hostMin)
			rk.SpanEnd = max(rk.SpanEnd, p.hostMax)
		}
		rk.GPU = p.gpuName(id, c)
		rk.Launches = p.launchesOf(d)
		if len(p.ranges) > 0 {
			if len(ids) == 1 {
				rk.Ranges = p.ranges
			} else {
				rk.Ranges = append([]event.Range(nil), p.ranges...)
			}
		}
		c.Ranks = append(c.Ranks, rk)
		if len(c.Ranks) == 1 || rk.SpanStart < c.SessionStart {
			c.SessionStart = rk.SpanStart // the trace's clock has no session zero: its first event is
		}
	}
	return c, nil
}

// warnings are the capture's warnings about what was dropped or renamed.
func (p *parser) warnings() []string {
	var w []string
	if p.dropped > 0 {
		w = append(w, fmt.Sprintf("dropped %d events with negative duration", p.dropped))
	}
	if p.badTime > 0 {
		w = append(w, fmt.Sprintf("dropped %d events with unreadable ts or dur", p.badTime))
	}
	if p.outOfRange > 0 {
		w = append(w, fmt.Sprintf("dropped %d events with out-of-range times (device work starting before 0 or lasting over %d ns; any time beyond ±%d ns)",
			p.outOfRange, event.MaxDur, event.MaxTime))
	}
	if p.longName > 0 {
		w = append(w, fmt.Sprintf("dropped %d events with names over %d bytes", p.longName, MaxNameBytes))
	}
	if p.unnamed > 0 {
		w = append(w, fmt.Sprintf("%d device events had no name; named \"[unnamed <cat>]\"", p.unnamed))
	}
	if p.badType > 0 {
		w = append(w, fmt.Sprintf("skipped %d traceEvents elements with fields of unexpected types", p.badType))
	}
	return w
}

func (p *parser) toolVersion() string {
	v := ""
	if p.schema != "" {
		v = "schema " + string(p.schema)
	}
	if len(p.versions) > 0 {
		if v != "" {
			v += ", "
		}
		v += strings.Join(p.versions, ", ")
	}
	return v
}

func (p *parser) gpuName(id int32, c *event.Capture) string {
	same := ""
	for i, dp := range p.devProps {
		if dp.ID.ok && dp.ID.v == int64(id) {
			return string(dp.Name)
		}
		if i == 0 {
			same = string(dp.Name)
		} else if string(dp.Name) != same {
			same = ""
		}
	}
	if same != "" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("device %d is not listed in deviceProperties; all listed GPUs are %q, used as its name", id, same))
	}
	return same
}

// launchesOf returns the launches whose correlation id matches work of d.
func (p *parser) launchesOf(d *device) []event.Launch {
	if len(p.launches) == 0 {
		return nil
	}
	corr := make([]uint64, 0, len(d.work))
	for i := range d.work {
		if c := d.work[i].Correlation; c != 0 {
			corr = append(corr, c)
		}
	}
	sort.Slice(corr, func(i, j int) bool { return corr[i] < corr[j] })
	var out []event.Launch
	for _, l := range p.launches {
		i := sort.Search(len(corr), func(i int) bool { return corr[i] >= l.Correlation })
		if i < len(corr) && corr[i] == l.Correlation {
			out = append(out, l)
		}
	}
	return out
}
