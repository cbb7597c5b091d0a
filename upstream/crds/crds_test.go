package crds

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAllHoldsKarpentersKinds(t *testing.T) {
	kinds := map[string]string{}
	for _, crd := range All() {
		kinds[crd.Spec.Names.Kind] = crd.Spec.Group
	}
	require.Equal(t, "karpenter.sh", kinds["NodePool"])
	require.Equal(t, "karpenter.sh", kinds["NodeClaim"])
	require.Equal(t, "karpenter.k8s.aws", kinds["EC2NodeClass"])
	require.Equal(t, "karpenter.sh", kinds["NodeOverlay"])
	require.Equal(t, "autoscaling.x-k8s.io", kinds["CapacityBuffer"])
	require.Len(t, kinds, len(All()), "one CRD a kind")
}

func TestWriteWritesOneFilePerCRD(t *testing.T) {
	dir := t.TempDir()
	paths, err := Write(dir)
	require.NoError(t, err)
	require.Len(t, paths, len(All()))
	data, err := os.ReadFile(filepath.Join(dir, "nodepools.karpenter.sh.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(data), "x-kubernetes-validations")
}
