package scheduling

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// volumes indexes the persistent volume claims, volumes and storage
// classes pods mount, to derive where their volumes let them run and how
// many volumes of each CSI driver they attach.
type volumes struct {
	// known is false when the input gave no claim, volume or storage class
	// at all: pods' volumes are then not checked, since nothing is known of
	// them (a partial snapshot, not a cluster without volumes).
	known   bool
	claims  map[string]*corev1.PersistentVolumeClaim // namespace/name
	pvs     map[string]*corev1.PersistentVolume
	classes map[string]*storagev1.StorageClass
	// defaultClass is the storage class of an unbound claim that names
	// none, as admission gives it when the claim is created.
	defaultClass string
	// unsupportedDrivers and unsupportedKeys are Options'
	// UnsupportedProvisioners and UnsupportedTopologyKeys.
	unsupportedDrivers, unsupportedKeys []string
}

// volumeUse is one persistent volume a pod attaches: the claim, shared by
// every pod that mounts it, and its CSI driver.
type volumeUse struct {
	driver string
	claim  string
}

func newVolumes(in Input) *volumes {
	v := &volumes{claims: map[string]*corev1.PersistentVolumeClaim{}, pvs: map[string]*corev1.PersistentVolume{}, classes: map[string]*storagev1.StorageClass{}}
	for _, c := range in.PersistentVolumeClaims {
		v.claims[apis.NamespaceOf(c.Namespace)+"/"+c.Name] = c
	}
	for _, pv := range in.PersistentVolumes {
		v.pvs[pv.Name] = pv
	}
	for _, sc := range in.StorageClasses {
		v.classes[sc.Name] = sc
	}
	v.known = len(v.claims)+len(v.pvs)+len(v.classes) > 0
	v.defaultClass = defaultStorageClass(in.StorageClasses)
	v.unsupportedDrivers, v.unsupportedKeys = in.Options.UnsupportedProvisioners, in.Options.UnsupportedTopologyKeys
	return v
}

// defaultStorageClass is the class the API server gives a claim that names
// none: the one annotated as default, the newest when several are (as
// Kubernetes does since 1.26), then the first by name; "" when none is.
func defaultStorageClass(classes []*storagev1.StorageClass) string {
	var best *storagev1.StorageClass
	for _, sc := range classes {
		if sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
			continue
		}
		if best == nil || sc.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			sc.CreationTimestamp.Equal(&best.CreationTimestamp) && sc.Name < best.Name {
			best = sc
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// maxVolumeAlternatives bounds how many combinations of its volumes'
// topology alternatives a pod carries, so that many multi-term volumes
// cannot blow up its node affinity.
const maxVolumeAlternatives = 64

// forPod returns the alternative node requirements the pod's volumes allow,
// any one of which will do (nil when they impose none), and the volumes it
// attaches. A bound claim allows each term of its volume's node affinity
// (less hostname for local and hostPath volumes, which a rescheduled pod
// cannot keep); an unbound one each term of its storage class's
// allowedTopologies; the pod's alternatives are every combination of one
// per volume, in order. An unbound claim that names no storage class has
// the default one. A claim that does not exist, an unbound claim without a
// storage class (nor a default), or a missing volume or class makes the pod
// unplaceable, as in Karpenter.
func (v *volumes) forPod(p *corev1.Pod) ([][]corev1.NodeSelectorRequirement, []volumeUse, error) {
	if !v.known {
		return nil, nil, nil
	}
	var alts [][]corev1.NodeSelectorRequirement
	var uses []volumeUse
	for _, vol := range p.Spec.Volumes {
		claim, err := v.claimOf(p, vol)
		if err != nil || claim == nil {
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		r, driver, err := v.claimRequirements(claim)
		if err != nil {
			return nil, nil, fmt.Errorf("volume %q: %w", vol.Name, err)
		}
		if driver != "" && slices.Contains(v.unsupportedDrivers, driver) {
			return nil, nil, fmt.Errorf("volume %q: its provisioner %q is one the cloud provider does not support", vol.Name, driver)
		}
		alts = combine(alts, r)
		if driver != "" {
			uses = append(uses, volumeUse{driver: driver, claim: apis.NamespaceOf(claim.Namespace) + "/" + claim.Name})
		}
	}
	return alts, uses, nil
}

// combine returns every alternative of alts joined with every one of more,
// alts varying slowest, at most maxVolumeAlternatives of them; no
// alternatives on either side leaves the other as it is. Like Karpenter, it
// keeps only the joins whose two sides can hold together, unless none can,
// when it keeps them all.
func combine(alts, more [][]corev1.NodeSelectorRequirement) [][]corev1.NodeSelectorRequirement {
	switch {
	case len(more) == 0:
		return alts
	case len(alts) == 0:
		return more
	}
	var all, compatible [][]corev1.NodeSelectorRequirement
	for _, a := range alts {
		for _, m := range more {
			joined := append(slices.Clone(a), m...)
			if len(all) < maxVolumeAlternatives {
				all = append(all, joined)
			}
			if len(compatible) < maxVolumeAlternatives && intersect(a, m) {
				compatible = append(compatible, joined)
			}
		}
	}
	if len(compatible) > 0 {
		return compatible
	}
	return all
}

// intersect reports whether two alternatives allow a common value for
// every key both name; an alternative that cannot be read is taken as
// intersecting, to be refused later with the pod's other requirements.
func intersect(a, b []corev1.NodeSelectorRequirement) bool {
	ra, errA := requirements.FromNodeSelectorRequirements(a...)
	rb, errB := requirements.FromNodeSelectorRequirements(b...)
	return errA != nil || errB != nil || ra.Intersects(rb) == nil
}

// claimOf returns the claim a volume mounts: a persistentVolumeClaim
// source, or the claim Kubernetes creates for a generic ephemeral volume
// (named <pod>-<volume>, from the volume's template when not created yet).
func (v *volumes) claimOf(p *corev1.Pod, vol corev1.Volume) (*corev1.PersistentVolumeClaim, error) {
	ns := apis.NamespaceOf(p.Namespace)
	switch {
	case vol.PersistentVolumeClaim != nil:
		c, ok := v.claims[ns+"/"+vol.PersistentVolumeClaim.ClaimName]
		if !ok {
			return nil, fmt.Errorf("volume %q: PersistentVolumeClaim %s/%s not found", vol.Name, ns, vol.PersistentVolumeClaim.ClaimName)
		}
		return c, nil
	case vol.Ephemeral != nil && vol.Ephemeral.VolumeClaimTemplate != nil:
		name := p.Name + "-" + vol.Name
		if c, ok := v.claims[ns+"/"+name]; ok {
			return c, nil
		}
		c := &corev1.PersistentVolumeClaim{Spec: vol.Ephemeral.VolumeClaimTemplate.Spec}
		c.Name, c.Namespace = name, ns
		return c, nil
	}
	return nil, nil
}

// AnnotationBindCompleted is the annotation Kubernetes' volume binder sets
// on a PersistentVolumeClaim once it is bound to the volume it names.
const AnnotationBindCompleted = "pv.kubernetes.io/bind-completed"

// claimRequirements also refuses what kube-scheduler refuses, and so
// Karpenter: a claim being deleted or Lost, a bound volume being deleted,
// a claim that names a volume without the binder's AnnotationBindCompleted,
// and an unbound claim of a storage class that binds Immediately (its
// volume is made without regard to the pod, which must wait for it).
func (v *volumes) claimRequirements(c *corev1.PersistentVolumeClaim) ([][]corev1.NodeSelectorRequirement, string, error) {
	switch {
	case c.DeletionTimestamp != nil:
		return nil, "", fmt.Errorf("PersistentVolumeClaim %s is being deleted", c.Name)
	case c.Status.Phase == corev1.ClaimLost:
		return nil, "", fmt.Errorf("PersistentVolumeClaim %s is Lost: its volume no longer exists", c.Name)
	}
	if name := c.Spec.VolumeName; name != "" {
		pv, ok := v.pvs[name]
		if !ok {
			return nil, "", fmt.Errorf("PersistentVolume %q of claim %s not found", name, c.Name)
		}
		if pv.DeletionTimestamp != nil {
			return nil, "", fmt.Errorf("PersistentVolume %q of claim %s is being deleted", name, c.Name)
		}
		// kube-scheduler takes a claim that names a volume as bound only
		// once the binder has stamped it so, and Karpenter ignores a pod
		// whose claim is not (volumetopology.go, ValidatePersistentVolumeClaims).
		if _, ok := c.Annotations[AnnotationBindCompleted]; !ok {
			return nil, "", fmt.Errorf("PersistentVolumeClaim %s names PersistentVolume %q but lacks the %s annotation of a completed binding", c.Name, name, AnnotationBindCompleted)
		}
		return pvRequirements(pv), pvDriver(pv), nil
	}
	className := ptrValue(c.Spec.StorageClassName)
	if c.Spec.StorageClassName == nil {
		className = v.defaultClass
	}
	if className == "" {
		return nil, "", fmt.Errorf("unbound PersistentVolumeClaim %s must name a storage class", c.Name)
	}
	sc, ok := v.classes[className]
	if !ok {
		return nil, "", fmt.Errorf("StorageClass %q of claim %s not found", className, c.Name)
	}
	if mode := sc.VolumeBindingMode; mode != nil && *mode == storagev1.VolumeBindingImmediate {
		return nil, "", fmt.Errorf("unbound PersistentVolumeClaim %s of StorageClass %q, which binds Immediately, must be bound first", c.Name, className)
	}
	var alts [][]corev1.NodeSelectorRequirement
	for _, term := range sc.AllowedTopologies {
		var reqs []corev1.NodeSelectorRequirement
		for _, e := range term.MatchLabelExpressions {
			if slices.Contains(v.unsupportedKeys, e.Key) {
				return nil, "", fmt.Errorf("StorageClass %q of claim %s allows topologies by %q, a key the cloud provider's nodes never carry", className, c.Name, e.Key)
			}
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
		}
		alts = append(alts, reqs)
	}
	return alts, csiDriver(sc.Provisioner), nil
}

// migratedDrivers are the CSI drivers that took over in-tree volume
// plugins: Kubernetes counts a migrated volume against its driver's limit,
// and so does Karpenter.
var migratedDrivers = map[string]string{
	"kubernetes.io/aws-ebs":    "ebs.csi.aws.com",
	"kubernetes.io/gce-pd":     "pd.csi.storage.gke.io",
	"kubernetes.io/azure-disk": "disk.csi.azure.com",
	"kubernetes.io/cinder":     "cinder.csi.openstack.org",
}

// csiDriver is the CSI driver of a provisioner, an in-tree one translated.
func csiDriver(provisioner string) string {
	if d, ok := migratedDrivers[provisioner]; ok {
		return d
	}
	return provisioner
}

// pvDriver is the CSI driver of a volume, an in-tree source translated;
// "" for a volume no CSI driver attaches (NFS, local, hostPath).
func pvDriver(pv *corev1.PersistentVolume) string {
	switch src := pv.Spec.PersistentVolumeSource; {
	case src.CSI != nil:
		return src.CSI.Driver
	case src.AWSElasticBlockStore != nil:
		return migratedDrivers["kubernetes.io/aws-ebs"]
	case src.GCEPersistentDisk != nil:
		return migratedDrivers["kubernetes.io/gce-pd"]
	case src.AzureDisk != nil:
		return migratedDrivers["kubernetes.io/azure-disk"]
	case src.Cinder != nil:
		return migratedDrivers["kubernetes.io/cinder"]
	}
	return ""
}

func pvRequirements(pv *corev1.PersistentVolume) [][]corev1.NodeSelectorRequirement {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	var alts [][]corev1.NodeSelectorRequirement
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		reqs := term.MatchExpressions
		if pv.Spec.Local != nil || pv.Spec.HostPath != nil {
			reqs = slices.DeleteFunc(slices.Clone(reqs), func(r corev1.NodeSelectorRequirement) bool { return r.Key == apis.LabelHostname })
		}
		alts = append(alts, reqs)
	}
	return alts
}

// withVolumeRequirements returns a copy of the pod whose required
// node-selector terms are each of its own (one empty term if it had none)
// joined with each volume alternative, its own terms varying slowest: the
// pod may run where any of them holds, relaxation tries the alternatives in
// turn, and since it never drops the last term, the volumes always
// constrain the pod.
func withVolumeRequirements(p *corev1.Pod, alts [][]corev1.NodeSelectorRequirement) *corev1.Pod {
	out := p.DeepCopy()
	if out.Spec.Affinity == nil {
		out.Spec.Affinity = &corev1.Affinity{}
	}
	if out.Spec.Affinity.NodeAffinity == nil {
		out.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := out.Spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	own := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(own) == 0 {
		own = []corev1.NodeSelectorTerm{{}}
	}
	terms := make([]corev1.NodeSelectorTerm, 0, len(own)*len(alts))
	for _, t := range own {
		for _, a := range alts {
			joined := t.DeepCopy()
			joined.MatchExpressions = append(joined.MatchExpressions, a...)
			terms = append(terms, *joined)
		}
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms
	return out
}

// withoutVolumeRequirements undoes withVolumeRequirements: a copy of p
// whose required node-affinity terms lack the volume alternative appended to
// each, the longest of alts that ends the term. An expression of the pod's
// own equal to a volume's stays (zone In [b] of the pod's own affinity beside
// a volume in zone b still narrows the spread's domains, as Karpenter keeps
// volume requirements apart).
func withoutVolumeRequirements(p *corev1.Pod, alts [][]corev1.NodeSelectorRequirement) *corev1.Pod {
	out := p.DeepCopy()
	if out.Spec.Affinity == nil {
		return out
	}
	na := out.Spec.Affinity.NodeAffinity
	if na == nil || na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	for i := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		term := &na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i]
		cut := 0
		for _, a := range alts {
			if len(a) > cut && len(a) <= len(term.MatchExpressions) &&
				slices.EqualFunc(term.MatchExpressions[len(term.MatchExpressions)-len(a):], a, sameExpression) {
				cut = len(a)
			}
		}
		term.MatchExpressions = term.MatchExpressions[:len(term.MatchExpressions)-cut]
	}
	return out
}

func sameExpression(a, b corev1.NodeSelectorRequirement) bool {
	return a.Key == b.Key && a.Operator == b.Operator && slices.Equal(a.Values, b.Values)
}

// volumeUsage counts the claims attached to a node per CSI driver; a claim
// shared by several pods counts once.
type volumeUsage map[string]map[string]bool

func (u volumeUsage) add(uses []volumeUse) {
	for _, use := range uses {
		if u[use.driver] == nil {
			u[use.driver] = map[string]bool{}
		}
		u[use.driver][use.claim] = true
	}
}

// exceeds returns an error naming the first driver whose limit the pod's
// volumes would exceed on a node with these limits.
func (u volumeUsage) exceeds(uses []volumeUse, limits map[string]int) error {
	added := volumeUsage{}
	for _, use := range uses {
		if _, limited := limits[use.driver]; limited && !u[use.driver][use.claim] {
			added.add([]volumeUse{use})
		}
	}
	drivers := make([]string, 0, len(added))
	for driver := range added {
		drivers = append(drivers, driver)
	}
	slices.Sort(drivers)
	for _, driver := range drivers {
		if count := len(u[driver]) + len(added[driver]); count > limits[driver] {
			return fmt.Errorf("would attach %d volumes of CSI driver %s, over its limit of %d", count, driver, limits[driver])
		}
	}
	return nil
}

// countWith counts, per driver, the claims attached with uses added: a
// claim already attached, or named twice, counts once.
func (u volumeUsage) countWith(uses []volumeUse) map[string]int {
	counts := make(map[string]int, len(u)+1)
	for driver, claims := range u {
		counts[driver] = len(claims)
	}
	for i, use := range uses {
		if u[use.driver][use.claim] || slices.ContainsFunc(uses[:i], func(v volumeUse) bool { return v == use }) {
			continue
		}
		counts[use.driver]++
	}
	return counts
}

// withinLimits reports whether a node with these per-driver limits can
// attach the counted volumes; a driver without a limit takes any number.
func withinLimits(counts, limits map[string]int) bool {
	if len(limits) == 0 {
		return true
	}
	for driver, n := range counts {
		if limit, ok := limits[driver]; ok && n > limit {
			return false
		}
	}
	return true
}

// volumeLimitsError says why no option can attach the counted volumes:
// the first driver, by name, whose limit every option has and the volumes
// exceed, with the largest such limit.
func volumeLimitsError(options []*typeOption, counts map[string]int) error {
	drivers := make([]string, 0, len(counts))
	for driver := range counts {
		drivers = append(drivers, driver)
	}
	slices.Sort(drivers)
	for _, driver := range drivers {
		most, all := -1, len(options) > 0
		for _, o := range options {
			limit, ok := o.it.VolumeAttachmentLimits[driver]
			if !ok || counts[driver] <= limit {
				all = false
				break
			}
			most = max(most, limit)
		}
		if all {
			return fmt.Errorf("would attach %d volumes of CSI driver %s, over the limit of every instance type (at most %d)", counts[driver], driver, most)
		}
	}
	return fmt.Errorf("would exceed a volume limit of every instance type that holds the pods")
}
