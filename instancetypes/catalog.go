package instancetypes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
)

// Catalog is a set of instance types sorted by name, names unique. Build one
// with NewCatalog; the functions of this package that return catalogs keep
// that order. Its instance types may be shared with other catalogs and must
// not be modified.
type Catalog []*InstanceType

// NewCatalog returns the types sorted by name, in a new slice. A nil type or
// two types with one name are an error.
func NewCatalog(types ...*InstanceType) (Catalog, error) {
	out := slices.Clone(Catalog(types))
	for i, it := range out {
		if it == nil {
			return nil, fmt.Errorf("instance type %d is nil", i)
		}
	}
	slices.SortFunc(out, func(a, b *InstanceType) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if out[i-1].Name == out[i].Name {
			return nil, fmt.Errorf("two instance types are named %q", out[i].Name)
		}
	}
	return out, nil
}

// Get returns the instance type named name.
func (c Catalog) Get(name string) (*InstanceType, bool) {
	i, found := slices.BinarySearchFunc(c, name, func(it *InstanceType, name string) int {
		return strings.Compare(it.Name, name)
	})
	if !found {
		return nil, false
	}
	return c[i], true
}

// Names returns the names of the types, sorted.
func (c Catalog) Names() []string {
	names := make([]string, len(c))
	for i, it := range c {
		names[i] = it.Name
	}
	return names
}

// WellKnownLabels returns the well-known labels of the catalog's cloud,
// sorted: those of the label rules of its types (InstanceType.LabelRules),
// which a NodeClaim of the catalog may leave undefined; the default
// cloud's (apis.AWSLabels) for an empty catalog.
func (c Catalog) WellKnownLabels() []string {
	var rules []*apis.LabelRules
	for _, it := range c {
		if r := it.LabelRules(); !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	switch len(rules) {
	case 0:
		return apis.AWSLabels.WellKnownLabels()
	case 1:
		return rules[0].WellKnownLabels()
	}
	var keys []string
	for _, r := range rules {
		keys = append(keys, r.WellKnownLabels()...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// LabelKeys returns every label key some type of the catalog constrains,
// sorted. Keys outside apis.WellKnownLabels (the synthetic catalogs' "size"
// or karpenter.kwok.sh/* labels) are the ones Karpenter registers as
// well-known when such a catalog is in use.
func (c Catalog) LabelKeys() []string {
	seen := map[string]bool{}
	var keys, buf []string
	for i, it := range c {
		// Types of a catalog mostly constrain the same keys: skip the
		// lookups when they repeat the previous type's.
		if i > 0 && it.Requirements.SameKeys(c[i-1].Requirements) {
			continue
		}
		for _, key := range it.Requirements.AppendKeys(buf[:0]) {
			if !seen[key] {
				seen[key] = true
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
