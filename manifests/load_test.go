package manifests

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return dir
}

func TestLoadFolder(t *testing.T) {
	pod := func(name string) string { return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\n" }
	dir := writeFiles(t, map[string]string{
		"b.yaml":         pod("b"),
		"a/z.yml":        pod("az"),
		"a/b/deep.yaml":  pod("deep"),
		"c.json":         `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c"}}`,
		"README.md":      "not a manifest: ---\n",
		"notes.txt":      "apiVersion: v1\nkind: Pod\nmetadata: {name: txt}\n",
		"UPPER.YAML":     pod("upper"),
		"a/b/empty.yaml": "# nothing here\n---\n",
		"d.yaml":         "\xef\xbb\xbf" + pod("bom"),
		"e.yaml":         "apiVersion: v1\r\nkind: Pod\r\nmetadata: {name: crlf}\r\n",
	})
	s, err := Load(dir, filepath.Join(dir, "notes.txt"))
	require.NoError(t, err)
	var names []string
	for _, p := range s.Pods {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"upper", "deep", "az", "b", "c", "bom", "crlf", "txt"}, names, "folders in lexical order, recursively; files given by name whatever their extension")
	src, ok := s.SourceOf(s.Pods[1])
	require.True(t, ok)
	assert.Equal(t, Source{File: filepath.Join(dir, "a/b/deep.yaml"), Document: 1, Line: 1}, src)
}

func TestLoadMissingPath(t *testing.T) {
	s, err := Load("does/not/exist.yaml")
	require.NotNil(t, s)
	assert.ErrorIs(t, err, ErrRead)
	assert.EqualError(t, err, "does/not/exist.yaml: stat does/not/exist.yaml: no such file or directory")
}

func TestDocumentSplitting(t *testing.T) {
	stream := "# leading comment\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n...\n---\n\n\n--- # marker with a comment\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n--- {apiVersion: v1, kind: Pod, metadata: {name: c}}\n"
	s, err := Decode("stream.yaml", []byte(stream))
	require.NoError(t, err)
	var got []Source
	for _, p := range s.Pods {
		src, _ := s.SourceOf(p)
		got = append(got, src)
	}
	assert.Equal(t, []Source{
		{File: "stream.yaml", Document: 1, Line: 3},
		{File: "stream.yaml", Document: 2, Line: 11},
		{File: "stream.yaml", Document: 3, Line: 14},
	}, got)
}

func TestKubectlLists(t *testing.T) {
	list := `{
	"apiVersion": "v1",
	"kind": "List",
	"items": [
		{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default", "managedFields": [{"manager": "kubectl", "operation": "Apply"}]},
		 "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "250m"}}}]}, "status": {"phase": "Pending"}},
		{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds", "namespace": "kube-system"}}
	],
	"metadata": {"resourceVersion": ""}
}`
	s, err := Decode("list.json", []byte(list))
	require.NoError(t, err)
	require.Len(t, s.Pods, 1)
	assert.Equal(t, "250m", s.Pods[0].Spec.Containers[0].Resources.Requests.Cpu().String())
	require.Len(t, s.DaemonSets, 1)
	src, _ := s.SourceOf(s.DaemonSets[0])
	assert.Equal(t, Source{File: "list.json", Document: 1, Line: 1, Item: 2}, src)
	assert.Equal(t, "list.json:1 item 2", src.String())

	typed := "apiVersion: karpenter.sh/v1\nkind: NodePoolList\nitems:\n- metadata: {name: a}\n  spec: {template: {spec: {requirements: [], nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}}}}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClassList\nitems: [{metadata: {name: a}, spec: {role: r, amiSelectorTerms: [{alias: al2@latest}], subnetSelectorTerms: [{id: subnet-1}], securityGroupSelectorTerms: [{id: sg-1}]}}]\n"
	s, err = Decode("typed.yaml", []byte(typed))
	require.NoError(t, err)
	require.Len(t, s.NodePools, 1)
	require.Len(t, s.EC2NodeClasses, 1)
	assert.Equal(t, apis.KindNodePool, s.NodePools[0].Kind, "items of a NodePoolList take the list's kind")
}

func TestJSONSyntaxError(t *testing.T) {
	_, err := Decode("bad.json", []byte("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\"\n \"metadata\": {}}"))
	assert.ErrorIs(t, err, ErrMalformed)
	assert.EqualError(t, err, "bad.json: document 1: line 3: invalid character '\"' after object key:value pair")
}

func TestSentinels(t *testing.T) {
	for sentinel, manifest := range map[error]string{
		ErrMalformed:         "a: [",
		ErrUnknownAPIVersion: "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: a}\n",
		ErrDecode:            "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {overhead: {cpu: x}}\n",
		ErrInvalid:           nodePool(map[string]string{"spec": "weight: 500"}),
		ErrMissingReference:  nodePool(map[string]string{"class": "other"}),
		ErrDuplicate:         "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	} {
		_, err := Decode("x.yaml", []byte(manifest))
		assert.ErrorIs(t, err, sentinel, manifest)
		for _, other := range []error{ErrRead, ErrMalformed, ErrUnknownAPIVersion, ErrDecode, ErrInvalid, ErrMissingReference, ErrDuplicate} {
			if other != sentinel {
				assert.False(t, errors.Is(err, other), "%v is not %v", err, other)
			}
		}
	}
}

func TestDecodeDoesNotModifyInput(t *testing.T) {
	data := mustRead(t, seed("002-v1beta1-nodepool-and-nodeclass.yaml"))
	before := bytes.Clone(data)
	_, _ = Decode("x.yaml", data)
	assert.Equal(t, before, data)
}

func TestNamespacedDuplicates(t *testing.T) {
	pods := "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns2}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns1}\n"
	_, err := Decode("pods.yaml", []byte(pods))
	assert.Equal(t, []string{`pods.yaml: Pod/ns1/a: metadata.name: another Pod named "a" is defined at pods.yaml:1; names must be unique`}, errorStrings(t, err))
}

// TestV1Beta1Kubelet moves v1beta1 NodePool kubelet settings to the
// EC2NodeClass when it has none, and says so.
func TestV1Beta1Kubelet(t *testing.T) {
	pool := func(name, class, kubelet string) string {
		return "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: " + name + "}\nspec: {template: {spec: {requirements: [], kubelet: " + kubelet + ", nodeClassRef: {name: " + class + "}}}}\n---\n"
	}
	class := func(name, kubelet string) string {
		return "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: " + name + "}\nspec: {role: r, amiSelectorTerms: [{alias: al2023@latest}], subnetSelectorTerms: [{id: subnet-1}], securityGroupSelectorTerms: [{id: sg-1}]" + kubelet + "}\n---\n"
	}
	stream := pool("a", "plain", "{maxPods: 20}") + pool("b", "plain", "{maxPods: 30}") + pool("c", "own", "{maxPods: 40}") +
		class("plain", "") + class("own", ", kubelet: {maxPods: 50}")
	s, err := Decode("k.yaml", []byte(stream))
	require.NoError(t, err)
	var kubeletWarnings []string
	for _, w := range s.Warnings {
		if !bytes.Contains([]byte(w.Message), []byte("converted to v1")) {
			kubeletWarnings = append(kubeletWarnings, w.String())
		}
	}
	assert.Equal(t, []string{
		`k.yaml: EC2NodeClass/plain: spec.kubelet: set to {"maxPods":20}, the v1beta1 kubelet settings of NodePool/a (its compatibility.karpenter.sh/v1beta1-kubelet-conversion annotation)`,
		`k.yaml: NodePool/b: v1beta1 kubelet settings {"maxPods":30} ignored: EC2NodeClass/plain already has the different settings of NodePool/a, and karpsim keeps one set per EC2NodeClass`,
		`k.yaml: NodePool/c: v1beta1 kubelet settings {"maxPods":40} ignored: EC2NodeClass/own has its own spec.kubelet, which takes precedence`,
	}, kubeletWarnings)
	assert.Equal(t, intstr.FromInt32(20), *s.EC2NodeClasses[0].Spec.Kubelet.MaxPods)
	assert.Equal(t, intstr.FromInt32(50), *s.EC2NodeClasses[1].Spec.Kubelet.MaxPods)
}

// TestV1Beta1NodeClaimExpireAfter gives converted NodeClaims the
// expireAfter of their NodePool.
func TestV1Beta1NodeClaimExpireAfter(t *testing.T) {
	claim := func(name, pool string) string {
		return "apiVersion: karpenter.sh/v1beta1\nkind: NodeClaim\nmetadata: {name: " + name + ", labels: {karpenter.sh/nodepool: " + pool + "}}\nspec: {requirements: [], nodeClassRef: {name: default}}\nstatus: {nodeName: node-1, conditions: [{type: Ready, status: 'True', severity: Info}]}\n---\n"
	}
	stream := claim("a-1", "a") + claim("b-1", "b") + nodePool(map[string]string{"template": "expireAfter: 24h"})
	stream = strings.Replace(stream, "name: default\nspec:\n  template", "name: a\nspec:\n  template", 1)
	s, err := Decode("c.yaml", []byte(stream))
	require.NoError(t, err)
	require.Len(t, s.NodeClaims, 2)
	assert.Equal(t, apis.NewNillableDuration(24*time.Hour), s.NodeClaims[0].Spec.ExpireAfter)
	assert.Equal(t, apis.NewNillableDuration(720*time.Hour), s.NodeClaims[1].Spec.ExpireAfter)
	assert.Contains(t, warningStrings(s), "c.yaml: NodeClaim/a-1: converted to v1: spec.expireAfter: 24h, from NodePool/a")
	assert.Contains(t, warningStrings(s), `c.yaml: NodeClaim/b-1: converted to v1: spec.expireAfter: 720h (the default; its NodePool "b" was not given)`)
	assert.Equal(t, "Ready", s.NodeClaims[0].Status.Conditions[0].Type)
}

// TestDeeplyNestedValue locates a bad value at its own level, however deep
// the value goes, and quickly.
func TestDeeplyNestedValue(t *testing.T) {
	deep := strings.Repeat(`{"x":`, 2000) + "1" + strings.Repeat("}", 2000)
	manifest := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":` + deep + `}}}`
	start := time.Now()
	_, err := Decode("deep.json", []byte(manifest))
	assert.Equal(t, []string{"deep.json: Pod/p: metadata.labels[a]: expected a string, got an object"}, errorStrings(t, err))
	assert.Less(t, time.Since(start), 2*time.Second)
}

// A part may name an EC2NodeClass it does not hold; every other check,
// including the kind of node class, is Decode's.
func TestDecodePartLeavesNodeClassRefsToTheCaller(t *testing.T) {
	pool := func(group string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: web}\nspec: {template: {spec: {requirements: [], nodeClassRef: {group: " + group + ", kind: EC2NodeClass, name: elsewhere}}}}\n"
	}
	_, err := Decode("pool.yaml", []byte(pool("karpenter.k8s.aws")))
	assert.ErrorIs(t, err, ErrMissingReference)
	set, err := DecodePart("pool.yaml", []byte(pool("karpenter.k8s.aws")))
	require.NoError(t, err)
	require.Len(t, set.NodePools, 1)
	assert.Equal(t, "elsewhere", set.NodePools[0].Spec.Template.Spec.NodeClassRef.Name)
	_, err = DecodePart("pool.yaml", []byte(pool("example.com")))
	assert.ErrorIs(t, err, ErrMissingReference)
}

func TestLoadInputsKeepsTheirOrderAndChecksThemTogether(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"class.yaml": "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  role: KarpenterNodeRole\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n",
		"pod.yaml":   "apiVersion: v1\nkind: Pod\nmetadata: {name: from-file}\n",
	})
	stdin := Stream{Name: "<stdin>", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: from-stdin}\n---\n" +
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n" +
		"      requirements: []\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n")}
	s, err := LoadInputs(Input{Path: filepath.Join(dir, "class.yaml")}, Input{Stream: stdin}, Input{Path: filepath.Join(dir, "pod.yaml")})
	require.NoError(t, err, "the NodePool on stdin finds the EC2NodeClass of a file")
	require.Len(t, s.Pods, 2)
	assert.Equal(t, "from-stdin", s.Pods[0].Name, "inputs are read in the order given")
	assert.Equal(t, "from-file", s.Pods[1].Name)
	src, ok := s.SourceOf(s.NodePools[0])
	require.True(t, ok)
	assert.Equal(t, Source{File: "<stdin>", Document: 2, Line: 5}, src)

	_, err = LoadInputs(Input{Stream: Stream{Name: "<stdin>", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [\n")}}, Input{Path: filepath.Join(dir, "missing.yaml")})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorIs(t, err, ErrRead)
	assert.Contains(t, err.Error(), "<stdin>: document 2: ")
}
