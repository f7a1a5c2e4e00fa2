package workload

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestLengthFlag(t *testing.T) {
	var in, out Length
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Var(&in, "input-len", "")
	fs.Var(&out, "output-len", "")
	if err := fs.Parse([]string{"--input-len", "64:256", "--output-len", "lognormal:5,0.5"}); err != nil {
		t.Fatal(err)
	}
	if in.String() != "64:256" || out.String() != "lognormal:5,0.5" || fs.Lookup("input-len").Value.Type() != "length" {
		t.Errorf("parsed %s and %s", in, out)
	}
	if err := fs.Parse([]string{"--input-len", "0:3"}); err == nil || in.String() != "64:256" {
		t.Errorf("a bad length was accepted (%v) or changed the value (%s)", err, in)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		err  error
		fail bool
	}{
		{ImportOptions{}.Validate(), false},
		{ImportOptions{OutputLen: -1}.Validate(), true},
		{ShareGPTOptions{Num: 3, MinLen: 4}.Validate(), false},
		{ShareGPTOptions{MaxTotalLen: -1}.Validate(), true},
		{ShareGPTOptions{ImportOptions: ImportOptions{OutputLen: -2}}.Validate(), true},
	} {
		if (tc.err != nil) != tc.fail {
			t.Errorf("got %v, want failure %v", tc.err, tc.fail)
		}
	}
}
