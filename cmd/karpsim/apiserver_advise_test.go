package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestAdvisedNodePoolsPassKarpentersCRDs applies every NodePool that
// advise tells users to apply, for the built-in example and the advise
// scenarios, to a real kube-apiserver holding Karpenter's own CRDs, with
// server-side dry run: each must pass their schema and CEL rules. It is
// skipped, saying how to get them, where etcd, kube-apiserver or the CRDs
// are missing.
func TestAdvisedNodePoolsPassKarpentersCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	inputs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "advise", "*", "input.yaml"))
	require.NoError(t, err)
	nodePools := s.Admin.Dynamic.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"})
	applied := 0
	for _, input := range append([]string{""}, inputs...) {
		name, files := "the built-in example", []string(nil)
		if input != "" {
			name, files = input, []string{input}
		}
		opts := planOptions{files: files, region: "us-east-1", minValuesPolicy: "Strict"}
		snap, err := snapshotOrExample(defaultEnvironment, opts, "advise", nil, io.Discard, exampleSet)
		require.NoError(t, err, name)
		report, err := advise.Advise(snap.Input(planSchedulingOptions(opts)), advise.Options{Top: 5, MaxCandidates: 64})
		require.NoError(t, err, name)
		for i, a := range report.Advice {
			for _, c := range a.NodePools {
				manifest, err := nodePoolYAML(c.After)
				require.NoError(t, err)
				var u unstructured.Unstructured
				require.NoError(t, yamlToUnstructured(manifest, &u))
				_, err = nodePools.Create(context.Background(), &u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				require.NoError(t, err, "%s, advice %d: the API server refuses\n%s", name, i+1, manifest)
				applied++
			}
		}
	}
	require.Positive(t, applied, "advise gave NodePools to apply")
	t.Logf("%d advised NodePools accepted", applied)
}

// yamlToUnstructured decodes one manifest.
func yamlToUnstructured(manifest string, u *unstructured.Unstructured) error {
	objs, err := kubetest.Objects([]byte(manifest))
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return fmt.Errorf("%d objects, want one", len(objs))
	}
	got, ok := objs[0].(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("%T, want a NodePool", objs[0])
	}
	*u = *got
	return nil
}
