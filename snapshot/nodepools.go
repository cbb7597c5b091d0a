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
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
)

// defaults holds the NodePool and node class used when the Set has no
// NodePool: on AWS the "default" ones of the seed guide
// (testdata/seed-manifests), on Azure those of the Azure provider's
// general-purpose example.
//
//go:embed defaults/*.yaml defaults/azure/*.yaml
var defaults embed.FS

// defaultFiles are the embedded files of each cloud, node class first.
var defaultFiles = map[string][]string{
	provider.CloudAWS:   {"defaults/001-ec2nodeclass-default.yaml", "defaults/001-nodepool-default.yaml"},
	provider.CloudAzure: {"defaults/azure/001-aksnodeclass-default.yaml", "defaults/azure/001-nodepool-default.yaml"},
}

// DefaultManifests returns the embedded default EC2NodeClass and NodePool as
// one YAML stream, the manifests FromSet uses when a Set has no NodePool.
func DefaultManifests() []byte { return DefaultManifestsFor(provider.CloudAWS) }

// DefaultManifestsFor returns the embedded default node class and NodePool
// of a cloud (provider.Clouds; AWS for any other) as one YAML stream.
func DefaultManifestsFor(cloud string) []byte {
	files, ok := defaultFiles[cloud]
	if !ok {
		files = defaultFiles[provider.CloudAWS]
	}
	var out []byte
	for _, name := range files {
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

// defaultSetFor decodes a cloud's embedded defaults. Their own warnings
// (the seed NodePool leaves out consolidateAfter) are not the user's
// concern and are dropped.
func defaultSetFor(cloud string) (*manifests.Set, error) {
	return manifests.Decode("karpsim's default NodePool", DefaultManifestsFor(cloud))
}

// addNodePools resolves each NodePool's node class and catalog, or the
// default NodePool when the Set has none.
func (b *builder) addNodePools() {
	for _, nc := range b.in.EC2NodeClasses {
		b.classes[nc.Name] = nc
	}
	for _, nc := range b.in.AKSNodeClasses {
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
// its node class's, that is not True says it is not. A NodePool whose
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
	if p, nc, ok := b.classOf(ref); ok && nc != nil {
		if c := meta.FindStatusCondition(p.Conditions(nc), readyCondition); c != nil && c.Status != metav1.ConditionTrue {
			return conditionText(objectLabel(p.Kind(), "", nc.GetName())+" status.conditions", c)
		}
	}
	return ""
}

// classOf returns the provider of the nodeClassRef's group and the class
// it names, nil when that provider has no class of that name. ok is false
// for a group karpsim does not model.
func (b *builder) classOf(ref *apis.NodeClassReference) (provider.Provider, provider.NodeClass, bool) {
	p, ok := b.providers.For(ref)
	if !ok {
		return nil, nil, false
	}
	if nc, found := b.classes[ref.Name]; found && p.Owns(nc) {
		return p, nc, true
	}
	return p, nil, true
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

// useDefaultNodePool returns the embedded default NodePool of the default
// cloud, with the Set's node class named "default" when it has one of that
// cloud's kind, else the embedded one.
func (b *builder) useDefaultNodePool() []*apis.NodePool {
	p := b.providers.DefaultProvider()
	set, err := defaultSetFor(p.Cloud())
	if err != nil {
		b.errs.Add(fmt.Errorf("snapshot: the embedded default NodePool does not load: %w", err))
		return nil
	}
	np := set.NodePools[0]
	name := np.Spec.Template.Spec.NodeClassRef.Name
	b.snap.DefaultNodePool = true
	summary := defaultSummaries[p.Cloud()]
	if given, ok := b.classes[name]; ok && p.Owns(given) {
		b.warn(fmt.Sprintf("no NodePool given: using karpsim's default NodePool %q (%s) with the given %s %q", np.Name, summary.pool, p.Kind(), name))
	} else {
		if p.Cloud() == provider.CloudAzure {
			b.classes[name] = set.AKSNodeClasses[0]
		} else {
			b.classes[name] = set.EC2NodeClasses[0]
		}
		b.warn(fmt.Sprintf("no NodePool given: using karpsim's default NodePool %q and %s %q (%s; %s)", np.Name, p.Kind(), name, summary.pool, summary.class))
	}
	return set.NodePools
}

// defaultSummaries describe each cloud's default NodePool and node class
// in the warning that says they are used.
var defaultSummaries = map[string]struct{ pool, class string }{
	provider.CloudAWS:   {"instance categories c, m, r; amd64; spot or on-demand", "AL2023"},
	provider.CloudAzure: {"VM size family D; amd64; on-demand", "Ubuntu"},
}

// poolCatalog returns the catalog of the NodePool's node class with the
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
		p, nc, ok := b.classOf(ref)
		if !ok || nc == nil {
			continue
		}
		if c, ok := b.catalog(p, nc); ok {
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

// classCatalog returns the catalog of the NodePool's node class. manifests
// refuses a NodePool whose class is missing; a Set built otherwise gets a
// clear error.
func (b *builder) classCatalog(np *apis.NodePool) (instancetypes.Catalog, bool) {
	label := objectLabel(apis.KindNodePool, "", np.Name)
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil || ref.Name == "" {
		b.fail(np, manifests.ErrInvalid, label, "spec.template.spec.nodeClassRef", fmt.Sprintf("required: the %s whose instance types the NodePool launches", b.providers.DefaultProvider().Kind()))
		return nil, false
	}
	p, nc, ok := b.classOf(ref)
	switch {
	case !ok:
		b.fail(np, manifests.ErrMissingReference, label, "spec.template.spec.nodeClassRef.group", fmt.Sprintf("%q is not the group of a node class karpsim simulates (use %s or %s)", ref.Group, apis.AWSGroup, apis.AzureGroup))
		return nil, false
	case nc == nil:
		b.fail(np, manifests.ErrMissingReference, label, "spec.template.spec.nodeClassRef.name", fmt.Sprintf("%s %q not found", p.Kind(), ref.Name))
		return nil, false
	}
	return b.catalog(p, nc)
}

// defaultClassKey prefixes the catalogs' key of a cloud's default class
// settings (a nil class), which no class name can take.
const defaultClassKey = "\x00"

// catalog builds the catalog of a node class once; nil stands for the
// provider's default class settings.
func (b *builder) catalog(p provider.Provider, nc provider.NodeClass) (instancetypes.Catalog, bool) {
	key := defaultClassKey + p.Cloud()
	if nc != nil {
		key = nc.GetName()
	}
	if c, ok := b.catalogs[key]; ok {
		return c, c != nil
	}
	c, err := p.Catalog(nc, b.in.NodeOverlays)
	if err != nil {
		switch {
		case nc != nil:
			b.fail(nc, manifests.ErrInvalid, objectLabel(p.Kind(), "", nc.GetName()), "", fmt.Sprintf("cannot model its instance types: %v", err))
		case p.Cloud() == provider.CloudAzure:
			b.errs.Add(fmt.Errorf("snapshot: Azure VM sizes for region %q: %w", b.providers.Azure.RegionOrDefault(), err))
		default:
			b.errs.Add(fmt.Errorf("snapshot: instance types for region %q, zones %v: %w", b.opts.Region, b.opts.Zones, err))
		}
	}
	b.catalogs[key] = c
	return c, c != nil
}

// classNamed returns the node class called name and its provider: the
// default cloud's with a nil class when there is no such class.
func (b *builder) classNamed(name string) (provider.Provider, provider.NodeClass) {
	nc, ok := b.classes[name]
	if ok {
		for _, cloud := range provider.Clouds {
			if p := b.providers.ByCloud(cloud); p.Owns(nc) {
				return p, nc
			}
		}
	}
	return b.providers.DefaultProvider(), nil
}

// catalogNamed returns the catalog of the node class called name, or of
// the default cloud's default settings when there is no such class.
func (b *builder) catalogNamed(name string) (instancetypes.Catalog, bool) {
	return b.catalog(b.classNamed(name))
}
