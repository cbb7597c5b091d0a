package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

const ebs = "ebs.csi.aws.com"

func withClaim(volume, claim string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
}

func pvc(name, volume, class string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	c.Spec.VolumeName = volume
	if volume != "" {
		// A bound claim, as the volume binder leaves it.
		c.Annotations = map[string]string{AnnotationBindCompleted: "yes"}
	}
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	return c
}

func zonalPV(name, zone string, local bool) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
	pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}},
			{Key: apis.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"old-node"}},
		}},
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}}}},
	}}}
	if local {
		pv.Spec.Local = &corev1.LocalVolumeSource{Path: "/mnt/disk"}
	} else {
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: ebs, VolumeHandle: name}
		pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions = pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[:1]
	}
	return pv
}

func TestBoundVolumesPinPodsToTheirZone(t *testing.T) {
	p := newPod("db", "1", "1Gi", withClaim("data", "data-db"))
	in := Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{onDemandPool()},
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc("data-db", "pv-1", "")},
		PersistentVolumes:      []*corev1.PersistentVolume{zonalPV("pv-1", "test-zone-2", false)}}
	r := Solve(in)
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "test-zone-2", r.NodeClaims[0].Zone, "the first term of the volume's node affinity")
	assert.Nil(t, p.Spec.Affinity, "the input pod is not changed")

	// A local volume's hostname affinity is dropped: the pod moves to a new node.
	in.PersistentVolumes = []*corev1.PersistentVolume{zonalPV("pv-1", "test-zone-3", true)}
	r = Solve(in)
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "test-zone-3", r.NodeClaims[0].Zone)
}

func TestUnboundClaimsFollowTheirStorageClass(t *testing.T) {
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3"}, Provisioner: ebs,
		AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: apis.LabelTopologyZone, Values: []string{"test-zone-3"}},
		}}}}
	p := newPod("db", "1", "1Gi", withClaim("data", "data-db"))
	in := Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(newPool("default"))},
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc("data-db", "", "gp3")},
		StorageClasses:         []*storagev1.StorageClass{class}}
	r := Solve(in)
	assert.Equal(t, []string{"default-1 fake-it-1 on-demand test-zone-3 [default/db]"}, claimsByType(r))

	// The volume requirement is in every required term, so relaxation keeps it.
	relaxed := newPod("db", "1", "1Gi", withClaim("data", "data-db"), withRequiredTerms(
		corev1.NodeSelectorRequirement{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}},
		corev1.NodeSelectorRequirement{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
	))
	in.Pods = []*corev1.Pod{relaxed}
	r = Solve(in)
	assert.Equal(t, []string{"default-1 fake-it-1 on-demand test-zone-3 [default/db]"}, claimsByType(r))
}

func TestPodsWithMissingVolumesAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claims []*corev1.PersistentVolumeClaim
		want   string
	}{
		{"claim missing", nil, `volume "data": PersistentVolumeClaim default/data-db not found`},
		{"unbound claim without class", []*corev1.PersistentVolumeClaim{pvc("data-db", "", "")}, `volume "data": unbound PersistentVolumeClaim data-db must name a storage class`},
		{"class missing", []*corev1.PersistentVolumeClaim{pvc("data-db", "", "gp3")}, `volume "data": StorageClass "gp3" of claim data-db not found`},
		{"volume missing", []*corev1.PersistentVolumeClaim{pvc("data-db", "pv-9", "")}, `volume "data": PersistentVolume "pv-9" of claim data-db not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Provisioner: ebs}
			r := Solve(Input{Pods: []*corev1.Pod{newPod("db", "1", "1Gi", withClaim("data", "data-db"))}, NodePools: []Pool{pool(newPool("default"))},
				PersistentVolumeClaims: tc.claims, StorageClasses: []*storagev1.StorageClass{other}})
			assert.Equal(t, []Unschedulable{{Pod: "default/db", Reason: tc.want}}, r.Unschedulable)
		})
	}
}

func TestVolumesAreNotCheckedWhenNoVolumeObjectIsGiven(t *testing.T) {
	r := Solve(Input{Pods: []*corev1.Pod{newPod("db", "1", "1Gi", withClaim("data", "data-db"))}, NodePools: []Pool{pool(newPool("default"))}})
	assert.Empty(t, r.Unschedulable)
	assert.Len(t, r.NodeClaims, 1)
}

func TestCSIVolumeLimitsOnExistingNodes(t *testing.T) {
	claims := []*corev1.PersistentVolumeClaim{pvc("a", "pv-a", ""), pvc("b", "pv-b", "")}
	pvs := []*corev1.PersistentVolume{zonalPV("pv-a", "test-zone-1", false), zonalPV("pv-b", "test-zone-1", false)}
	node := makeNode("node-a", "default", true, "8", "16Gi", newPod("first", "100m", "128Mi", withClaim("data", "a")))
	node.VolumeLimits = map[string]int{ebs: 1}
	in := Input{Nodes: []*Node{node}, NodePools: []Pool{onDemandPool()}, PersistentVolumeClaims: claims, PersistentVolumes: pvs}

	in.Pods = []*corev1.Pod{newPod("shares", "100m", "128Mi", withClaim("data", "a"))}
	r := Solve(in)
	assert.Equal(t, []Binding{{Pod: "default/shares", Node: "node-a"}}, r.Bindings, "a shared claim counts once")

	in.Pods = []*corev1.Pod{newPod("second", "100m", "128Mi", withClaim("data", "b"))}
	r = Solve(in)
	assert.Empty(t, r.Bindings, "a second volume exceeds the limit of 1")
	assert.Len(t, r.NodeClaims, 1)
	_, e, err := Explain(in, "default/second")
	require.NoError(t, err)
	assert.Equal(t, "would attach 2 volumes of CSI driver ebs.csi.aws.com, over its limit of 1", e.Attempts[0].Nodes[0].Reason)
}
