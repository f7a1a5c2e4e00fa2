package tokenizer

import (
	"fmt"
)

// precompiled is SentencePiece's precompiled character map normalizer.
func precompiled(charsmap string) (normFunc, error) {
	if charsmap == "" {
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported normalizer Precompiled (SentencePiece charsmap)")
}
