package conformance

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The suite's volume specs. Upstream's volume-usage context sells one big
// type (1024 CPUs, 1024 pods); CSI limits come from a CSINode, which here
// is the VolumeLimits of an existing node.

const csiDriver = "fake.csi.provider"

func bigCatalog() instancetypes.Catalog {
	return mustCatalog(fakeProviderType("instance-type", apis.ArchitectureAmd64,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1024"), corev1.ResourcePods: resource.MustParse("1024")}))
}

func schedStorageClass(name, provisioner string, schedZones ...string) *storagev1.StorageClass {
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &wait}
	if len(schedZones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: zone, Values: schedZones}}}}
	}
	return sc
}

func claim(name, class, volume string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	if class != "-" {
		c.Spec.StorageClassName = &class
	}
	c.Spec.VolumeName = volume
	if volume != "" {
		// Upstream's test.PersistentVolumeClaim stamps a claim that names
		// a volume as bound.
		c.Annotations = map[string]string{scheduling.AnnotationBindCompleted: "yes"}
	}
	return c
}

// volume is a CSI volume of the driver with the node-affinity terms given.
func volume(name string, terms ...corev1.NodeSelectorTerm) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
	pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: csiDriver, VolumeHandle: name}
	if len(terms) > 0 {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	}
	return pv
}

func zoneTerm(z ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req(zone, opIn, z...)}}
}

func mounts(claims ...string) podOption {
	return func(p *corev1.Pod) {
		for i, c := range claims {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: fmt.Sprintf("vol-%d", i),
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
		}
	}
}

// ephemeralVolume adds a generic ephemeral volume named tmp-ephemeral whose
// claim template names class (nil: none).
func ephemeralVolume(class *string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "tmp-ephemeral", VolumeSource: corev1.VolumeSource{
			Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}})
	}
}

func antiZone(app string) podOption {
	return func(p *corev1.Pod) {
		p.Labels["app"] = app
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: zone}}}}
	}
}

// volumeNode is the in-flight node a first pod got, with a CSI limit.
func volumeNode(t *T, w *schedWorld, limit int) *scheduling.Node {
	t.Helper()
	n := firstNode(t, w, unschedPod("first", ""), false)
	n.VolumeLimits = map[string]int{csiDriver: limit}
	return n
}

// twoZones: two anti-affine pods whose volumes allow zone 1 or 2 land in
// those two zones.
func twoZones(t *T, w *schedWorld, ps ...*corev1.Pod) {
	t.Helper()
	res := w.solve(ps...)
	a, b := claimOf(t, res, ps[0]), claimOf(t, res, ps[1])
	for _, c := range []string{a.Zone, b.Zone} {
		if c != "test-zone-1" && c != "test-zone-2" {
			t.Fatalf("a pod went to %s: %s", c, describe(res))
		}
	}
	if a.Zone == b.Zone {
		t.Fatalf("both pods in %s", a.Zone)
	}
}

// pendingWithVolumes: the pod mounting the claim stays pending.
func pendingWithVolumes(name, fails string, setup func(w *schedWorld)) conformanceCase {
	return conformanceCase{Name: name, Fails: fails, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		setup(w)
		p := unschedPod("p", "", mounts("my-claim"))
		expectNotScheduled(t, w.solve(p), p)
	}}
}

// placedWithVolumes: the pod mounting the claim is placed.
func placedWithVolumes(name string, setup func(w *schedWorld)) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		setup(w)
		p := unschedPod("p", "", mounts("my-claim"))
		claimOf(t, w.solve(p), p)
	}}
}

func deleting(m *metav1.ObjectMeta) { m.DeletionTimestamp = &metav1.Time{Time: now} }

var _ = register("scheduling",
	conformanceCase{Name: "selfaffinity-zone-no-binding", Run: func(t *T) {
		aff := func(p *corev1.Pod) {
			p.Labels["security"] = "s2"
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"security": "s2"}}, TopologyKey: zone}}}}
		}
		w := newSchedWorld(schedPool())
		firstNode(t, w, unschedPod("a", "", aff), true)
		b := unschedPod("b", "", aff)
		res := w.solve(b)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("a second node was launched: %s", describe(res))
		}
	}},
	conformanceCase{Name: "csi-volume-limits-make-several-nodes", Run: func(t *T) {
		w := newWorldOf(bigCatalog(), schedPool())
		volumeNode(t, w, 10)
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("my-storage-class", csiDriver, "test-zone-1")}
		var ps []*corev1.Pod
		for i := range 6 {
			a, b := fmt.Sprintf("my-claim-a-%d", i), fmt.Sprintf("my-claim-b-%d", i)
			w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim(a, "my-storage-class", ""), claim(b, "my-storage-class", ""))
			ps = append(ps, unschedPod(fmt.Sprintf("p-%d", i), "", mounts(a, b)))
		}
		res := w.solve(ps...)
		expectScheduled(t, res, ps...)
		if got := len(res.NodeClaims) + len(w.in.Nodes); got != 2 {
			t.Fatalf("%d nodes, want 2: %s", got, describe(res))
		}
	}},
	conformanceCase{Name: "shared-claim-counted-once", Run: func(t *T) {
		w := newWorldOf(bigCatalog(), schedPool())
		volumeNode(t, w, 10)
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("my-storage-class", csiDriver, "test-zone-1")}
		w.in.PersistentVolumes = []*corev1.PersistentVolume{volume("my-volume", zoneTerm("test-zone-1"))}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("my-claim", "my-storage-class", "my-volume")}
		ps := podsOf(100, "p", mounts("my-claim"))
		res := w.solve(ps...)
		expectScheduled(t, res, ps...)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("%d more nodes: %s", len(res.NodeClaims), describe(res))
		}
	}},
	conformanceCase{Name: "nfs-volume-does-not-block", Run: func(t *T) {
		w := newWorldOf(bigCatalog(), schedPool())
		volumeNode(t, w, 10)
		pv := volume("my-volume", zoneTerm("test-zone-1"))
		pv.Spec.CSI = nil
		pv.Spec.NFS = &corev1.NFSVolumeSource{Server: "fake.server", Path: "/some/path"}
		w.in.PersistentVolumes = []*corev1.PersistentVolume{pv}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("my-claim", "", "my-volume")}
		ps := podsOf(5, "p", mounts("my-claim", "my-claim"))
		res := w.solve(ps...)
		expectScheduled(t, res, ps...)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("%d more nodes: %s", len(res.NodeClaims), describe(res))
		}
	}},
	conformanceCase{Name: "volume-spanning-zones", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		var ps []*corev1.Pod
		for i := range 2 {
			pv, pvc := fmt.Sprintf("multi-zone-pv-%d", i), fmt.Sprintf("multi-zone-pvc-%d", i)
			w.in.PersistentVolumes = append(w.in.PersistentVolumes, volume(pv, zoneTerm("test-zone-1"), zoneTerm("test-zone-2")))
			w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim(pvc, "", pv))
			ps = append(ps, unschedPod(fmt.Sprintf("pod-%d", i), "", mounts(pvc), antiZone("multi-zone-app")))
		}
		twoZones(t, w, ps...)
	}},
	hostnameOrZone("local-volume-alternatives-kept", func(pv *corev1.PersistentVolume) {
		pv.Spec.CSI, pv.Spec.Local = nil, &corev1.LocalVolumeSource{Path: "/mnt/local"}
	}),
	hostnameOrZone("hostpath-volume-alternatives-kept", func(pv *corev1.PersistentVolume) {
		pv.Spec.CSI, pv.Spec.HostPath = nil, &corev1.HostPathVolumeSource{Path: "/tmp"}
	}),
	conformanceCase{Name: "storage-class-several-zones", Run: func(t *T) {
		sc := schedStorageClass("multi-zone-sc", "")
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{
			{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: zone, Values: []string{"test-zone-1"}}}},
			{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: zone, Values: []string{"test-zone-2"}}}},
		}
		w := newSchedWorld(schedPool())
		w.in.StorageClasses = []*storagev1.StorageClass{sc}
		var ps []*corev1.Pod
		for i := range 2 {
			pvc := fmt.Sprintf("multi-zone-pvc-%d", i)
			w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim(pvc, sc.Name, ""))
			ps = append(ps, unschedPod(fmt.Sprintf("sc-pod-%d", i), "", mounts(pvc), antiZone("multi-zone-sc-app")))
		}
		twoZones(t, w, ps...)
	}},
	conformanceCase{Name: "volume-alternative-after-pruning", Run: func(t *T) {
		term := func(kv ...string) corev1.TopologySelectorTerm {
			var t corev1.TopologySelectorTerm
			for i := 0; i < len(kv); i += 2 {
				t.MatchLabelExpressions = append(t.MatchLabelExpressions, corev1.TopologySelectorLabelRequirement{Key: kv[i], Values: []string{kv[i+1]}})
			}
			return t
		}
		special := instancetypes.FakeLabelSpecial
		a, b := schedStorageClass("pruned-overlap-a", ""), schedStorageClass("pruned-overlap-b", "")
		a.AllowedTopologies = []corev1.TopologySelectorTerm{term(special, "required"), term(special, "optional")}
		b.AllowedTopologies = []corev1.TopologySelectorTerm{term(zone, "test-zone-1", special, "optional"), term(zone, "test-zone-2", special, "required")}
		w := newWorldOf(instancetypes.Fake(5), schedPool())
		w.in.StorageClasses = []*storagev1.StorageClass{a, b}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("pruned-overlap-pvc-a", a.Name, ""), claim("pruned-overlap-pvc-b", b.Name, "")}
		p := unschedPod("pruned-overlap-pod", "", mounts("pruned-overlap-pvc-a", "pruned-overlap-pvc-b"))
		c := claimOf(t, w.solve(p), p)
		w.expectLabel(t, c, zone, "test-zone-1")
		w.expectLabel(t, c, special, "optional")
	}},
	conformanceCase{Name: "ephemeral-volume-named-class", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		def := schedStorageClass("default-storage-class", "other-provider", "test-zone-1")
		def.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("my-storage-class", csiDriver, "test-zone-1"), def}
		class := "my-storage-class"
		first := unschedPod("first", "", ephemeralVolume(&class))
		n := firstNode(t, w, first, false)
		n.VolumeLimits = map[string]int{csiDriver: 1, "other-provider": 10}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("first-tmp-ephemeral", class, "")}
		second := unschedPod("second", "", ephemeralVolume(&class))
		if got := boundTo(w.solve(second), second); got == n.Name {
			t.Fatalf("the second pod went to %s, whose one volume of %s is taken", n.Name, csiDriver)
		}
		claimOf(t, w.solve(second), second)
	}},
	conformanceCase{Name: "ephemeral-volume-default-class", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		def := schedStorageClass("default-storage-class", csiDriver, "test-zone-1")
		def.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		w.in.StorageClasses = []*storagev1.StorageClass{def}
		defaultClassSecondNode(t, w)
	}},
	conformanceCase{Name: "ephemeral-volume-newest-default-class", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		older := schedStorageClass("default-storage-class", "other-provider", "test-zone-1")
		newer := schedStorageClass("newer-default-storage-class", csiDriver, "test-zone-1")
		older.CreationTimestamp, newer.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour)), metav1.NewTime(now.Add(-time.Hour+2*time.Second))
		for _, sc := range []*storagev1.StorageClass{older, newer} {
			sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		w.in.StorageClasses = []*storagev1.StorageClass{older, newer}
		defaultClassSecondNode(t, w)
	}},
)

// defaultClassSecondNode: a first pod with a class-less ephemeral volume
// gets a node whose CSI driver takes one volume (ten of "other-provider");
// a second such pod needs another node, its volume being of the default
// class's driver.
func defaultClassSecondNode(t *T, w *schedWorld) {
	t.Helper()
	{
		first := unschedPod("first", "", ephemeralVolume(nil))
		n := firstNode(t, w, first, false)
		n.VolumeLimits = map[string]int{csiDriver: 1, "other-provider": 10}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("first-tmp-ephemeral", "-", "")}
		second := unschedPod("second", "", ephemeralVolume(nil))
		claimOf(t, w.solve(second), second)
	}
}

var _ = register("scheduling",
	pendingWithVolumes("unbound-claim-immediate-binding", "", func(w *schedWorld) {
		sc := schedStorageClass("my-storage-class", "other-provider")
		immediate := storagev1.VolumeBindingImmediate
		sc.VolumeBindingMode = &immediate
		w.in.StorageClasses = []*storagev1.StorageClass{sc}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("my-claim", sc.Name, "")}
	}),
	pendingWithVolumes("claim-being-deleted", "", func(w *schedWorld) {
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("my-storage-class", "other-provider")}
		c := claim("my-claim", "my-storage-class", "")
		deleting(&c.ObjectMeta)
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{c}
	}),
	// As upstream: the pod's ephemeral volume has no storage class; its
	// claim, named after the pod and the volume, is bound to a volume of
	// another driver that is being deleted.
	conformanceCase{Name: "volume-being-deleted", Run: func(t *T) {
		w := newSchedWorld(schedPool())
		pv := volume("my-volume")
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: "other-provider", VolumeHandle: "my-volume"}
		deleting(&pv.ObjectMeta)
		w.in.PersistentVolumes = []*corev1.PersistentVolume{pv}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("p-tmp-ephemeral", "", "my-volume")}
		p := unschedPod("p", "", ephemeralVolume(nil))
		expectNotScheduled(t, w.solve(p), p)
	}},
	pendingWithVolumes("lost-claim", "", func(w *schedWorld) {
		w.in.PersistentVolumes = []*corev1.PersistentVolume{volume("my-volume")}
		c := claim("my-claim", "", "my-volume")
		c.Status.Phase = corev1.ClaimLost
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{c}
	}),
	// claim stamps a claim naming a volume as bound, as upstream's helper
	// does; the spec deletes the annotation again.
	pendingWithVolumes("claim-naming-volume-without-annotation", "", func(w *schedWorld) {
		w.in.PersistentVolumes = []*corev1.PersistentVolume{volume("my-volume", zoneTerm("test-zone-1"))}
		c := claim("my-claim", "", "my-volume")
		delete(c.Annotations, scheduling.AnnotationBindCompleted)
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{c}
	}),
	placedWithVolumes("claim-naming-volume-with-annotation", func(w *schedWorld) {
		w.in.PersistentVolumes = []*corev1.PersistentVolume{volume("my-volume", zoneTerm("test-zone-1"))}
		c := claim("my-claim", "", "my-volume")
		c.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{c}
	}),
	ephemeralClaim("bound-ephemeral-claim-missing-class", "missing", "my-volume", false),
	ephemeralClaim("bound-ephemeral-claim-empty-class", "", "my-volume", false),
	ephemeralClaim("unbound-ephemeral-claim-missing-class", "missing", "", true),
	ephemeralClaim("unbound-ephemeral-claim-empty-class", "", "", true),
)

// hostnameOrZone: a volume whose first node-affinity term is a hostname
// and whose second an unknown zone leaves the pod placeable once the
// hostname is dropped.
func hostnameOrZone(name string, kind func(*corev1.PersistentVolume)) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		pv := volume("hostname-or-zone-pv",
			corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req(apis.LabelHostname, opIn, "existing-host")}},
			zoneTerm("invalid-zone"))
		kind(pv)
		w := newSchedWorld(schedPool())
		w.in.PersistentVolumes = []*corev1.PersistentVolume{pv}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("hostname-or-zone-pvc", "-", pv.Name)}
		p := unschedPod("hostname-or-zone-pod", "", mounts("hostname-or-zone-pvc"))
		claimOf(t, w.solve(p), p)
	}}
}

// ephemeralClaim: a pod's ephemeral volume whose claim exists already,
// naming class (missing from the cluster, or empty) and bound to volume or
// not; blocked says whether the pod stays pending.
func ephemeralClaim(name, class, volumeName string, blocked bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("other", csiDriver)}
		if volumeName != "" {
			w.in.PersistentVolumes = []*corev1.PersistentVolume{volume(volumeName, zoneTerm("test-zone-1"))}
		}
		p := unschedPod("p", "", ephemeralVolume(&class))
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim("p-tmp-ephemeral", class, volumeName)}
		res := w.solve(p)
		if blocked {
			expectNotScheduled(t, res, p)
		} else {
			claimOf(t, res, p)
		}
	}}
}

// migratedSecondNode: a first pod whose volume is of the in-tree EBS
// storage class gets a node where the EBS CSI driver may attach one volume;
// a second such pod needs another node, its in-tree volume counting against
// the CSI driver's limit.
func migratedSecondNode(name string, ephemeral bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(schedPool())
		w.in.StorageClasses = []*storagev1.StorageClass{schedStorageClass("in-tree-storage-class", "kubernetes.io/aws-ebs", "test-zone-1")}
		class := "in-tree-storage-class"
		volumeOf := func(pod string) podOption {
			if ephemeral {
				return ephemeralVolume(&class)
			}
			return mounts(pod + "-claim")
		}
		pv := volume("my-volume", zoneTerm("test-zone-1"))
		pv.Spec.CSI, pv.Spec.AWSElasticBlockStore = nil, &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}
		w.in.PersistentVolumes = []*corev1.PersistentVolume{pv}
		firstClaim, secondClaim := "first-claim", "second-claim"
		if ephemeral {
			firstClaim, secondClaim = "first-tmp-ephemeral", "second-tmp-ephemeral"
		}
		w.in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{claim(firstClaim, class, "")}
		n := firstNode(t, w, unschedPod("first", "", volumeOf("first")), false)
		n.VolumeLimits = map[string]int{"ebs.csi.aws.com": 1}
		w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim(secondClaim, class, ""))
		second := unschedPod("second", "", volumeOf("second"))
		claimOf(t, w.solve(second), second)
	}}
}

var _ = register("scheduling",
	migratedSecondNode("migrated-in-tree-claim-counts-against-csi-limit", false),
	migratedSecondNode("migrated-in-tree-ephemeral-volume-counts-against-csi-limit", true),
)
