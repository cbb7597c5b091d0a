package helmchart

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	chartDir  = filepath.Join("..", "..", "deploy", "helm", "karpsim")
	manifests = filepath.Join("..", "..", "deploy", "kubernetes")
)

func read(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifests, name))
	require.NoError(t, err)
	objs, err := Split(data)
	require.NoError(t, err)
	return objs
}

// TestChartInstallsServeYAML: the chart with its defaults, released as
// karpsim in namespace karpsim, creates exactly the objects of serve.yaml
// (all but the Namespace, which Helm's --create-namespace makes).
func TestChartInstallsServeYAML(t *testing.T) {
	got, err := Render(chartDir, "karpsim", "karpsim", nil)
	require.NoError(t, err)
	var want []map[string]any
	for _, obj := range read(t, "serve.yaml") {
		if obj["kind"] != "Namespace" {
			want = append(want, obj)
		}
	}
	Sort(want)
	require.Equal(t, len(want), len(got))
	for i := range want {
		assert.Equal(t, want[i], got[i], key(want[i]))
	}
}

// TestChartServiceMonitor: with serviceMonitor.enabled the chart adds
// servicemonitor.yaml's ServiceMonitor; without, none.
func TestChartServiceMonitor(t *testing.T) {
	got, err := Render(chartDir, "karpsim", "karpsim", map[string]any{"serviceMonitor": map[string]any{"enabled": true}})
	require.NoError(t, err)
	want := read(t, "servicemonitor.yaml")
	require.Len(t, want, 1)
	var monitors []map[string]any
	for _, obj := range got {
		if obj["kind"] == "ServiceMonitor" {
			monitors = append(monitors, obj)
		}
	}
	require.Len(t, monitors, 1)
	assert.Equal(t, want[0], monitors[0])
}

// TestChartValues: the flags and the port follow the values.
func TestChartValues(t *testing.T) {
	got, err := Render(chartDir, "advisor", "ops", map[string]any{"debounce": "5s", "period": "10m", "port": 9090,
		"extraArgs": []any{"--spot-to-spot"}})
	require.NoError(t, err)
	var args []any
	for _, obj := range got {
		if obj["kind"] != "Deployment" {
			continue
		}
		meta := obj["metadata"].(map[string]any)
		assert.Equal(t, "advisor", meta["name"])
		assert.Equal(t, "ops", meta["namespace"])
		container := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		args = container["args"].([]any)
	}
	assert.Equal(t, []any{"serve", "--listen", ":9090", "--debounce", "5s", "--period", "10m", "--spot-to-spot"}, args)
}
