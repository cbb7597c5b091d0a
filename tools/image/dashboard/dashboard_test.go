// The dashboard is Grafana's classic JSON model, the one its import takes
// and deploy/grafana holds (schemaVersion, panels with gridPos), which
// dashboard.Dashboard decodes; dashboardv2 is the newer resource format.
//
//lint:file-ignore SA1019 dashboard.Dashboard is the classic model the file is in
package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/advisor"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// The dashboard's schema versions this check accepts: from 36, since which
// panels and targets name their datasource by reference ({type, uid}), to
// the SDK's own, the newest its model knows.
const minSchemaVersion = 36

var dashboardPath = filepath.Join("..", "..", "..", "deploy", "grafana", "karpsim-advisor.json")

// TestDashboardImports decodes the dashboard strictly into Grafana's
// dashboard model, every panel's options and every target by its plugin's
// model (an unknown or mistyped field fails), and checks what an import
// needs: the schema version, unique panel ids, panels inside the 24-column
// grid without overlapping, every panel and target on the dashboard's
// Prometheus datasource variable, and every query parsing as PromQL and
// naming only metrics the advisor exports.
func TestDashboardImports(t *testing.T) {
	data, err := os.ReadFile(dashboardPath)
	require.NoError(t, err)
	d := decode(t, data)
	require.NotNil(t, d.Title)
	require.NotNil(t, d.Uid)
	assert.GreaterOrEqual(t, d.SchemaVersion, uint16(minSchemaVersion))
	assert.LessOrEqual(t, d.SchemaVersion, dashboard.NewDashboard().SchemaVersion, "newer than Grafana's model in the SDK")

	// The datasource variable the panels name.
	var variable string
	for _, v := range d.Templating.List {
		if v.Type == dashboard.VariableTypeDatasource && v.Query != nil && v.Query.String != nil && *v.Query.String == "prometheus" {
			require.Empty(t, variable, "one Prometheus datasource variable")
			variable = v.Name
		}
	}
	require.NotEmpty(t, variable, "a datasource variable of type prometheus")
	onVariable := func(where string, ref *common.DataSourceRef) {
		if assert.NotNil(t, ref, "%s: no datasource", where) {
			assert.Equal(t, "prometheus", deref(ref.Type), "%s: datasource type", where)
			assert.Equal(t, "${"+variable+"}", deref(ref.Uid), "%s: datasource uid", where)
		}
	}

	exported := exportedMetrics(t)
	ids := map[uint32]string{}
	var placed []placedPanel
	queries := 0
	for _, p := range panels(d) {
		where := fmt.Sprintf("panel %q", deref(p.Title))
		require.NotNil(t, p.Id, "%s: no id", where)
		if other, ok := ids[*p.Id]; ok {
			t.Errorf("%s: id %d is %q's too", where, *p.Id, other)
		}
		ids[*p.Id] = where
		if assert.NotNil(t, p.GridPos, "%s: no gridPos", where) {
			g := *p.GridPos
			assert.True(t, g.W >= 1 && g.H >= 1, "%s: empty gridPos %+v", where, g)
			assert.LessOrEqual(t, g.X+g.W, uint32(24), "%s: gridPos %+v past the 24 columns", where, g)
			for _, q := range placed {
				assert.False(t, overlap(g, q.pos), "%s (gridPos %+v) overlaps %s (%+v)", where, g, q.where, q.pos)
			}
			placed = append(placed, placedPanel{where, g})
		}
		onVariable(where, p.Datasource)
		require.NotEmpty(t, p.Targets, "%s: no query", where)
		for i, target := range p.Targets {
			tw := fmt.Sprintf("%s target %d", where, i)
			q, ok := target.(*prometheus.Dataquery)
			require.True(t, ok, "%s: a %T, not a Prometheus query", tw, target)
			onVariable(tw, q.Datasource)
			names, err := metricNames(q.Expr)
			require.NoError(t, err, "%s: %s", tw, q.Expr)
			assert.NotEmpty(t, names, "%s: %s names no metric", tw, q.Expr)
			for _, name := range names {
				assert.True(t, exported[name], "%s queries %s, which the advisor does not export", tw, name)
			}
			queries++
		}
	}
	assert.GreaterOrEqual(t, queries, 15)
}

// TestDashboardDecodingIsStrict: a field Grafana's model does not have, on
// the dashboard, a panel or a target, fails the decoding, and so does a
// query that is not PromQL: the checks above can fail.
func TestDashboardDecodingIsStrict(t *testing.T) {
	data, err := os.ReadFile(dashboardPath)
	require.NoError(t, err)
	for _, c := range []struct{ old, new string }{
		{`"schemaVersion":`, `"schemaVersoin": 1, "schemaVersion":`},
		{`"gridPos": {`, `"gridPos": {"z": 1, `},
		{`"refId": "A",`, `"refId": "A", "exrp": "up",`},
	} {
		bad := strings.Replace(string(data), c.old, c.new, 1)
		require.NotEqual(t, string(data), bad, "the dashboard has %s", c.old)
		var d dashboard.Dashboard
		assert.Error(t, strict(&d, []byte(bad)), "with %s", c.new)
	}
	_, err = metricNames(`sum(karpsim_cluster_nodes) by`)
	assert.Error(t, err)
	names, err := metricNames(`sum by (method) (rate(karpsim_evaluations_total{kind="changes"}[5m])) / on() group_left karpsim_pending_pods`)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"karpsim_evaluations_total", "karpsim_pending_pods"}, names)
}

func decode(t *testing.T, data []byte) dashboard.Dashboard {
	t.Helper()
	var d dashboard.Dashboard
	require.NoError(t, strict(&d, data), "decoding %s strictly into Grafana's dashboard model", dashboardPath)
	// The strict decoding checks; the plain one fills the model, panels
	// and targets included (see strict).
	d = dashboard.Dashboard{}
	require.NoError(t, json.Unmarshal(data, &d))
	return d
}

// strict decodes data strictly into d, every panel's options and targets
// by their plugins' models. The SDK (v0.0.22) returns its list of errors
// even when empty, a nil cog.BuildErrors in a non-nil error: that is no
// error. The same slip drops panels and targets that decoded without an
// error from d, so the caller reads the model from a plain decoding.
func strict(d *dashboard.Dashboard, data []byte) error {
	plugins.RegisterDefaultPlugins()
	err := d.UnmarshalJSONStrict(data)
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

// panels are the dashboard's panels, those of rows included.
func panels(d dashboard.Dashboard) []dashboard.Panel {
	var out []dashboard.Panel
	for _, p := range d.Panels {
		switch {
		case p.Panel != nil:
			out = append(out, *p.Panel)
		case p.RowPanel != nil:
			out = append(out, p.RowPanel.Panels...)
		}
	}
	return out
}

type placedPanel struct {
	where string
	pos   dashboard.GridPos
}

func overlap(a, b dashboard.GridPos) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// metricNames parses a PromQL expression and returns the metric names its
// selectors name.
func metricNames(expr string) ([]string, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			for _, m := range vs.LabelMatchers {
				if m.Name == model.MetricNameLabel && m.Type == labels.MatchEqual {
					names = append(names, m.Value)
				}
			}
		}
		return nil
	})
	return names, nil
}

// exportedMetrics are the names of the series the advisor exports, from a
// run over a cluster with an empty node and a pending pod (every family
// then has a series), histograms' _bucket, _sum and _count included.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	set, err := manifests.Load(filepath.Join("..", "..", "..", "testdata", "disrupt", "empty-node", "input.yaml"))
	require.NoError(t, err)
	_, at := snapshot.TimeRange(set)
	pending := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "api-0", Namespace: "default", CreationTimestamp: metav1.NewTime(at)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}},
	}
	m := &cloud.MemoryCluster{}
	m.Set(cloud.ClusterState{Pods: append(set.Pods, pending), Nodes: set.Nodes, NodeClaims: set.NodeClaims,
		PDBs: set.PodDisruptionBudgets, NodePools: set.NodePools, EC2NodeClasses: set.EC2NodeClasses, DaemonSets: set.DaemonSets})
	a := advisor.New(m, advisor.Config{Period: time.Hour, Now: func() time.Time { return at }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-a.Ready():
	case <-time.After(60 * time.Second):
		t.Fatalf("the advisor did not evaluate within 60 s: %+v", a.Status())
	}
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
	for _, name := range []string{"karpsim_disruption_candidate_nodes", "karpsim_node_not_disrupted", "karpsim_provisioning_plan_nodeclaims"} {
		require.True(t, exported[name], "the run exports %s", name)
	}
	return exported
}

var _ variants.Dataquery = (*prometheus.Dataquery)(nil)
