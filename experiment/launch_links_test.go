package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchLogPlantedLink: a link planted in logs/ under an engine's log
// name, pointing out of the directory, is never written through: the
// file it points to stays as it was, and the launch is refused with one
// line naming the log (a log is appended to, so the link is not replaced).
func TestLaunchLogPlantedLink(t *testing.T) {
	o := opts(t)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"stdout", "stderr"} {
		if err := os.Symlink(victim, filepath.Join(o.LogDir, "engine-b."+kind)); err != nil {
			t.Skip(err)
		}
	}
	_, err := StartReady(context.Background(), launchSpec(t, "http://"+freeAddr(t)+"/v1/models", "exit"), o)
	if err == nil || !strings.Contains(err.Error(), "engine-b.stdout: is a symbolic link out of") {
		t.Fatalf("error %v, want one naming the log", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("a log followed the planted link: victim now %q", b)
	}
}
