package classify

// MergeFiles reads the summaries saved at paths (ReadSummaryFile) and
// merges them into one report (Merge). Its errors name the file.
func MergeFiles(paths ...string) (*Report, error) {
	reps := make([]*Report, 0, len(paths))
	for _, p := range paths {
		r, err := ReadSummaryFile(p)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r)
	}
	return Merge(reps...)
}
