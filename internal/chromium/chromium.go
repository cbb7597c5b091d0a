// Package chromium runs headless Chromium for the tests that look at
// karpsim's pages as a person would (the reports, serve's live page): it
// finds the browser, runs it with the flags a sandboxed machine needs, and
// measures how much of a screenshot is not blank.
package chromium

import (
	"bytes"
	"context"
	"image"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// HowToInstall says how to get Chromium where it is missing.
const HowToInstall = "install Chromium to test the pages in a browser (Debian: apt-get install chromium)"

// Find returns the path of a Chromium on PATH, or "".
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// Require returns Chromium's path, or skips the test saying how to install
// it.
func Require(t testing.TB) string {
	t.Helper()
	browser := Find()
	if browser == "" {
		t.Skip("no Chromium: " + HowToInstall)
	}
	return browser
}

// Run runs headless Chromium with args after the flags a sandboxed test
// machine needs (no sandbox, GPU or background networking; a profile in
// dir), and returns its standard output and its log. It fails the test
// when Chromium fails or takes over a minute.
func Run(t testing.TB, browser, dir string, args ...string) (stdout, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + filepath.Join(dir, "profile")}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errs.String())
	}
	return out.String(), errs.String()
}

// InkedFraction is the share of an image's pixels that are not near white.
func InkedFraction(img image.Image) float64 {
	b := img.Bounds()
	inked, all := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			all++
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xE000 || g < 0xE000 || bl < 0xE000 {
				inked++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(inked) / float64(all)
}

// NoConsoleErrors fails the test for each console message or script error
// in Chromium's log.
func NoConsoleErrors(t testing.TB, log string) {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console message or script error: %s", line)
		}
	}
}
