package classify

import (
	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// Attribute returns one Label per rank.Work item (same index), starting
// from byName, the name-rule label of each name id (index = event.Names id).
// Placeholder: the context-attribution owner replaces it; for now every
// work item keeps its name label.
func Attribute(rank *event.Rank, set *rules.Set, byName []Label) []Label {
	out := make([]Label, len(rank.Work))
	for i := range rank.Work {
		out[i] = byName[rank.Work[i].Name]
	}
	return out
}
