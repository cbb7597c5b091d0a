package scheduling

import (
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
// compiles it, grouped on the key: the groups its narrowings
// (PrepareNarrowing) weigh their requirements by, worked out once for
// them and the caller. The result is shared: the caller must not change
// it.
func (c *Compiler) LabelGroups(p Pool, key string) LabelGroups {
	t := c.compile(p)
	g := t.groupsOn(key)
	if t.optionIndex == nil {
		t.optionIndex = make(map[*instancetypes.InstanceType]int32, len(t.options))
		for i, o := range t.options {
			if _, dup := t.optionIndex[o.it]; !dup {
				t.optionIndex[o.it] = int32(i)
			}
		}
	}
	return LabelGroups{Of: g.of, Reqs: g.reqs, Index: t.optionIndex}
}
