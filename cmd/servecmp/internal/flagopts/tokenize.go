package flagopts

import (
	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/tokenizer/tokenize"
)

// Tokenize registers the flags of servecmp tokenize on fs and returns the
// options they fill; the command adds its TEXT arguments.
func Tokenize(fs *pflag.FlagSet) *tokenize.Options {
	o := &tokenize.Options{}
	fs.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file (required)")
	fs.StringVar(&o.File, "file", "", "JSONL file: encode --field of every line")
	fs.StringVar(&o.Field, "field", "text", "field of --file's lines")
	fs.StringVar(&o.Format, "format", "json", "output: json (one object per text) or text")
	fs.BoolVar(&o.Special, "special", false, "add the special tokens the tokenizer's post-processor adds (BOS, CLS/SEP)")
	fs.StringVar(&o.Template, "chat-template", "", "Jinja chat template: render --messages, then encode the result")
	fs.StringVar(&o.Messages, "messages", "", "JSON file with the messages to render ([{\"role\", \"content\"}, …])")
	fs.BoolVar(&o.NoGenPrompt, "no-generation-prompt", false, "render without the generation prompt")
	return o
}
