package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
)

// fakeCluster is an environment whose cluster is fake clients holding the
// objects of a manifest file.
func fakeCluster(t *testing.T, path string) (environment, kubetest.Fakes) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	objs, err := kubetest.Objects(data)
	require.NoError(t, err)
	f := kubetest.New(objs...)
	return environment{connect: func(clusterOptions) (kube.Clients, string, error) {
		return f.Clients, "context fake (fake clients)", nil
	}}, f
}

func runEnv(env environment, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runIn(env, args, nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// clusterScenarios are the golden scenarios a cluster can hold as they
// are: no Jobs and no Karpenter v1beta1 objects (the API server converts
// them). A workload controller's pods the fake cluster lacks are made by
// the snapshot from the files and from the cluster alike.
func clusterScenarios(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*", "input.yaml"))
	require.NoError(t, err)
	// The watcher reads no Jobs, and kube-scheduler's configuration is no
	// object of the API: scenarios with them are for files only.
	workloads := regexp.MustCompile(`(?m)^kind: (Job|KubeSchedulerConfiguration)$|karpenter\.(sh|k8s\.aws)/v1beta1`)
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if !workloads.Match(data) {
			out = append(out, p)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// noWrites checks that a command only listed and watched.
func noWrites(t *testing.T, f kubetest.Fakes) {
	t.Helper()
	for _, a := range append(f.Core.Actions(), f.Dynamic.Actions()...) {
		assert.Contains(t, []string{"list", "watch"}, a.GetVerb(), "%s %s", a.GetVerb(), a.GetResource().Resource)
	}
}

// TestClusterDecidesWhatTheFilesDecide runs plan, disrupt and explain
// against fake clients holding a scenario's objects and against the
// scenario's file, and wants byte-identical standard output.
func TestClusterDecidesWhatTheFilesDecide(t *testing.T) {
	t.Parallel()
	for _, path := range shortSample(t, clusterScenarios(t, "plan")) {
		t.Run("plan/"+filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			t.Parallel()
			for _, output := range []string{"table", "json"} {
				env, f := fakeCluster(t, path)
				// The JSON is the golden test's where the scenario has no
				// args file (runGolden).
				code, want, stderr := runShared("plan", "-f", path, "-o", output)
				require.Equal(t, 0, code, stderr)
				code, got, stderr := runEnv(env, "plan", "--kubeconfig", "fake", "-o", output)
				require.Equal(t, 0, code, stderr)
				assert.Equal(t, want, got)
				assert.Contains(t, stderr, "from context fake (fake clients)")
				assert.Contains(t, stderr, "instance types and prices from karpsim's embedded EC2 model")
				noWrites(t, f)
			}
		})
	}
	atLine := regexp.MustCompile(`evaluating at (\S+),`)
	for _, path := range shortSample(t, clusterScenarios(t, "disrupt")) {
		t.Run("disrupt/"+filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCmd("disrupt", "-f", path)
			require.Equal(t, 0, code, stderr)
			at := atLine.FindStringSubmatch(stderr)
			require.NotNil(t, at, stderr)
			for _, output := range []string{"table", "json"} {
				env, f := fakeCluster(t, path)
				code, want, stderr := runCmd("disrupt", "-f", path, "--at", at[1], "-o", output)
				require.Equal(t, 0, code, stderr)
				code, got, stderr := runEnv(env, "disrupt", "--context", "fake", "--at", at[1], "-o", output)
				require.Equal(t, 0, code, stderr)
				assert.Equal(t, want, got)
				noWrites(t, f)
			}
		})
	}
}

func TestExplainAgainstACluster(t *testing.T) {
	t.Parallel()
	path := disruptScenario("do-not-disrupt-and-pdb")
	env, _ := fakeCluster(t, path)
	_, want, _ := runCmd("explain", "node", "ip-10-0-2-11.ec2.internal", "-f", path, "--at", "2026-03-03T12:00:00Z")
	code, got, stderr := runEnv(env, "explain", "node", "ip-10-0-2-11.ec2.internal", "--context", "fake", "--at", "2026-03-03T12:00:00Z")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
	assert.Contains(t, got, "blocked by PDB shop/ledger")

	code, _, stderr = runEnv(env, "explain", "node", "ip-10-0-9-99.ec2.internal", "--context", "fake")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "explain node ip-10-0-9-99.ec2.internal: no such node (nodes: ip-10-0-1-10.ec2.internal, ip-10-0-2-11.ec2.internal)")

	plan := scenario("fits-existing-node")
	env, _ = fakeCluster(t, plan)
	_, want, _ = runCmd("plan", "-f", plan, "--explain", "shop/worker")
	code, got, stderr = runEnv(env, "explain", "pod", "shop/worker", "--context", "fake")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
}

func TestExplainNodeSaysWhatDeletesIt(t *testing.T) {
	code, stdout, stderr := runCmd("explain", "node", "ip-10-0-1-10.ec2.internal", "-f", disruptScenario("empty-node"))
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"Node ip-10-0-1-10.ec2.internal", "disrupted:", "why:"} {
		assert.Contains(t, stdout, want)
	}
	code, _, stderr = runCmd("explain", "node")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "give the node NAME")
	code, _, _ = runCmd("explain")
	assert.Equal(t, 2, code)
}

func TestNodePoolFileAppliesAnEdit(t *testing.T) {
	path := scenario("fits-existing-node")
	env, _ := fakeCluster(t, path)
	edit := filepath.Join(t.TempDir(), "nodepool.yaml")
	require.NoError(t, os.WriteFile(edit, []byte(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.24xlarge]}
`), 0o600))
	code, fromFile, stderr := runCmd("plan", "-f", path, "--nodepool-file", edit)
	require.Equal(t, 0, code, stderr)
	code, fromCluster, stderr := runEnv(env, "plan", "--context", "fake", "--nodepool-file", edit)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "--nodepool-file "+edit+": NodePool default applied")
	assert.Equal(t, fromFile, fromCluster)
}

// TestClusterErrors: each way of not being able to read the cluster gives
// one error naming what is missing, exit code 1, and no write.
func TestClusterErrors(t *testing.T) {
	refuse := func(err error) k8stesting.ReactionFunc {
		return func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, err }
	}
	path := disruptScenario("empty-node")
	for _, tc := range []struct {
		name    string
		dynamic bool
		res     string
		err     error
		says    string
	}{
		{"RBAC forbids nodeclaims", true, "nodeclaims", apierrors.NewForbidden(schema.GroupResource{Group: "karpenter.sh", Resource: "nodeclaims"}, "", errors.New(`User "dev" cannot list resource`)),
			"list nodeclaims.karpenter.sh: forbidden: the credentials may not list and watch nodeclaims.karpenter.sh cluster-wide"},
		{"CRDs not installed", true, "nodepools", apierrors.NewNotFound(schema.GroupResource{Group: "karpenter.sh", Resource: "nodepools"}, ""),
			"install Karpenter's CRDs (the CustomResourceDefinition nodepools.karpenter.sh)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, f := fakeCluster(t, path)
			if tc.dynamic {
				f.Dynamic.PrependReactor("list", tc.res, refuse(tc.err))
			}
			for _, args := range [][]string{{"plan", "--context", "fake"}, {"disrupt", "--context", "fake"}} {
				code, stdout, stderr := runEnv(env, args...)
				assert.Equal(t, 1, code)
				assert.Empty(t, stdout)
				assert.Contains(t, stderr, tc.says)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
				assert.NotContains(t, stderr, "panic")
			}
			noWrites(t, f)
		})
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: dev
  user: {token: t}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: dev}
current-context: nowhere
`), 0o600))
	code, _, stderr := runCmd("plan", "--kubeconfig", kubeconfig, "--context", "prod")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `kubeconfig `+kubeconfig+`: no context "prod" (contexts: nowhere)`)

	code, _, stderr = runCmd("disrupt", "--kubeconfig", kubeconfig)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "reading context nowhere (https://127.0.0.1:1): kube: list pods: unreachable: https://127.0.0.1:1 did not answer")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)

	code, _, stderr = runCmd("plan", "--kubeconfig", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "kubeconfig")

	code, _, stderr = runCmd("plan", "--kubeconfig", kubeconfig, "-f", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "give one")
}

func TestCatalogFlag(t *testing.T) {
	t.Parallel()
	code, catalog, stderr := runCmd("instance-types", "-o", "json")
	require.Equal(t, 0, code, stderr)
	file := filepath.Join(t.TempDir(), "catalog.json")
	require.NoError(t, os.WriteFile(file, []byte(catalog), 0o600))
	path := scenario("spot-over-on-demand")
	env, _ := fakeCluster(t, path)
	code, fromFile, stderr := runCmd("plan", "-f", path, "--catalog", file)
	require.Equal(t, 0, code, stderr)
	code, fromCluster, stderr := runEnv(env, "plan", "--context", "fake", "--catalog", file)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fromFile, fromCluster)
	assert.Contains(t, stderr, "instance types and prices from the catalog "+file+", not from the cluster or the cloud")

	code, _, stderr = runCmd("plan", "-f", path, "--catalog", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.json")
}

// TestNodePoolFileGivesTheSchedulerConfiguration: kube-scheduler's
// configuration is no object of the API; given with --nodepool-file over a
// cluster holding the rest of the default-spread scenario, plan decides as
// from the scenario's file.
func TestNodePoolFileGivesTheSchedulerConfiguration(t *testing.T) {
	path := scenario("default-spread")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	config, rest, ok := strings.Cut(string(data), "\n---\n")
	require.True(t, ok)
	require.Contains(t, config, "kind: KubeSchedulerConfiguration")
	dir := t.TempDir()
	clusterPath, configPath := filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "scheduler.yaml")
	require.NoError(t, os.WriteFile(clusterPath, []byte(rest), 0o600))
	require.NoError(t, os.WriteFile(configPath, []byte(config), 0o600))
	env, f := fakeCluster(t, clusterPath)

	code, want, stderr := runCmd("plan", "-f", path)
	require.Equal(t, 0, code, stderr)
	code, without, stderr := runEnv(env, "plan", "--context", "fake")
	require.Equal(t, 0, code, stderr)
	assert.NotEqual(t, want, without, "the default spread changes the plan")
	code, got, stderr := runEnv(env, "plan", "--context", "fake", "--nodepool-file", configPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "--nodepool-file "+configPath+": KubeSchedulerConfiguration applied")
	assert.Equal(t, want, got)
	noWrites(t, f)
}

// TestClusterGivesDRAObjects: with --dra, the DeviceClasses,
// ResourceClaimTemplates and ResourceClaims read from a cluster decide as
// those of the file do.
func TestClusterGivesDRAObjects(t *testing.T) {
	t.Parallel()
	path := scenario("dra-gpu")
	env, f := fakeCluster(t, path)
	code, want, stderr := runCmd("plan", "-f", path, "--dra")
	require.Equal(t, 0, code, stderr)
	code, without, stderr := runEnv(env, "plan", "--context", "fake")
	require.Equal(t, 0, code, stderr)
	assert.NotEqual(t, want, without, "DRA changes the plan")
	code, got, stderr := runEnv(env, "plan", "--context", "fake", "--dra")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "ResourceClaim")
	assert.Equal(t, want, got)
	noWrites(t, f)
}
