package snapshot

import (
	"embed"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// defaults holds the NodePool and EC2NodeClass used when the Set has no
// NodePool: the "default" ones of the seed guide (testdata/seed-manifests).
//
//go:embed defaults/*.yaml
var defaults embed.FS

// defaultFiles are the embedded files, EC2NodeClass first.
var defaultFiles = []string{"defaults/001-ec2nodeclass-default.yaml", "defaults/001-nodepool-default.yaml"}

// DefaultManifests returns the embedded default EC2NodeClass and NodePool as
// one YAML stream, the manifests FromSet uses when a Set has no NodePool.
func DefaultManifests() []byte {
	var out []byte
	for _, name := range defaultFiles {
		data, err := defaults.ReadFile(name)
		if err != nil {
			// The files are embedded at build time; a test reads them.
			panic(fmt.Sprintf("snapshot: embedded %s: %v", name, err))
		}
		if len(out) > 0 {
			out = append(out, "\n---\n"...)
		}
		out = append(out, data...)
	}
	return out
}

// defaultSet decodes the embedded defaults. Their own warnings (the seed
// NodePool leaves out consolidateAfter) are not the user's concern and are
// dropped.
func defaultSet() (*manifests.Set, error) {
	return manifests.Decode("karpsim's default NodePool", DefaultManifests())
}

// addNodePools resolves each NodePool's EC2NodeClass and catalog, or the
// default NodePool when the Set has none.
func (b *builder) addNodePools() {
	for _, nc := range b.in.EC2NodeClasses {
		b.classes[nc.Name] = nc
	}
	pools := b.in.NodePools
	if len(pools) == 0 {
		pools = b.useDefaultNodePool()
	}
	for _, np := range pools {
		b.pools[np.Name] = np
	}
	for _, np := range pools {
		label := objectLabel(apis.KindNodePool, "", np.Name)
		switch {
		case np.DeletionTimestamp != nil:
			b.warn(fmt.Sprintf("%s is being deleted: Karpenter launches no node from it", label))
			continue
		case np.Spec.Replicas != nil:
			b.warn(fmt.Sprintf("%s is static (spec.replicas: %d): Karpenter does not provision from it for pending pods, and karpsim does not model static NodePools yet", label, *np.Spec.Replicas))
			continue
		}
		if why := b.notReady(np); why != "" {
			b.warn(fmt.Sprintf("%s is not ready (%s): Karpenter launches no node from it until it is", label, why))
			continue
		}
		catalog, ok := b.poolCatalog(np)
		if !ok {
			continue
		}
		b.snap.NodePools = append(b.snap.NodePools, scheduling.Pool{NodePool: np.DeepCopy(), InstanceTypes: catalog})
	}
}

// notReady says why a NodePool is not Ready, or "" when it is. Karpenter
// provisions only from Ready NodePools, and a NodePool is Ready only when
// its node class is: a Ready condition in the NodePool's status, or else in
// its EC2NodeClass's, that is not True says it is not. A NodePool whose
// status has no Ready condition, as a file written by hand has none, is
// taken as Ready.
func (b *builder) notReady(np *apis.NodePool) string {
	if c := meta.FindStatusCondition(np.Status.Conditions, readyCondition); c != nil {
		if c.Status == metav1.ConditionTrue {
			return ""
		}
		return conditionText("status.conditions", c)
	}
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return ""
	}
	if nc := b.classes[ref.Name]; nc != nil {
		if c := meta.FindStatusCondition(nc.Status.Conditions, readyCondition); c != nil && c.Status != metav1.ConditionTrue {
			return conditionText(objectLabel(apis.KindEC2NodeClass, "", nc.Name)+" status.conditions", c)
		}
	}
	return ""
}

// readyCondition is the condition type Karpenter's objects report
// readiness with.
const readyCondition = "Ready"

func conditionText(where string, c *metav1.Condition) string {
	text := fmt.Sprintf("%s Ready=%s", where, c.Status)
	if c.Reason != "" {
		text += ", " + c.Reason
	}
	if c.Message != "" {
		text += ": " + c.Message
	}
	return text
}

// useDefaultNodePool returns the embedded default NodePool, with the Set's
// EC2NodeClass named "default" when it has one, else the embedded one.
func (b *builder) useDefaultNodePool() []*apis.NodePool {
	set, err := defaultSet()
	if err != nil {
		b.errs.Add(fmt.Errorf("snapshot: the embedded default NodePool does not load: %w", err))
		return nil
	}
	np := set.NodePools[0]
	name := np.Spec.Template.Spec.NodeClassRef.Name
	b.snap.DefaultNodePool = true
	if _, given := b.classes[name]; given {
		b.warn(fmt.Sprintf("no NodePool given: using karpsim's default NodePool %q (instance categories c, m, r; amd64; spot or on-demand) with the given EC2NodeClass %q", np.Name, name))
	} else {
		b.classes[name] = set.EC2NodeClasses[0]
		b.warn(fmt.Sprintf("no NodePool given: using karpsim's default NodePool %q and EC2NodeClass %q (instance categories c, m, r; amd64; spot or on-demand; AL2023)", np.Name, name))
	}
	return set.NodePools
}

// poolCatalog returns the catalog of the NodePool's EC2NodeClass with the
// NodeOverlays applied, as Karpenter's cloud provider hands it to the
// scheduler and to consolidation.
func (b *builder) poolCatalog(np *apis.NodePool) (instancetypes.Catalog, bool) {
	base, ok := b.classCatalog(np)
	if !ok || len(b.in.NodeOverlays) == 0 {
		return base, ok
	}
	b.applyOverlays()
	if c, found := b.overlaid[np.Name]; found {
		return c, true
	}
	return base, true
}

// applyOverlays applies the NodeOverlays to the catalogs of every NodePool
// at once (an overlay that conflicts in one NodePool applies in none), and
// warns of each overlay left out.
func (b *builder) applyOverlays() {
	if b.overlaid != nil {
		return
	}
	b.overlaid = map[string]instancetypes.Catalog{}
	var pools []instancetypes.OverlayPool
	for _, name := range slices.Sorted(maps.Keys(b.pools)) {
		np := b.pools[name]
		ref := np.Spec.Template.Spec.NodeClassRef
		if ref == nil {
			continue
		}
		nc, ok := b.classes[ref.Name]
		if !ok {
			continue
		}
		if c, ok := b.catalog(nc); ok {
			pools = append(pools, instancetypes.OverlayPool{Name: name, Labels: np.Spec.Template.ObjectMeta.Labels, Types: c})
		}
	}
	catalogs, conflicts := instancetypes.ApplyOverlays(pools, b.in.NodeOverlays)
	for i, p := range pools {
		b.overlaid[p.Name] = catalogs[i]
	}
	for _, c := range conflicts {
		b.warn(c.String())
	}
}

// classCatalog returns the catalog of the NodePool's EC2NodeClass. manifests
// refuses a NodePool whose class is missing; a Set built otherwise gets a
// clear error.
func (b *builder) classCatalog(np *apis.NodePool) (instancetypes.Catalog, bool) {
	label := objectLabel(apis.KindNodePool, "", np.Name)
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil || ref.Name == "" {
		b.fail(np, manifests.ErrInvalid, label, "spec.template.spec.nodeClassRef", "required: the EC2NodeClass whose instance types the NodePool launches")
		return nil, false
	}
	nc, ok := b.classes[ref.Name]
	if !ok {
		b.fail(np, manifests.ErrMissingReference, label, "spec.template.spec.nodeClassRef.name", fmt.Sprintf("EC2NodeClass %q not found", ref.Name))
		return nil, false
	}
	return b.catalog(nc)
}

// catalog builds the catalog of an EC2NodeClass once; nil stands for the
// default EC2NodeClass settings.
func (b *builder) catalog(nc *apis.EC2NodeClass) (instancetypes.Catalog, bool) {
	key := ""
	if nc != nil {
		key = nc.Name
	}
	if c, ok := b.catalogs[key]; ok {
		return c, c != nil
	}
	c, err := b.opts.CatalogFor(nc, b.in.NodeOverlays...)
	if err != nil {
		if nc == nil {
			b.errs.Add(fmt.Errorf("snapshot: instance types for region %q, zones %v: %w", b.opts.Region, b.opts.Zones, err))
		} else {
			b.fail(nc, manifests.ErrInvalid, objectLabel(apis.KindEC2NodeClass, "", nc.Name), "", fmt.Sprintf("cannot model its instance types: %v", err))
		}
	}
	b.catalogs[key] = c
	return c, c != nil
}

// catalogNamed returns the catalog of the EC2NodeClass called name, or of
// the default settings when there is no such class.
func (b *builder) catalogNamed(name string) (instancetypes.Catalog, bool) {
	return b.catalog(b.classes[name])
}
