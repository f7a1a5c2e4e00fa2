package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestFlag adds to pflag's "unknown flag: --NAME" error the command's
// flags nearest to NAME ("did you mean --concurrency?"): those within
// an edit distance of a third of NAME's length (at least 2), or those
// NAME is a prefix of. Any other error comes back as it is.
func suggestFlag(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok || name == "" {
		return err
	}
	if near := nearFlags(c, name); len(near) > 0 {
		return fmt.Errorf("%w (did you mean %s?)", err, strings.Join(near, " or "))
	}
	return err
}

// nearFlags lists, nearest first (at most three), the flags of c whose
// names are close to name.
func nearFlags(c *cobra.Command, name string) []string {
	type cand struct {
		flag string
		d    int
	}
	var cs []cand
	limit := max(2, len(name)/3)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		d := distance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d <= limit {
			cs = append(cs, cand{"--" + f.Name, d})
		}
	})
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	out := make([]string, 0, 3)
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].flag)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in bytes (flag
// names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
