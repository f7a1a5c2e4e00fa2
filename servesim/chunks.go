package servesim

import (
	"encoding/json"
	"strconv"
	"time"
)

// chunkEncoder appends SSE events for one response. Token text needs no
// JSON escaping (pseudo-words are ASCII letters), so chunks are built by
// appending bytes: the hot path allocates nothing.
type chunkEncoder struct {
	s      *Server
	j      *job
	head   []byte // `data: {"id":...,"model":...,"choices":[`
	prompt int
}

func (s *Server) newChunkEncoder(j *job, id uint64) *chunkEncoder {
	obj, prefix := "text_completion", "cmpl-"
	if j.chat {
		obj, prefix = "chat.completion.chunk", "chatcmpl-"
	}
	h := []byte(`data: {"id":"` + prefix)
	h = strconv.AppendUint(h, id, 10)
	h = append(h, `","object":"`+obj+`","created":`...)
	h = strconv.AppendInt(h, time.Now().Unix(), 10)
	h = append(h, `,"model":`...)
	h = append(h, s.modelJSON...)
	h = append(h, `,"choices":[`...)
	return &chunkEncoder{s: s, j: j, head: h, prompt: len(j.prompt)}
}

// roleChunk is the chat stream's opening, role-only event.
func (e *chunkEncoder) roleChunk(b []byte) []byte {
	b = append(b, e.head...)
	b = append(b, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	return b
}

// tokenChunk appends one event carrying ids, the output tokens starting
// at position pos0; finish is "" until the last event.
func (e *chunkEncoder) tokenChunk(b []byte, ids []int, pos0 int, finish string, continuous bool) []byte {
	b = append(b, e.head...)
	if e.j.chat {
		b = append(b, `{"index":0,"delta":{"content":"`...)
	} else {
		b = append(b, `{"index":0,"text":"`...)
	}
	for _, t := range ids {
		b = append(b, e.s.words.word(t)...)
	}
	if e.j.chat {
		b = append(b, `"},"logprobs":`...)
	} else {
		b = append(b, `","logprobs":`...)
	}
	if e.j.wantLP {
		lp, _ := json.Marshal(e.s.logprobsObject(e.j, ids, pos0))
		b = append(b, lp...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, finish...)
		b = append(b, '"')
	}
	if e.j.req.ReturnTokenIDs {
		b = append(b, `,"token_ids":[`...)
		for i, t := range ids {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(t), 10)
		}
		b = append(b, ']')
	}
	b = append(b, "}]"...)
	if continuous {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, e.prompt, pos0+len(ids))
	}
	return append(b, "}\n\n"...)
}

// usageChunk is the final event of stream_options.include_usage.
func (e *chunkEncoder) usageChunk(b []byte, completion int) []byte {
	b = append(b, e.head...)
	b = append(b, `],"usage":`...)
	b = appendUsage(b, e.prompt, completion)
	return append(b, "}\n\n"...)
}

func appendUsage(b []byte, prompt, completion int) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	return append(b, '}')
}
