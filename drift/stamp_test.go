package drift

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func TestStamp(t *testing.T) {
	in := testInput(t)
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"keep": "me"}}}
	before := claim.DeepCopy()

	stamped := Stamp(claim, in.NodePool, in.NodeClass)
	assert.Equal(t, map[string]string{
		"keep":                                 "me",
		apis.AnnotationNodePoolHash:            NodePoolHash(in.NodePool),
		apis.AnnotationNodePoolHashVersion:     "v3",
		apis.AnnotationEC2NodeClassHash:        EC2NodeClassHash(in.NodeClass, nil),
		apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
	}, stamped.Annotations)
	assert.Equal(t, before, claim, "Stamp must not modify its input")

	onlyPool := Stamp(&apis.NodeClaim{}, in.NodePool, nil)
	assert.Len(t, onlyPool.Annotations, 2)
	assert.NotContains(t, onlyPool.Annotations, apis.AnnotationEC2NodeClassHash)
	assert.Nil(t, Stamp(nil, in.NodePool, in.NodeClass))
}

func TestRestamp(t *testing.T) {
	in := testInput(t)
	drifted := []metav1.Condition{{Type: "Drifted", Status: metav1.ConditionTrue, Reason: "NodePoolDrifted"}}
	old := map[string]string{
		apis.AnnotationNodePoolHash: "111", apis.AnnotationNodePoolHashVersion: "v2",
		apis.AnnotationEC2NodeClassHash: "222", apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
	}
	cases := []struct {
		name       string
		conditions []metav1.Condition
		annotation map[string]string
		changed    bool
		want       map[string]string
	}{
		{"old nodepool version", nil, old, true, map[string]string{
			apis.AnnotationNodePoolHash: NodePoolHash(in.NodePool), apis.AnnotationNodePoolHashVersion: "v3",
			apis.AnnotationEC2NodeClassHash: "222", apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
		}},
		{"already drifted keeps its hash", drifted, old, true, map[string]string{
			apis.AnnotationNodePoolHash: "111", apis.AnnotationNodePoolHashVersion: "v3",
			apis.AnnotationEC2NodeClassHash: "222", apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
		}},
		{"no annotations", nil, nil, true, map[string]string{
			apis.AnnotationNodePoolHash: NodePoolHash(in.NodePool), apis.AnnotationNodePoolHashVersion: "v3",
			apis.AnnotationEC2NodeClassHash: EC2NodeClassHash(in.NodeClass, nil), apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
		}},
		{"current versions", nil, in.NodeClaim.Annotations, false, in.NodeClaim.Annotations},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: tc.annotation}}
			claim.Status.Conditions = tc.conditions
			before := claim.DeepCopy()
			out, changed := Restamp(claim, in.NodePool, in.NodeClass)
			require.NotNil(t, out)
			assert.Equal(t, tc.changed, changed)
			for k, v := range tc.want {
				assert.Equal(t, v, out.Annotations[k], k)
			}
			assert.Equal(t, before, claim, "Restamp must not modify its input")
		})
	}
	out, changed := Restamp(nil, in.NodePool, in.NodeClass)
	assert.Nil(t, out)
	assert.False(t, changed)
}

// Hashing reads a quantity's String form, which caches itself in the
// quantity; the inputs must still come out untouched.
func TestHashesDoNotModifyInput(t *testing.T) {
	for _, tc := range realEC2NodeClasses {
		nc := decode[apis.EC2NodeClass](t, tc.manifest)
		before := nc.DeepCopy()
		EC2NodeClassHash(nc, nil)
		assert.Equal(t, before, nc)
	}
	for _, tc := range realNodePools {
		np := decode[apis.NodePool](t, tc.manifest)
		before := np.DeepCopy()
		NodePoolHash(np)
		assert.Equal(t, before, np)
	}
}

// TestStampedClassHashIsCompared: a class read from a cluster carries the
// hash Karpenter's hash controller stamped, computed with the cluster's CA
// bundle, which no object holds; that hash is what NodeClaims are stamped
// with and compared to, as upstream compares the two annotations.
func TestStampedClassHashIsCompared(t *testing.T) {
	in := testInput(t)
	bundle := "cluster-ca"
	live := in.NodeClass.DeepCopy()
	live.Annotations = map[string]string{
		apis.AnnotationEC2NodeClassHash:        EC2NodeClassHash(live, &bundle),
		apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
	}
	require.NotEqual(t, EC2NodeClassHash(live, nil), NodeClassHash(live), "the CA bundle must change the hash")
	assert.Equal(t, EC2NodeClassHash(live, &bundle), NodeClassHash(live))

	claim := Stamp(in.NodeClaim, in.NodePool, live)
	assert.Equal(t, NodeClassHash(live), claim.Annotations[apis.AnnotationEC2NodeClassHash])
	in.NodeClaim, in.NodeClass = claim, live
	assert.Equal(t, Reason(""), Check(in).Reason, "a claim stamped from the class's own hash is not drifted")

	// A stamp of an older version is not the class's hash: it is computed.
	old := live.DeepCopy()
	old.Annotations[apis.AnnotationEC2NodeClassHashVersion] = "v4"
	assert.Equal(t, EC2NodeClassHash(old, nil), NodeClassHash(old))
}

// TestRestampNodeClass: a spec change that the hash ignores keeps the
// class's stamp (nothing drifts); one it covers drops it (everything
// stamped before drifts).
func TestRestampNodeClass(t *testing.T) {
	in := testInput(t)
	bundle := "cluster-ca"
	live := in.NodeClass.DeepCopy()
	live.Annotations = map[string]string{
		apis.AnnotationEC2NodeClassHash:        EC2NodeClassHash(live, &bundle),
		apis.AnnotationEC2NodeClassHashVersion: EC2NodeClassHashVersion,
		"team":                                 "a",
	}
	in.NodeClaim = Stamp(in.NodeClaim, in.NodePool, live)

	subnets := live.DeepCopy()
	subnets.Spec.SubnetSelectorTerms = []apis.SubnetSelectorTerm{{ID: "subnet-2"}}
	kept := RestampNodeClass(live, subnets)
	assert.Equal(t, live.Annotations, kept.Annotations)
	in.NodeClass = kept
	assert.NotEqual(t, NodeClassDrift, Check(in).Reason)

	role := live.DeepCopy()
	role.Spec.Role = "other-role"
	before := role.DeepCopy()
	dropped := RestampNodeClass(live, role)
	assert.Equal(t, map[string]string{"team": "a"}, dropped.Annotations)
	assert.Equal(t, before, role, "next is not modified")
	in.NodeClass = dropped
	assert.Equal(t, NodeClassDrift, Check(in).Reason)

	assert.Nil(t, RestampNodeClass(live, nil))
	assert.Equal(t, live, RestampNodeClass(nil, live), "a new class keeps its own stamp")
}
