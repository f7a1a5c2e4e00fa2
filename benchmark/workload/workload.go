// Package workload defines servecmp's frozen request population: a JSON
// Lines file, one Request per line, whose sha256 goes into every result so
// that the same bytes drive both engines.
package workload

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Sampling holds the request's sampling settings; nil fields are not sent.
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	TopK        *int     `json:"top_k,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
}

// Request is one materialised request. Exactly one of PromptTokens, Prompt
// and Messages is set.
type Request struct {
	ID           string    `json:"id"`
	PromptTokens []int     `json:"prompt_token_ids,omitempty"` // token-id prompt (/v1/completions)
	Prompt       string    `json:"prompt,omitempty"`           // text prompt (/v1/completions)
	Messages     []Message `json:"messages,omitempty"`         // chat prompt (/v1/chat/completions)
	MaxTokens    int       `json:"max_tokens"`
	// FixedLength asks the engine to produce exactly MaxTokens tokens
	// (ignore_eos, min_tokens where accepted).
	FixedLength bool `json:"fixed_length"`
	// InputLen is the prompt length in tokens when the workload knows it
	// (token-id prompts); 0 when unknown.
	InputLen int      `json:"input_len,omitempty"`
	Sampling Sampling `json:"sampling"`
	// ArrivalOffsetS, when set, is the request's send time in seconds from
	// the start of the measured phase (a trace replay); it overrides the
	// arrival process. At most MaxArrivalOffsetS.
	ArrivalOffsetS *float64 `json:"arrival_offset_s,omitempty"`
	// Session groups the turns of one multi-turn conversation and Turn is
	// the turn's 0-based index. A turn's Messages are only what the turn
	// adds (the user message, and any system message on turn 0): the
	// benchmark sends turn k+1 after turn k's answer has arrived, with the
	// conversation so far (earlier turns' messages and the server's actual
	// answers as assistant messages) in front of it. InputLen counts the
	// turn's own messages only.
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"`
}

// Bounds of a request's values: a file that exceeds them is refused when
// it is loaded, before any request is sent.
const (
	// MaxArrivalOffsetS is the latest arrival offset a request may carry
	// (one day): a replay longer than that is a mistake in the file, not
	// a run anyone waits for.
	MaxArrivalOffsetS = 86400
	// MaxMaxTokens is the largest max_tokens a request may ask for.
	MaxMaxTokens = 1 << 24
)

// Workload is a loaded workload file.
type Workload struct {
	Path     string
	SHA256   string  // hex sha256 of the file's bytes
	Header   *Header // the first line's header, nil when the file has none
	Requests []Request
}

// Stats summarises a workload: requests by prompt form, the known prompt
// lengths and the output lengths (tokens), and how many requests are
// fixed-length or carry an arrival offset.
type Stats struct {
	Kinds      map[Kind]int
	InputLens  []int // InputLen of the requests that know it
	MaxTokens  []int // every request's
	FixedLen   int
	WithArrive int
}

// Stats summarises w.
func (w *Workload) Stats() Stats {
	st := Stats{Kinds: map[Kind]int{}}
	for i := range w.Requests {
		r := &w.Requests[i]
		st.Kinds[r.Kind()]++
		if r.InputLen > 0 {
			st.InputLens = append(st.InputLens, r.InputLen)
		}
		st.MaxTokens = append(st.MaxTokens, r.MaxTokens)
		if r.FixedLength {
			st.FixedLen++
		}
		if r.ArrivalOffsetS != nil {
			st.WithArrive++
		}
	}
	return st
}
