package classify

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/rules"
)

func TestWriteNamesAndLines(t *testing.T) {
	set, err := rules.Select("", "")
	if err != nil {
		t.Fatal(err)
	}
	nccl := "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
	unknown := "my_kernel_" + strings.Repeat("x", 100<<10) // longer than the read buffer
	var byArgs, byLines bytes.Buffer
	if err := WriteNames(&byArgs, set, false, []string{nccl, unknown}); err != nil {
		t.Fatal(err)
	}
	if err := WriteLines(context.Background(), &byLines, set, false, strings.NewReader(nccl+"\r\n\n"+unknown)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(byArgs.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "communication\t") || !strings.HasSuffix(lines[0], "\t"+nccl) ||
		lines[1] != "other\t-\t"+unknown {
		t.Errorf("WriteNames wrote %.200q", byArgs.String())
	}
	if byLines.String() != byArgs.String() {
		t.Errorf("WriteLines wrote %.200q, want what WriteNames wrote", byLines.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteLines(ctx, &byLines, set, false, strings.NewReader("a\n")); err == nil {
		t.Error("WriteLines ignored a cancelled context")
	}
}
