// Package tokenize is `servecmp tokenize`: encode texts (arguments, or a
// field of each line of a JSONL file) or a chat rendered with a template,
// with a tokenizer file, and print the ids, their count and the decoded
// piece of each id, as JSON lines or text.
//
// Counts are tokens (Encode: no BOS/EOS unless Special, which adds what
// the file's post-processor adds). Every input is read through the one
// input opener and bounded: a JSONL line over 64 MiB or a file of more
// than 1,000,000 lines is an error naming the file.
package tokenize

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/tokenizer"
	"github.com/servecmp/servecmp/tokenizer/chat"
)

// Options are the command's flags.
type Options struct {
	Tokenizer   string   // tokenizer.json or GGUF file (required)
	Texts       []string // texts to encode (arguments)
	File        string   // JSONL file: encode Field of every line
	Field       string   // field of File's lines (default "text")
	Format      string   // "json" (default) or "text"
	Special     bool     // add the post-processor's special tokens
	Template    string   // chat template file: render Messages, then encode
	Messages    string   // JSON file of [{"role", "content"}, …] for Template
	NoGenPrompt bool     // render without the generation prompt
}

// Bounds on JSONL input.
const (
	maxLine  = 64 << 20
	maxLines = 1_000_000
)

// Run executes the command: results go to stdout, one per text.
func Run(ctx context.Context, o Options, stdout io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	tok, err := tokenizer.Load(o.Tokenizer)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	emit := func(text string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return o.write(w, tok, text)
	}
	switch {
	case o.Template != "":
		text, err := o.render(ctx, tok)
		if err != nil {
			return err
		}
		return emit(text)
	case o.File != "":
		return eachField(o.File, o.Field, emit)
	}
	for _, t := range o.Texts {
		if err := emit(t); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the combination of options and fills defaults; Run
// calls it too. Its errors are a bad invocation, not a bad file.
func (o *Options) Validate() error {
	if o.Tokenizer == "" {
		return errors.New("--tokenizer FILE is required")
	}
	switch o.Format {
	case "":
		o.Format = "json"
	case "json", "text":
	default:
		return fmt.Errorf("--format %q: want json or text", o.Format)
	}
	n := 0
	for _, given := range []bool{len(o.Texts) > 0, o.File != "", o.Template != ""} {
		if given {
			n++
		}
	}
	if n != 1 {
		return errors.New("give exactly one input: TEXT arguments, --file FILE, or --chat-template FILE with --messages FILE")
	}
	if (o.Template == "") != (o.Messages == "") {
		return errors.New("--chat-template and --messages go together")
	}
	if o.Field == "" {
		o.Field = "text"
	}
	return nil
}

// result is one JSON output line.
type result struct {
	Text   string   `json:"text"`
	Count  int      `json:"count"`
	IDs    []int    `json:"ids"`
	Pieces []string `json:"pieces"`
}

func (o *Options) write(w io.Writer, tok *tokenizer.Tokenizer, text string) error {
	ids, err := tok.EncodeChecked(text)
	if err != nil {
		return err
	}
	if o.Special {
		ids = tok.EncodeSpecial(text)
	}
	pieces := make([]string, len(ids))
	for i, id := range ids {
		pieces[i] = tok.PieceText(id)
	}
	if o.Format == "json" {
		line, err := json.Marshal(result{Text: text, Count: len(ids), IDs: ids, Pieces: pieces})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", line)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tokens:", len(ids))
	for i, id := range ids {
		fmt.Fprintf(&b, " %d=%q", id, pieces[i])
	}
	_, err = fmt.Fprintln(w, b.String())
	return err
}

// eachField calls fn with field of every line of a JSONL file.
func eachField(path, field string, fn func(string) error) error {
	f, err := infile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
	line := 0
	for sc.Scan() {
		line++
		if line > maxLines {
			return fmt.Errorf("%s: more than %d lines", path, maxLines)
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object: %v", path, line, err)
		}
		var text string
		if err := json.Unmarshal(rec[field], &text); err != nil {
			return fmt.Errorf("%s:%d: field %q is missing or not a string", path, line, field)
		}
		if err := fn(text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %v", path, line+1, err)
	}
	return nil
}

// render renders the messages file with the chat template; the special
// tokens come from the tokenizer (none when the file names none).
func (o *Options) render(ctx context.Context, tok *tokenizer.Tokenizer) (string, error) {
	tp, err := chat.ParseFile(o.Template)
	if err != nil {
		return "", err
	}
	data, err := infile.ReadFile(o.Messages)
	if err != nil {
		return "", err
	}
	var msgs []chat.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return "", fmt.Errorf("%s: want a JSON array of {\"role\", \"content\"}: %v", o.Messages, err)
	}
	opt := chat.Options{AddGenerationPrompt: !o.NoGenPrompt}
	if id, ok := tok.TokenID("bos"); ok {
		opt.BOSToken = tok.Piece(id)
	}
	if id, ok := tok.TokenID("eos"); ok {
		opt.EOSToken = tok.Piece(id)
	}
	return tp.RenderContext(ctx, msgs, opt)
}
