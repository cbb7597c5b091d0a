package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
)

// azureGoldens is the tree of the Azure golden scenarios. They sit apart
// from testdata/{plan,disrupt,scenarios}, whose every scenario other tests
// also run against the AWS catalog, the Cluster Autoscaler's Auto Scaling
// Groups and a real API server holding Karpenter's AWS CRDs.
var azureGoldens = filepath.Join("..", "..", "testdata", "azure")

// TestAzureGolden runs `karpsim plan` and `karpsim disrupt` on every
// scenario folder under testdata/azure/{plan,disrupt} (input.yaml, the
// flags of an args file, README.md citing the upstream example) and
// `karpsim simulate --check` and `karpsim compare` on every
// testdata/azure/scenarios/NAME.yaml (with NAME.md), comparing the JSON
// with expected.json, NAME.expected.json or NAME.compare.json; -update
// rewrites them.
func TestAzureGolden(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"plan", "disrupt"} {
		dirs, err := filepath.Glob(filepath.Join(azureGoldens, command, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no Azure scenarios under testdata/azure/%s: %v", command, err)
		}
		for _, dir := range dirs {
			t.Run(command+"/"+filepath.Base(dir), func(t *testing.T) {
				t.Parallel()
				args := []string{command, "-f", filepath.Join(dir, "input.yaml"), "-o", "json"}
				if extra, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
					args = append(args, strings.Fields(string(extra))...)
				}
				code, stdout, stderr := runShared(args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				matchGolden(t, filepath.Join(dir, "expected.json"), []byte(stdout), command+" of "+dir)
				if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
					t.Errorf("scenario %s has no README.md saying why its expected output is right", dir)
				}
			})
		}
	}
	files, err := filepath.Glob(filepath.Join(azureGoldens, "scenarios", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Azure scenarios under testdata/azure/scenarios: %v", err)
	}
	for _, file := range files {
		base := strings.TrimSuffix(file, ".yaml")
		t.Run("simulate/"+filepath.Base(base), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"simulate", "-f", file, "--check", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			matchGolden(t, base+".expected.json", stdout.Bytes(), "simulate of "+file)
			stdout.Reset()
			if code := run([]string{"compare", "-f", file, "-o", "json"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("compare: exit %d: %s", code, stderr.String())
			}
			matchGolden(t, base+".compare.json", stdout.Bytes(), "compare of "+file)
			if _, err := os.Stat(base + ".md"); err != nil {
				t.Errorf("scenario %s has no %s.md saying why its timeline is Karpenter's", file, filepath.Base(base))
			}
		})
	}
}

// An AKS NodePool plans from Azure's VM sizes, in the region --region
// names, and --cloud azure gives the default NodePool Azure's.
func TestAzureCloudAndRegion(t *testing.T) {
	t.Parallel()
	input := filepath.Join(azureGoldens, "plan", "general-purpose", "input.yaml")
	code, stdout, stderr := runCmd("plan", "-f", input, "--region", "westeurope", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"instanceType": "Standard_`) {
		t.Errorf("plan of an AKS NodePool in westeurope launches no Azure VM size:\n%s", stdout)
	}
	code, _, stderr = runCmd("plan", "-f", input, "--region", "us-east-1")
	if code == 0 || !strings.Contains(stderr, `AKSNodeClass/default: cannot model its instance types: azure: unknown region "us-east-1"`) {
		t.Errorf("an AWS region for an AKS NodePool: exit %d, stderr %s", code, stderr)
	}
	inflate := filepath.Join(t.TempDir(), "inflate.yaml")
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]\n"
	if err := os.WriteFile(inflate, []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCmd("plan", "-f", inflate, "--cloud", "azure", "-o", "json")
	if code != 0 || !strings.Contains(stderr, `using karpsim's default NodePool "default" and AKSNodeClass "default"`) ||
		!strings.Contains(stdout, `"instanceType": "Standard_`) {
		t.Errorf("--cloud azure without a NodePool: exit %d, stderr %s, stdout %s", code, stderr, stdout)
	}
	code, stdout, stderr = runCmd("plan", "--cloud", "azure", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"nodePool": "default"`) || !strings.Contains(stdout, `"instanceType": "Standard_`) {
		t.Errorf("the built-in example with --cloud azure: exit %d, stderr %s, stdout %s", code, stderr, stdout)
	}
	code, _, stderr = runCmd("plan", "--cloud", "gcp")
	if code == 0 || !strings.Contains(stderr, `--cloud: cloud "gcp" is not one karpsim models (use aws or azure)`) {
		t.Errorf("--cloud gcp: exit %d, stderr %s", code, stderr)
	}
}

// --nodepool-file replaces an AKSNodeClass by name, and its maxPods then
// caps the pods per node: fifteen small pods fit one node of the default
// 250 pods, and need two of 10.
func TestAzureNodePoolFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, edit := filepath.Join(dir, "input.yaml"), filepath.Join(dir, "class.yaml")
	const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
      - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
spec: {imageFamily: Ubuntu}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: small}
spec:
  replicas: 15
  selector: {matchLabels: {app: small}}
  template:
    metadata: {labels: {app: small}}
    spec:
      containers: [{name: c, image: i, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
`
	class := "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\nspec: {imageFamily: AzureLinux, maxPods: 10}\n"
	if err := os.WriteFile(input, []byte(pool), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edit, []byte(class), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd("plan", "-f", input, "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"nodeClaims": 1,`) {
		t.Fatalf("without the edit: exit %d, stderr %s, stdout %s", code, stderr, stdout)
	}
	code, stdout, stderr = runCmd("plan", "-f", input, "--nodepool-file", edit, "-o", "json")
	if code != 0 || !strings.Contains(stderr, "--nodepool-file "+edit+": AKSNodeClass default applied") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, `"nodeClaims": 2,`) {
		t.Errorf("fifteen pods on nodes of 10 pods need two NodeClaims:\n%s", stdout)
	}
}

// A cluster on Azure read through its API server (fake clients holding the
// golden's objects, EC2NodeClasses not served) decides what its file
// decides: the live path reads AKSNodeClasses.
func TestAzureClusterDecidesWhatTheFileDecides(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(azureGoldens, "disrupt", "image-drift")
	env, f := fakeCluster(t, filepath.Join(dir, "input.yaml"))
	ec2 := schema.GroupResource{Group: "karpenter.k8s.aws", Resource: "ec2nodeclasses"}
	for _, verb := range []string{"list", "watch"} {
		f.Dynamic.PrependReactor(verb, ec2.Resource, func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewNotFound(ec2, "")
		})
	}
	code, got, stderr := runEnv(env, "disrupt", "--context", "fake", "--at", "2026-03-03T12:00:00Z", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the cluster decides otherwise than its file:\n%s", firstDifference(string(want), got))
	}
}
