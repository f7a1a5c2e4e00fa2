package present

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// writeWorkloadHeader prints what a workload's header records (the
// tokenizer, prompt form and chat template) and its multi-turn sessions;
// nothing for a file without either.
func writeWorkloadHeader(w io.Writer, wl *workload.Workload) {
	if h := wl.Header; h != nil && h.TokenizerHash != "" {
		fmt.Fprintf(w, "tokenizer   %s  sha256 %s\n", h.Tokenizer, h.TokenizerHash)
		if h.Prompt != "" {
			fmt.Fprintf(w, "prompt      %s\n", h.Prompt)
		}
		if h.ChatTemplate != "" {
			fmt.Fprintf(w, "template    %s  sha256 %s (rendered client-side, sent as text)\n", h.ChatTemplate, h.ChatTemplateHash)
		}
	}
	sessions, turns := map[string]bool{}, 0
	for i := range wl.Requests {
		if s := wl.Requests[i].Session; s != "" {
			sessions[s] = true
			turns++
		}
	}
	if turns > 0 {
		fmt.Fprintf(w, "sessions    %d (%d turns)\n", len(sessions), turns)
	}
}
