package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://host:8000", "http://host:8000"},
		{"http://user:pass@host:8000/v1", "http://[redacted]@host:8000/v1"},
		{"https://token@host", "https://[redacted]@host"},
		{"http://user:p%40ss@host", "http://[redacted]@host"},
		{"http://user:pass@[::1", "http://[redacted]@[::1"}, // does not parse
		{"user:pass@host:80", "[redacted]@host:80"},         // no scheme
		{"host:80/a@b", "host:80/a@b"},
		{"", ""},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in      string
		secrets []string
		want    string
	}{
		{`Post "http://alice:***@127.0.0.1:9/v1": refused`, nil, `Post "http://[redacted]@127.0.0.1:9/v1": refused`},
		{"key sk-abcdef echoed twice sk-abcdef", []string{"sk-abcdef"}, "key [redacted] echoed twice [redacted]"},
		{"a b c", []string{"", "a"}, "a b c"}, // too short to scrub
		{"GET http://h/metrics and https://u:p@h2/x", nil, "GET http://h/metrics and https://[redacted]@h2/x"},
	} {
		if got := Text(tc.in, tc.secrets...); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClipScrubsFirst places a secret at every offset around the cut: no
// piece of it survives, and the result never exceeds the limit plus "…".
func TestClipScrubsFirst(t *testing.T) {
	const key, n = "sk-Q7fz9XwL2mRt", 40
	for off := range 80 {
		s := strings.Repeat("é", off/2) + strings.Repeat("x", off%2) + key + " tail"
		got := Clip(s, n, key)
		for i := 0; i+4 <= len(key); i++ {
			if strings.Contains(got, key[i:i+4]) {
				t.Fatalf("offset %d: %q leaks %q", off, got, key[i:i+4])
			}
		}
		if len(got) > n+len("…") || !utf8.ValidString(got) {
			t.Fatalf("offset %d: %q", off, got)
		}
	}
}

// TestSecretsHostile is the table of secrets a launch command line, a
// server's answer or a manifest value may carry: each must be masked,
// and the ordinary text around it kept.
func TestSecretsHostile(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"env VLLM_API_KEY=sk-abc123 python3 -m vllm", "env VLLM_API_KEY=[redacted] python3 -m vllm"},
		{"HF_TOKEN=hf_x python3", "HF_TOKEN=[redacted] python3"},
		{"vllm serve m --api-key s3cr3t --port 8000", "vllm serve m --api-key [redacted] --port 8000"},
		{"vllm serve m --api-key=s3cr3t", "vllm serve m --api-key=[redacted]"},
		{"--hf-token 'a b c' --x", "--hf-token '[redacted]' --x"},
		{`{"api_key": "abcd1234", "model": "m"}`, `{"api_key": "[redacted]", "model": "m"}`},
		{"Authorization: Bearer abcdef123456", "Authorization: [redacted] [redacted]"},
		{"header bearer abcdef123456 sent", "header bearer [redacted] sent"},
		{"key sk-proj-AAAAAAAAAAAAAAAAAAAA here", "key [redacted] here"},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123", "token [redacted]"},
		{"GET http://h/v1/models?api_key=abc&x=1", "GET http://h/v1/models?api_key=[redacted]&x=1"},
		{"http://u:p@h/x?token=t", "http://[redacted]@h/x?token=[redacted]"},
		{"AWS_SECRET_ACCESS_KEY=wJalr AKIAABCDEFGHIJKLMNOP", "AWS_SECRET_ACCESS_KEY=[redacted] [redacted]"},
		{"accessKey=xyz", "accessKey=[redacted]"},
		// ordinary text stays
		{"--api-key-file /run/key --tokenizer tok.json", "--api-key-file /run/key --tokenizer tok.json"},
		{"--max-num-batched-tokens 8192 --enable-auth --port 80", "--max-num-batched-tokens 8192 --enable-auth --port 80"},
		{"want key=value", "want key=value"},
		{"token counts disagree: max_tokens=32 token_ids=[1,2]", "token counts disagree: max_tokens=32 token_ids=[1,2]"},
		{"TOKENIZERS_PARALLELISM=false CUDA_VISIBLE_DEVICES=0", "TOKENIZERS_PARALLELISM=false CUDA_VISIBLE_DEVICES=0"},
		{`runs: unknown key "cout"`, `runs: unknown key "cout"`},
	} {
		if got := Secrets(tc.in); got != tc.want {
			t.Errorf("Secrets(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestCommand(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"env", "VLLM_API_KEY=sk-1", "vllm", "serve", "--api-key", "k1", "--port", "8"},
			[]string{"env", "VLLM_API_KEY=[redacted]", "vllm", "serve", "--api-key", "[redacted]", "--port", "8"}},
		{[]string{"sh", "-c", "OPENAI_API_KEY=abc exec vllm serve --api-key abc"},
			[]string{"sh", "-c", "OPENAI_API_KEY=[redacted] exec vllm serve --api-key [redacted]"}},
		{[]string{"x", "--token"}, []string{"x", "--token"}},
		{[]string{"x", "--auth", "--port", "1"}, []string{"x", "--auth", "--port", "1"}},
	} {
		got := Command(tc.in)
		if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
			t.Errorf("Command(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzSecrets(f *testing.F) {
	for _, s := range []string{"env A_KEY=x", "--api-key y", `"token":"z"`, "Bearer qqqqqqqq", "sk-aaaaaaaaaaaaaaaaaaaa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Secrets(s)
		if Secrets(got) != got {
			t.Errorf("not idempotent: %q → %q → %q", s, got, Secrets(got))
		}
		for _, secret := range []string{"sk-ZZZZZZZZZZZZZZZZZZZZ", "VLLM_API_KEY=ZZsecretZZ"} {
			if strings.Contains(Secrets(s+" "+secret), "ZZ") && !strings.Contains(s, "ZZ") {
				t.Errorf("%q after %q survives: %q", secret, s, Secrets(s+" "+secret))
			}
		}
	})
}
