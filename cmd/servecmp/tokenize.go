package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/tokenizer/tokenize"
)

func newTokenizeCmd(e *env) *cobra.Command {
	var o tokenize.Options
	cmd := &cobra.Command{
		Use:   "tokenize --tokenizer FILE [TEXT...]",
		Short: "Encode text (or a JSONL field, or a rendered chat) and print ids, count and pieces",
		RunE: func(c *cobra.Command, args []string) error {
			o.Texts = args
			err := tokenize.Run(c.Context(), o, e.stdout)
			if fe := tokenize.FlagError(""); errors.As(err, &fe) {
				return usagef("%v", err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Tokenizer, "tokenizer", "", "tokenizer.json or GGUF file (required)")
	f.StringVar(&o.File, "file", "", "JSONL file: encode --field of every line")
	f.StringVar(&o.Field, "field", "text", "field of --file's lines")
	f.StringVar(&o.Format, "format", "json", "output: json (one object per text) or text")
	f.BoolVar(&o.Special, "special", false, "add the special tokens the tokenizer's post-processor adds (BOS, CLS/SEP)")
	f.StringVar(&o.Template, "chat-template", "", "Jinja chat template: render --messages, then encode the result")
	f.StringVar(&o.Messages, "messages", "", "JSON file with the messages to render ([{\"role\", \"content\"}, …])")
	f.BoolVar(&o.NoGenPrompt, "no-generation-prompt", false, "render without the generation prompt")
	return cmd
}
