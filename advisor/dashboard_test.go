package advisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardQueriesTheMetrics reads deploy/grafana/karpsim-advisor.json
// as Grafana imports it (a dashboard with panels, each with Prometheus
// targets) and checks that every metric its queries name is one the
// advisor exports, so that a renamed metric cannot leave a panel empty.
func TestDashboardQueriesTheMetrics(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", "karpsim-advisor.json"))
	require.NoError(t, err)
	var d struct {
		Title         string `json:"title"`
		UID           string `json:"uid"`
		SchemaVersion int    `json:"schemaVersion"`
		Panels        []struct {
			ID      int    `json:"id"`
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(data, &d))
	require.NotEmpty(t, d.Title)
	require.NotEmpty(t, d.UID)
	require.Positive(t, d.SchemaVersion)

	m, at := memoryCluster(t, "empty-node")
	require.NoError(t, m.Apply(pendingPod("api-0")))
	a := New(m, Config{Period: time.Hour, Now: func() time.Time { return at }})
	a.evaluate(true)
	families, err := a.Registry().Gather()
	require.NoError(t, err)
	exported := map[string]bool{}
	for _, f := range families {
		exported[f.GetName()] = true
		if f.GetType().String() == "HISTOGRAM" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				exported[f.GetName()+suffix] = true
			}
		}
	}
	metric := regexp.MustCompile(`\bkarpsim_[a-z_]+`)
	ids := map[int]bool{}
	queries := 0
	for _, p := range d.Panels {
		assert.False(t, ids[p.ID], "panel id %d twice", p.ID)
		ids[p.ID] = true
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, target := range p.Targets {
			names := metric.FindAllString(target.Expr, -1)
			assert.NotEmpty(t, names, "panel %q: %s names no karpsim metric", p.Title, target.Expr)
			for _, name := range names {
				assert.True(t, exported[name], "panel %q queries %s, which the advisor does not export", p.Title, name)
			}
			queries++
		}
	}
	assert.GreaterOrEqual(t, queries, 15)
}
