package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// runFiles is the manifest of an output directory (FilesName): every
// entry runs wrote there, folders with a trailing "/", and the folders
// wholly the run's. An entry is listed before it is made, so a crash can
// leave a listed entry missing, never an unlisted one of the run's.
type runFiles struct {
	mu     sync.Mutex
	Schema string   `json:"schema"`
	Wrote  []string `json:"wrote"`
	Owns   []string `json:"owns,omitempty"`
}

// loadFiles reads the directory's manifest, or starts one (written at
// once, so that the directory is a run's from now on).
func loadFiles(d *atomicfile.Dir) (*runFiles, error) {
	b, err := d.ReadFile(FilesName, maxStepFile)
	if errors.Is(err, fs.ErrNotExist) {
		f := &runFiles{Schema: FilesSchema, Wrote: []string{}}
		return f, f.save(d)
	}
	if err != nil {
		return nil, err
	}
	var f runFiles
	if err := json.Unmarshal(b, &f); err != nil || f.Schema != FilesSchema {
		return nil, fmt.Errorf("%s: not a servecmp run manifest (schema %q, want %q): %v", d.Join(FilesName), f.Schema, FilesSchema, err)
	}
	for _, e := range append(slices.Clone(f.Wrote), f.Owns...) {
		if !localEntry(e) {
			return nil, fmt.Errorf("%s: entry %q is not a name inside the directory", d.Join(FilesName), e)
		}
	}
	return &f, nil
}

// localEntry reports whether e names something inside the directory.
func localEntry(e string) bool {
	e = strings.TrimSuffix(e, "/")
	return e != "" && e != "." && !strings.HasPrefix(e, "/") && !slices.Contains(strings.Split(e, "/"), "..")
}

func (f *runFiles) save(d *atomicfile.Dir) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return d.Untracked().Write(FilesName, append(b, '\n'))
}

// add lists the entry rel (a folder when dir) and saves the manifest.
func (f *runFiles) add(d *atomicfile.Dir, rel string, dir bool) error {
	if dir {
		rel += "/"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.Wrote, rel) {
		return nil
	}
	f.Wrote = append(f.Wrote, rel)
	slices.Sort(f.Wrote)
	return f.save(d)
}

// own marks the listed folder rel as wholly the run's.
func (f *runFiles) own(d *atomicfile.Dir, rel string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.Wrote, rel+"/") {
		return fmt.Errorf("%s: not a folder this run made", d.Join(rel))
	}
	if !slices.Contains(f.Owns, rel+"/") {
		f.Owns = append(f.Owns, rel+"/")
		slices.Sort(f.Owns)
	}
	return f.save(d)
}

// remove removes what runs wrote at rel: the file rel, or in the folder
// rel the listed files, the owned folders whole, then the listed folders
// left empty (deepest first). Unlisted entries stay, and so do the
// folders that hold them.
func (f *runFiles) remove(d *atomicfile.Dir, rel string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	under := func(e string) bool { return e == rel || e == rel+"/" || strings.HasPrefix(e, rel+"/") }
	for _, o := range f.Owns {
		if under(o) {
			if err := d.RemoveAll(strings.TrimSuffix(o, "/")); err != nil {
				return err
			}
		}
	}
	var keep, dirs []string
	for _, e := range f.Wrote {
		switch {
		case !under(e):
			keep = append(keep, e)
		case strings.HasSuffix(e, "/"):
			dirs = append(dirs, e)
		default:
			if err := d.Remove(e); err != nil {
				return err
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, e := range dirs {
		if d.Remove(strings.TrimSuffix(e, "/")) != nil {
			keep = append(keep, e) // holds what the run did not write: it stays, still listed
		}
	}
	f.Owns = slices.DeleteFunc(f.Owns, func(o string) bool { return under(o) && !slices.Contains(keep, o) })
	slices.Sort(keep)
	f.Wrote = append([]string{}, keep...)
	return f.save(d)
}
