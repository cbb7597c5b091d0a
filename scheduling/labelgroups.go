package scheduling

import (
	"slices"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// LabelGroups are the instance types a compiled NodePool offers grouped by
// their requirement on one label key: a pool's hundreds of types have a
// few dozen distinct vCPU counts, families or generations between them,
// so that a requirement of the key is weighed once per group, not once
// per type.
type LabelGroups struct {
	// Of is, per option of the pool (in its price order), the group of
	// its type, -1 when the type has no requirement on the key.
	Of []int32
	// Reqs are, per group, its types' requirement on the key.
	Reqs []requirements.Requirement
	// Index is each option's index, by its instance type.
	Index map[*instancetypes.InstanceType]int32
}

// LabelGroups returns the types the pool offers, compiled as Prepare
// compiles it, grouped on each of the keys: the groups its narrowings
// (PrepareNarrowing) weigh their requirements by, worked out once for
// them and the caller, in one pass over the types. The groups are
// shared: the caller must not change them.
func (c *Compiler) LabelGroups(p Pool, keys ...string) []LabelGroups {
	t := c.compile(p)
	t.groupsOnAll(keys)
	if t.optionIndex == nil {
		t.optionIndex = make(map[*instancetypes.InstanceType]int32, len(t.options))
		for i, o := range t.options {
			if _, dup := t.optionIndex[o.it]; !dup {
				t.optionIndex[o.it] = int32(i)
			}
		}
	}
	out := make([]LabelGroups, len(keys))
	for n, key := range keys {
		g := t.groupsOn(key)
		out[n] = LabelGroups{Of: g.of, Reqs: g.reqs, Index: t.optionIndex}
	}
	return out
}

// groupsOnAll makes the options' groups on each key not grouped yet
// (groupsOn), in one pass over the options: each type's requirements are
// read once for all the keys.
func (t *template) groupsOnAll(keys []string) {
	var todo []string
	for _, key := range keys {
		if _, done := t.groups[key]; !done && !slices.Contains(todo, key) {
			todo = append(todo, key)
		}
	}
	if len(todo) == 0 {
		return
	}
	groups := make([]*keyGroups, len(todo))
	index := make([]map[string]int32, len(todo))
	for n := range todo {
		groups[n], index[n] = &keyGroups{of: make([]int32, len(t.options))}, map[string]int32{}
	}
	var buf []byte
	for i, o := range t.options {
		for n, key := range todo {
			g := groups[n]
			r, ok := o.it.Requirements.Lookup(key)
			if !ok {
				g.of[i] = -1
				continue
			}
			buf = r.AppendKey(buf[:0])
			k, ok := index[n][string(buf)]
			if !ok {
				k = int32(len(g.reqs))
				index[n][string(buf)] = k
				g.reqs = append(g.reqs, r)
			}
			g.of[i] = k
		}
	}
	if t.groups == nil {
		t.groups = map[string]*keyGroups{}
	}
	for n, key := range todo {
		t.groups[key] = groups[n]
	}
}
