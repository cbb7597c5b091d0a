package conformance

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's scheduling specs that depend on what the cloud provider sets:
// the volume provisioners and topology keys its nodes cannot serve
// (scheduling.Options' Unsupported*), whether DRA requests are ignored
// (Options.DRA), and offerings that change the node they buy
// (instancetypes.OfferingOverride).

const otherProvider = "other-provider"

// refusedFor solves with and without opts and checks that the pod gets no
// NodeClaim with them, refused for a reason holding why, and (when
// placedWithout) is placed without them: the setting is what refuses it.
func refusedFor(t *T, w *schedWorld, opts scheduling.Options, p *corev1.Pod, why string, placedWithout bool) {
	t.Helper()
	in := w.in
	in.Options = opts
	in.Pods = []*corev1.Pod{p}
	res := solveCase(in)
	if len(res.NodeClaims) != 0 {
		t.Fatalf("want no NodeClaim: %s", describe(res))
	}
	i := slices.IndexFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == apis.PodKey(p) })
	if i < 0 || !strings.Contains(res.Unschedulable[i].Reason, why) {
		t.Fatalf("want the pod refused with %q: %s", why, describe(res))
	}
	if placedWithout {
		claimOf(t, w.solve(p), p)
	}
}

// overrideType is upstream's "override-capable" fake type: 4 CPUs and 8Gi,
// its usual offerings, and each again with an override that adds four
// extended slots and reserves 1Gi (available or not).
func overrideType(overridesAvailable bool) *instancetypes.InstanceType {
	base := fakeProviderType("override-capable", apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")})
	spec := specOf(base)
	slots := resources.FromList(corev1.ResourceList{extendedSlots: resource.MustParse("4")})
	override := &instancetypes.OfferingOverride{Capacity: slots, Overhead: &instancetypes.Overhead{SystemReserved: resources.New(0, 1<<30, 0)}}
	for _, o := range base.Offerings {
		o.Available = overridesAvailable
		o.Override = override
		spec.Offerings = append(spec.Offerings, o)
	}
	return mustType(spec)
}

const extendedSlots corev1.ResourceName = "test.com/extended-slots"

func wantsSlot(p *corev1.Pod) {
	c := &p.Spec.Containers[0]
	c.Resources.Requests = corev1.ResourceList{extendedSlots: resource.MustParse("1")}
	c.Resources.Limits = corev1.ResourceList{extendedSlots: resource.MustParse("1")}
}

var _ = register("scheduling",
	conformanceCase{Name: "unsupported-provisioner-default-class", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		sc := schedStorageClass("default-storage-class", otherProvider, "test-zone-1")
		sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		p := unschedPod("p", "", ephemeralVolume(nil))
		w.in.StorageClasses = append(w.in.StorageClasses, sc)
		w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim("p-tmp-ephemeral", sc.Name, ""))
		refusedFor(t, w, scheduling.Options{UnsupportedProvisioners: []string{otherProvider}}, p, "does not support", true)
	}},
	conformanceCase{Name: "unsupported-provisioner-bound-volume", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		pv := volume("pv")
		pv.Spec.CSI.Driver = otherProvider
		p := unschedPod("p", "", ephemeralVolume(nil))
		w.in.PersistentVolumes = append(w.in.PersistentVolumes, pv)
		w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim("p-tmp-ephemeral", "-", pv.Name))
		refusedFor(t, w, scheduling.Options{UnsupportedProvisioners: []string{otherProvider}}, p, "does not support", true)
	}},
	conformanceCase{Name: "unsupported-topology-key", Run: func(t *T) {
		const key = "topology.ebs.csi.aws.com/zone"
		w := newSchedWorld(schedPool())
		sc := schedStorageClass("default-storage-class", "ebs.csi.eks.amazonaws.com")
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: key, Values: []string{"us-west-2a", "us-west-2b"}}}}}
		w.in.StorageClasses = append(w.in.StorageClasses, sc)
		w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim("tmp-ephemeral", sc.Name, ""))
		p := unschedPod("p", "", mounts("tmp-ephemeral"))
		refusedFor(t, w, scheduling.Options{UnsupportedTopologyKeys: []string{key}}, p, "never carry", false)
	}},
	conformanceCase{Name: "daemonset-dra-follows-ignore-flag", Run: func(t *T) {
		// With DRA ignored (the default) the DaemonSet that claims a
		// device adds nothing, and the 1-CPU pod gets a smaller type than
		// when its 3 CPUs count.
		w := newSchedWorld(schedPool())
		w.in.DaemonSets = []*corev1.Pod{daemonPod("dra-daemon", requests("cpu", "3"), containerClaim("gpu-claim"))}
		app := unschedPod("app", "1")
		cpuOf := func(opts scheduling.Options) int64 {
			in := w.in
			in.Options, in.Pods = opts, []*corev1.Pod{app}
			c := claimOf(t, solveCase(in), app)
			it, ok := w.catalog.Get(c.InstanceTypeOptions[0])
			if !ok {
				t.Fatalf("no type %s", c.InstanceTypeOptions[0])
			}
			return it.Capacity.CPU()
		}
		if ignored, counted := cpuOf(scheduling.Options{}), cpuOf(scheduling.Options{DRA: true}); ignored >= counted {
			t.Fatalf("cheapest option has %dm CPUs with DRA ignored, %dm with it counted: want fewer when ignored", ignored, counted)
		}
	}},
	conformanceCase{Name: "offering-override-capacity-only", Run: func(t *T) {
		normal := fakeProviderType("normal", apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")})
		w := newWorldOf(mustCatalog(overrideType(true), normal), schedPool())
		p := unschedPod("p", "", wantsSlot)
		c := claimOf(t, w.solve(p), p)
		if !slices.Equal(c.InstanceTypeOptions, []string{"override-capable"}) {
			t.Fatalf("options %v, want only override-capable", c.InstanceTypeOptions)
		}
	}},
	conformanceCase{Name: "offering-override-unavailable-refused", Run: func(t *T) {
		w := newWorldOf(mustCatalog(overrideType(false)), schedPool())
		p := unschedPod("p", "", wantsSlot)
		res := w.solve(p)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("want no NodeClaim: %s", describe(res))
		}
		expectNotScheduled(t, res, p)
	}},
)
