package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
)

// maxJSONSize bounds a tokenizer.json read into memory.
const maxJSONSize = 1 << 30

// Load reads a Hugging Face tokenizer.json or a GGUF file, detected by
// content. Errors are one line naming the file.
func Load(path string) (*Tokenizer, error) {
	t, err := load(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %v", path, oneLine(err))
	}
	return t, nil
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

func load(path string) (*Tokenizer, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	h := sha256.New()
	var t *Tokenizer
	if n == 4 && string(head) == "GGUF" {
		t, err = loadGGUF(io.TeeReader(f, h), st.Size())
		if err == nil {
			_, err = io.Copy(h, f) // hash the rest of the file
		}
	} else {
		t, err = loadJSONFile(f, st.Size(), h)
	}
	if err != nil {
		return nil, err
	}
	t.path = path
	t.hash = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

func loadJSONFile(f *os.File, size int64, h io.Writer) (*Tokenizer, error) {
	if size > maxJSONSize {
		return nil, fmt.Errorf("file of %d bytes exceeds the %d-byte limit for tokenizer.json", size, maxJSONSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxJSONSize+1))
	if err != nil {
		return nil, err
	}
	h.Write(data)
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("neither a GGUF file nor a tokenizer.json (JSON object)")
	}
	t, err := parseHFJSON(data)
	if err != nil {
		return nil, err
	}
	readTokenizerConfig(f.Name(), t)
	return t, nil
}
