package advisor

import (
	"bytes"
	"flag"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/chromium"
)

var updateScreenshot = flag.Bool("update", false, "write the live page's screenshot to docs/serve-page.png")

// TestPageRendersInChromium opens the live page in headless Chromium over
// an advisor of the do-not-disrupt-and-pdb golden with a pending pod: the
// script fetches the status and fills a row per node with its reason, the
// plan and the advice, with no console error, and the screenshot is not
// blank. With -update it is written to docs/ for docs/serve.md.
func TestPageRendersInChromium(t *testing.T) {
	browser := chromium.Require(t)
	m, at := memoryCluster(t, "do-not-disrupt-and-pdb")
	require.NoError(t, m.Apply(pendingPod("api-0")))
	a := New(m, Config{Period: time.Hour, Now: func() time.Time { return at }})
	a.evaluate(true)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	dir := t.TempDir()

	dom, log := chromium.Run(t, browser, dir, "--virtual-time-budget=5000", "--dump-dom", srv.URL+"/")
	chromium.NoConsoleErrors(t, log)
	assert.Contains(t, dom, `data-loaded="true"`, "the page's script fetched the status")
	s := a.Status()
	for _, n := range s.Answer.Nodes {
		assert.Contains(t, dom, `data-node="`+n.Name+`"`)
		assert.Contains(t, dom, n.Reason)
	}
	require.Len(t, s.Answer.Pending.NodeClaims, 1)
	assert.Contains(t, dom, s.Answer.Pending.NodeClaims[0].InstanceType)
	assert.Contains(t, dom, "Managed nodes cost $")

	shot := filepath.Join(dir, "page.png")
	chromium.Run(t, browser, dir, "--virtual-time-budget=5000", "--screenshot="+shot, "--window-size=1300,800", srv.URL+"/")
	data, err := os.ReadFile(shot)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Greater(t, chromium.InkedFraction(img), 0.02, "the screenshot is blank")
	if *updateScreenshot {
		require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "serve-page.png"), data, 0o644))
	}
}
