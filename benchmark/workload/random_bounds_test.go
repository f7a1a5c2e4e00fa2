package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRandomStopsOnCancel(t *testing.T) {
	in, _ := ParseLength("64")
	out, _ := ParseLength("8")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := RandomContext(ctx, RandomSpec{Num: 1 << 22, InputLen: in, OutputLen: out})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(t0))
	}
}

func TestRandomBounds(t *testing.T) {
	l := func(s string) Length { x, _ := ParseLength(s); return x }
	for _, tc := range []struct {
		spec RandomSpec
		want string
	}{
		{RandomSpec{Num: MaxRandomRequests + 1, InputLen: l("4"), OutputLen: l("4")}, "--num must be in"},
		{RandomSpec{Num: 2, InputLen: l("4"), OutputLen: l("4"), PrefixLen: MaxMaxTokens + 1}, "--prefix-len must be in"},
		{RandomSpec{Num: 2, InputLen: l("100000000"), OutputLen: l("4")}, "a length above"},
		{RandomSpec{Num: 2, InputLen: l("4"), OutputLen: l("100000000")}, "a length above"},
		{RandomSpec{Num: 3, InputLen: l("4"), OutputLen: l("4"), RequestRate: 1e-6}, "would arrive after 86400 s"},
	} {
		if _, err := Random(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}
