package simulator

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/manifests"
)

const webPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: CLASS}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
`

func pool(class string) string { return strings.ReplaceAll(webPool, "CLASS", class) }

// A bad manifest in a nodePool or nodeClass step fails when the scenario is
// loaded, naming the file, the line the step starts at and the step, instead of
// turning into a step-failed decision mid-run.
func TestLoadScenarioRefusesBadStepManifests(t *testing.T) {
	for name, c := range map[string]struct{ step, want string }{
		"nodePool with a weight over 100": {
			step: "- at: 5m\n  nodePool:\n    manifest: |\n      apiVersion: karpenter.sh/v1\n      kind: NodePool\n      metadata: {name: web}\n      spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, requirements: []}}, weight: 1000}\n",
			want: `steps[1] (nodePool web): nodePool manifest: NodePool/web: spec.weight: 1000 is out of range`,
		},
		"nodePool that is a Pod": {
			step: "- at: 5m\n  nodePool: {manifest: \"apiVersion: v1\\nkind: Pod\\nmetadata: {name: x}\\nspec: {containers: [{name: a, image: b}]}\\n\"}\n",
			want: `steps[1] (nodePool x): the manifest holds 0 NodePools, want 1`,
		},
		"nodeClass that is a Pod": {
			step: "- at: 5m\n  nodeClass: {manifest: \"apiVersion: v1\\nkind: Pod\\nmetadata: {name: x}\\nspec: {containers: [{name: a, image: b}]}\\n\"}\n",
			want: `steps[1] (nodeClass x): the manifest holds 0 EC2NodeClasses and 0 AKSNodeClasses, want 1 node class`,
		},
		"nodeClass without a role": {
			step: "- at: 5m\n  nodeClass:\n    manifest: |\n      apiVersion: karpenter.k8s.aws/v1\n      kind: EC2NodeClass\n      metadata: {name: default}\n      spec: {amiSelectorTerms: [{alias: al2023@latest}], subnetSelectorTerms: [{tags: {a: b}}], securityGroupSelectorTerms: [{tags: {a: b}}]}\n",
			want: `steps[1] (nodeClass default): nodeClass manifest: EC2NodeClass/default`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "bad.yaml")
			doc := "name: bad\nduration: 10m\ninline: \"\"\nsteps:\n- {at: 1m, scale: {deployment: inflate, replicas: 1}}\n" + c.step
			require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
			_, err := LoadScenario(file)
			require.ErrorIs(t, err, ErrInvalidScenario)
			assert.ErrorContains(t, err, file+":6: invalid scenario: "+c.want)
		})
	}
}

// Run converts a scenario built in Go the same way, before the first event.
func TestRunRefusesBadStepManifestsBeforeTheRun(t *testing.T) {
	_, err := Run(context.Background(), Scenario{Duration: dur(time.Minute), Inline: inflate, Steps: []Step{
		scaleAt(0, 1),
		{At: dur(time.Second), NodeClass: &NodeClassStep{Manifest: "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, image: b}]}\n"}},
	}}, Config{CheckInvariants: true})
	require.ErrorIs(t, err, ErrInvalidScenario)
	assert.ErrorContains(t, err, "steps[1]: the manifest holds 0 EC2NodeClasses and 0 AKSNodeClasses, want 1 node class")
}

// A nodePool step may use an EC2NodeClass the run started with (it used to
// fail: its manifest was checked alone, without the run's classes), and one
// that names a class the run does not know yet is a step-failed decision.
func TestNodePoolStepUsesTheRunsNodeClasses(t *testing.T) {
	r := run(t, Scenario{Duration: dur(5 * time.Minute), Steps: []Step{
		{At: dur(time.Second), NodePool: &NodePoolStep{Manifest: pool("default")}},
		{At: dur(2 * time.Second), NodePool: &NodePoolStep{Manifest: strings.Replace(pool("later"), "name: web", "name: batch", 1)}},
		scaleAt(time.Minute, 3),
	}})
	changed := kinds(r, KindNodePoolChanged)
	require.Len(t, changed, 1, timeline(r))
	assert.Equal(t, "NodePool web replaced", changed[0].Reason)
	failed := kinds(r, KindStepFailed)
	require.Len(t, failed, 1, timeline(r))
	assert.Contains(t, failed[0].Reason, "steps[1]: NodePool batch: its EC2NodeClass is not one the run knows")
	require.NotEmpty(t, kinds(r, KindLaunch), timeline(r))
}

// The engine runs converted steps: only the loaders (scenario.go, plan.go,
// load.go, positions.go) may decode YAML or manifests.
func TestExecutionDecodesNoYAML(t *testing.T) {
	loaders := map[string]bool{"scenario.go": true, "plan.go": true, "load.go": true, "positions.go": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, file := range files {
		if loaders[file] || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			assert.NotContains(t, path, "yaml", "%s imports %s", file, path)
		}
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, call := range []string{"manifests.Decode", "manifests.Load", "ParseScenario("} {
			assert.NotContains(t, string(src), call, "%s decodes during the run", file)
		}
	}
}

// Errors from a scenario's steps all wrap ErrInvalidScenario and keep the
// manifests package's sentinel, so callers can tell them apart.
func TestStepManifestErrorsKeepTheirKind(t *testing.T) {
	_, err := ParseScenario([]byte("duration: 1m\nsteps:\n- at: 1s\n  nodePool: {manifest: \"apiVersion: karpenter.sh/v9\\nkind: NodePool\\nmetadata: {name: x}\\n\"}\n"))
	assert.True(t, errors.Is(err, ErrInvalidScenario) && errors.Is(err, manifests.ErrUnknownAPIVersion), "%v", err)
	assert.ErrorContains(t, err, "line 3: invalid scenario: steps[0] (nodePool x): nodePool manifest: NodePool/x: apiVersion")
}
