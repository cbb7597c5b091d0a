package conformance

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's volume specs: a storage class provisioning in zones 2 and 3
// once a pod is placed, and claims and volumes made per spec.

const zonalClass = "zonal"

func storageClass(name string, zones ...string) *storagev1.StorageClass {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "fake.csi.provider", VolumeBindingMode: &wait}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: apis.LabelTopologyZone, Values: zones}}}}
	}
	return sc
}

// volumeWorld is a provisioning world that knows the zonal class.
func volumeWorld() *world {
	w := provWorld()
	w.classes = []*storagev1.StorageClass{storageClass(zonalClass, "test-zone-2", "test-zone-3")}
	return w
}

// pvc is a claim of class; one that names a volume is stamped bound, as
// upstream's test.PersistentVolumeClaim stamps it.
func pvc(name string, class *string, volume string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, VolumeName: volume}}
	if volume != "" {
		c.Annotations = map[string]string{scheduling.AnnotationBindCompleted: "yes"}
	}
	return c
}

// pv is a CSI volume of class, pinned by terms when given.
func pv(name, class string, terms ...corev1.NodeSelectorRequirement) *corev1.PersistentVolume {
	v := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		StorageClassName:       class,
		Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "fake.csi.provider", VolumeHandle: name}},
	}}
	if len(terms) > 0 {
		v.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: terms}}}}
	}
	return v
}

func mountsClaim(name string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
	}
}

// ephemeral gives the pod a generic ephemeral volume "data" of class; its
// claim is named <pod>-data.
func ephemeral(class string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class}}}}})
	}
}

func strPtr(s string) *string { return &s }

// zoneOf is the zone of the node p was bound to.
func zoneOf(w *world, p *corev1.Pod) string {
	if n := w.nodeOf(p); n != nil {
		return n.Labels[apis.LabelTopologyZone]
	}
	return ""
}

var zones13 = nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1", "test-zone-3"))

var _ = register("provisioning",
	conformanceCase{Name: "volume-missing-claim", Run: func(t *T) {
		w := volumeWorld()
		p := ppod("p", mountsClaim("invalid"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-bound-empty-class", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(""), "test-volume")}
		w.pvs = []*corev1.PersistentVolume{pv("test-volume", "")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.True(t, scheduled(p), "%v", w.last.Unschedulable)
	}},
	conformanceCase{Name: "volume-unbound-empty-class", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(""), "")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-bound-missing-class", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr("missing-storage-class"), "test-volume")}
		w.pvs = []*corev1.PersistentVolume{pv("test-volume", "missing-storage-class")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.True(t, scheduled(p), "%v", w.last.Unschedulable)
	}},
	conformanceCase{Name: "volume-unbound-missing-class", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr("missing-storage-class"), "")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-missing-claim-others-placed", Run: func(t *T) {
		w := volumeWorld()
		bad, good := ppod("bad", mountsClaim("invalid")), ppod("good")
		w.provision(bad)
		w.provision(good)
		require.False(t, scheduled(bad))
		require.True(t, scheduled(good))
	}},
	conformanceCase{Name: "volume-missing-class-others-placed", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr("invalid-storage-class"), "")}
		bad, good := ppod("bad", mountsClaim("claim")), ppod("good")
		w.provision(bad)
		w.provision(good)
		require.False(t, scheduled(bad))
		require.True(t, scheduled(good))
	}},
	conformanceCase{Name: "volume-missing-volume-others-placed", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", nil, "invalid-volume-name")}
		bad, good := ppod("bad", mountsClaim("claim")), ppod("good")
		w.provision(bad)
		w.provision(good)
		require.False(t, scheduled(bad))
		require.True(t, scheduled(good))
	}},
	conformanceCase{Name: "volume-class-zones", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "")}
		p := ppod("p", mountsClaim("claim"), zones13)
		w.provision(p)
		require.Equal(t, "test-zone-3", zoneOf(w, p))
	}},
	conformanceCase{Name: "volume-class-zones-ephemeral", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("p-data", strPtr(zonalClass), "")}
		p := ppod("p", ephemeral(zonalClass), zones13)
		w.provision(p)
		require.Equal(t, "test-zone-3", zoneOf(w, p))
	}},
	conformanceCase{Name: "volume-class-zones-conflict", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "")}
		p := ppod("p", mountsClaim("claim"), nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1")))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-class-zones-conflict-ephemeral", Run: func(t *T) {
		w := volumeWorld()
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("p-data", strPtr(zonalClass), "")}
		p := ppod("p", ephemeral(zonalClass), nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1")))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-bound-zone", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelTopologyZone, "test-zone-3"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "vol")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.Equal(t, "test-zone-3", zoneOf(w, p))
	}},
	conformanceCase{Name: "volume-bound-zone-ephemeral", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelTopologyZone, "test-zone-3"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("p-data", strPtr(zonalClass), "vol")}
		p := ppod("p", ephemeral(zonalClass))
		w.provision(p)
		require.Equal(t, "test-zone-3", zoneOf(w, p))
	}},
	conformanceCase{Name: "volume-local-hostname-ignored", Run: localVolume(false, false)},
	conformanceCase{Name: "volume-hostpath-hostname-ignored", Run: localVolume(true, false)},
	conformanceCase{Name: "volume-local-hostname-ignored-ephemeral", Run: localVolume(false, true)},
	conformanceCase{Name: "volume-hostpath-hostname-ignored-ephemeral", Run: localVolume(true, true)},
	conformanceCase{Name: "volume-csi-hostname-kept", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelHostname, "some-other-node"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "vol")}
		p := ppod("p", mountsClaim("claim"))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-bound-zone-conflict", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelTopologyZone, "test-zone-3"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "vol")}
		p := ppod("p", mountsClaim("claim"), nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1")))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-bound-zone-conflict-ephemeral", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelTopologyZone, "test-zone-3"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("p-data", strPtr(zonalClass), "vol")}
		p := ppod("p", ephemeral(zonalClass), nodeRequirements(in(apis.LabelTopologyZone, "test-zone-1")))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
)

// localVolume is a pod whose bound local (or hostPath) volume is pinned to
// another node's hostname: Karpenter ignores that pin and provisions.
func localVolume(hostPath, viaEphemeral bool) func(t *T) {
	return func(t *T) {
		w := provWorld()
		w.classes = []*storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "local-path"}, Provisioner: "kubernetes.io/no-provisioner"}}
		v := pv("vol", "local-path", in(apis.LabelHostname, "some-other-node"))
		v.Spec.CSI = nil
		if hostPath {
			v.Spec.HostPath = &corev1.HostPathVolumeSource{Path: "/data"}
		} else {
			v.Spec.Local = &corev1.LocalVolumeSource{Path: "/data"}
		}
		w.pvs = []*corev1.PersistentVolume{v}
		claim := "claim"
		opt := mountsClaim(claim)
		if viaEphemeral {
			claim, opt = "p-data", ephemeral("local-path")
		}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc(claim, strPtr("local-path"), "vol")}
		p := ppod("p", opt)
		w.provision(p)
		require.True(t, scheduled(p), "%v", w.last.Unschedulable)
	}
}
