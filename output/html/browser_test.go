package html

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/output/plots"
	"github.com/servecmp/servecmp/output/present"
)

// The browser tests open the page in headless Chromium (Debian's
// "chromium" package) and skip where no chromium binary is installed.
//
// Criterion for "no console errors": the page carries no script, so any
// console message at all means something went wrong. Chromium started
// with --enable-logging=stderr --v=0 writes each console message of the
// page to stderr as a line with ":CONSOLE" (":CONSOLE:12]" or
// ":CONSOLE(12)]" by version): uncaught JavaScript errors, and, because
// the page's Content-Security-Policy forbids every source but inline
// styles and data: URLs, every attempt to load a script, style sheet,
// image or font from elsewhere ("Loading the image ... violates the
// following Content Security Policy directive"). A failed load is not
// logged by Chromium on its own, which is why the page's policy is also
// checked in the parsed DOM. Lines with "net::ERR_" count too. Chromium's
// own noise on a machine without a desktop (D-Bus, sandbox) is not from
// the page and is ignored. TestBrowserCatchesErrors checks, with the same
// Chromium, that a page with a broken image and a throwing script fails
// this criterion, so that a Chromium that stops logging cannot make the
// check pass silently.

var consoleLine = regexp.MustCompile(`:CONSOLE[:(]|net::ERR_|Uncaught `)

// consoleProblems returns the lines of a Chromium log that report a
// console message, a JavaScript error or a failed load.
func consoleProblems(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if consoleLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

func chromiumBin(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary (apt-get install chromium)")
	return ""
}

// chromium runs headless Chromium with args and returns its stdout and
// stderr; each run has its own profile and home under dir.
func chromium(t *testing.T, bin, dir string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prof, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + prof}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+prof, "XDG_CONFIG_HOME="+prof, "XDG_CACHE_HOME="+prof)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

func fileURL(path string) string { return "file://" + filepath.ToSlash(path) }

func TestBrowser(t *testing.T) {
	bin := chromiumBin(t)
	dir := t.TempDir()
	rep := hostile()
	pagePath := filepath.Join(dir, "report.html")
	if err := WriteFile(pagePath, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	_, log := chromium(t, bin, dir, "--window-size=1280,2000", "--screenshot="+shot, fileURL(pagePath))
	for _, l := range consoleProblems(log) {
		t.Errorf("console: %s", l)
	}
	checkScreenshot(t, shot)
	dom, log := chromium(t, bin, dir, "--dump-dom", fileURL(pagePath))
	for _, l := range consoleProblems(log) {
		t.Errorf("console (dump-dom): %s", l)
	}
	figs, err := plots.Figures(rep, plots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, t1, _, t2 := present.ComparisonLayers(rep)
	checkDOM(t, dom, len(figs), len(t1)+len(t2))
	checkOpening(t, dom, rep) // as the browser built it: conclusion, then the forest
	keepArtifacts(t, shot, pagePath)
}

// checkDOM checks the page as Chromium parsed it: every figure and table
// is an element, no name from a file became an element, and the policy
// that turns loads into console messages is in force.
func checkDOM(t *testing.T, dom string, figs, tables int) {
	t.Helper()
	low := strings.ToLower(dom)
	if n := strings.Count(low, "<svg "); n != figs {
		t.Errorf("DOM has %d <svg> elements, want %d", n, figs)
	}
	if n := strings.Count(low, "<table "); n != tables {
		t.Errorf("DOM has %d <table> elements, want %d", n, tables)
	}
	for _, bad := range []string{"<script", "<img", "<link"} {
		if strings.Contains(low, bad) {
			t.Errorf("DOM has a %s> element", bad)
		}
	}
	if !strings.Contains(dom, "&lt;script&gt;alert('k')&lt;/script&gt;") {
		t.Error("DOM lacks the kernel name as text")
	}
	if !strings.Contains(dom, `http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("DOM lacks the Content-Security-Policy")
	}
}

// checkScreenshot checks that the screenshot is a 1280×2000 picture with
// content: enough non-white pixels and colours, and the headline's
// background, which shows that the style sheet applied.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1280x2000", b.Size())
	}
	nonWhite, headline, colours := pixelStats(img)
	if total := img.Bounds().Dx() * img.Bounds().Dy(); nonWhite < total/20 {
		t.Errorf("screenshot is nearly blank: %d of %d pixels not white", nonWhite, total)
	}
	if headline < 10000 {
		t.Errorf("screenshot shows %d pixels of the headline background; the style sheet did not apply", headline)
	}
	if colours < 50 {
		t.Errorf("screenshot has %d colours; want text and tables", colours)
	}
}

func pixelStats(img image.Image) (nonWhite, headline, colours int) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 8, g >> 8, bl >> 8}
			seen[c] = true
			if c != [3]uint32{255, 255, 255} {
				nonWhite++
			}
			if c == [3]uint32{0xf4, 0xf6, 0xf8} {
				headline++
			}
		}
	}
	return nonWhite, headline, len(seen)
}

// keepArtifacts copies the screenshot and the page to $SERVECMP_ARTIFACTS
// when it is set; otherwise they stay in the test's temporary directory.
func keepArtifacts(t *testing.T, files ...string) {
	t.Helper()
	dir := os.Getenv("SERVECMP_ARTIFACTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("artifacts in %s", dir)
}

// TestBrowserCatchesErrors is the control of the console criterion: a
// page under the same policy with a broken image, an external style sheet
// and a throwing script must be reported.
func TestBrowserCatchesErrors(t *testing.T) {
	bin := chromiumBin(t)
	dir := t.TempDir()
	bad := "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n" +
		"<link rel=\"stylesheet\" href=\"missing.css\"><title>bad</title></head>\n<body><img src=\"missing.png\">\n" +
		"<script>undefinedFunction();</script></body></html>\n"
	path := filepath.Join(dir, "bad.html")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, log := chromium(t, bin, dir, "--window-size=800,600", "--screenshot="+filepath.Join(dir, "bad.png"), fileURL(path))
	got := strings.Join(consoleProblems(log), "\n")
	for _, want := range []string{"missing.css", "missing.png", "script"} {
		if !strings.Contains(got, want) {
			t.Errorf("console criterion missed %s; reported:\n%s\nlog:\n%s", want, got, log)
		}
	}
}
