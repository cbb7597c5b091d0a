package optimize

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// editBounds bounds from below what Karpenter's plan costs under a set of
// narrowing NodePool edits, before it is solved, so that Search solves
// only the sets whose plan could beat its best: the aggregate program
// (aggregateLP) over the columns the edited NodePools still launch.
//
// It is a relaxation of every plan under the edits that places the pods
// the model bounds (the pods base schedules, which a kept plan schedules
// too): an edit that restricts a type label only takes columns away, and
// gives no column a pod shape the pool as it is did not; the limits do
// not change; and when there are DaemonSets, whose overhead a narrower
// pool may carry less of, every type is given its whole allocatable; a
// column whose pods all ask for the same counts only the room whole pods
// can use (usableRoom). The columns a narrowing keeps are taken from
// before dominated ones were dropped (model.every), and dominated ones
// dropped again among them.
// Every column keeps its room whatever the edits, so a set of edits that
// narrows further is bounded no lower: the sets the edit search combines
// with a set skipped cannot beat the best plan either.
type editBounds struct {
	in scheduling.Input
	m  *model
	// pools are the model's pools by NodePool name.
	pools map[string]int
	// columns are the model's columns before dominated ones were
	// dropped, less those another offering of the same type dominates,
	// with the room the bound gives them.
	columns []column
	// artificial is the whole model's artificial price, which keeps a
	// program whose pods lost every column still a bound, and high.
	artificial float64
	// typeOf is, per column, its (pool, instance type) in types.
	typeOf []int
	types  []poolType
	// admits are, per single restricting edit (by Edit.String), which
	// of types it leaves (see admitted); values is the bound by the
	// columns a set leaves undominated (see valueKey): sets of edits that
	// leave the same columns have the same program.
	admits map[string]editAdmits
	values map[string]float64
	// groups are the types by their requirement of a key (keyGroups).
	groups map[string]typeGroups
	// labels, when set, groups the types a pool offers on a key, as the
	// compiler of the edit search's narrowings does
	// (scheduling.Compiler.LabelGroups): keyGroups takes its groups.
	labels func(scheduling.Pool, ...string) []scheduling.LabelGroups
	// droppedBy is, per column, the first column before it that
	// undominated keeps of all the columns and that dominates it, -1
	// when none does (see undominated).
	droppedBy []int
	// primals are solutions of the programs solved, and seeded is set
	// once the program of every column was (see skips).
	primals []primalSolution
	seeded  bool
	// shown counts the sets skips answered with a remembered solution,
	// solved those it solved a program for.
	shown, solved int
}

// poolType is an instance type of a model pool.
type poolType struct {
	pool int
	it   *instancetypes.InstanceType
}

// editAdmits is which of editBounds.types edits leave (ok), nil when an
// edited pool's requirements do not read, and whether they restrict a
// model pool at all (narrows).
type editAdmits struct {
	ok      []bool
	narrows bool
}

func newEditBounds(in scheduling.Input, m *model) *editBounds {
	b := &editBounds{in: in, m: m, pools: map[string]int{}, artificial: artificialPrice(m), admits: map[string]editAdmits{}, values: map[string]float64{},
		groups: map[string]typeGroups{}}
	for i, p := range m.pools {
		b.pools[p.name] = i
	}
	// The shapes' requests, and the columns each type of a pool has.
	requests := make([][]float64, len(m.groups))
	for _, g := range m.groups {
		if g.shape >= len(requests) {
			requests = append(requests, make([][]float64, g.shape+1-len(requests))...)
		}
		requests[g.shape] = g.req
	}
	ofType := map[poolType][]int{}
	typeIndex := map[poolType]int{}
	daemons := len(in.DaemonSets) > 0
	for _, c := range m.every {
		if daemons {
			c.room = vectorIn(c.it.Allocatable(), m.dims)
		}
		c.room = usableRoom(c, requests)
		k := poolType{c.pool, c.it}
		// An offering of a type that another of the same type dominates
		// stays dominated under any narrowing, which keeps both or
		// neither.
		if slices.ContainsFunc(ofType[k], func(i int) bool { return dominates(&b.columns[i], &c, m.pools) }) {
			continue
		}
		ofType[k] = append(ofType[k], len(b.columns))
		b.columns = append(b.columns, c)
		ti, ok := typeIndex[k]
		if !ok {
			ti = len(b.types)
			typeIndex[k] = ti
			b.types = append(b.types, k)
		}
		b.typeOf = append(b.typeOf, ti)
	}
	return b
}

// usableRoom is how much of each resource the pods a column takes can use
// of its room: when they all ask for the same, only as many of them as
// fit, each whole (a relaxation still, and a tighter one); otherwise the
// room.
func usableRoom(c column, requests [][]float64) []float64 {
	var req []float64
	for s, r := range requests {
		if r == nil || !c.shapes.has(s) {
			continue
		}
		if req != nil && !slices.Equal(req, r) {
			return c.room
		}
		req = r
	}
	if req == nil {
		return c.room
	}
	n := float64(fitCount(req, c.room, math.MaxInt32))
	usable := make([]float64, len(req))
	for d, v := range req {
		usable[d] = min(c.room[d], n*v)
	}
	return usable
}

// bound is a lower bound on the cost of any plan under the edits that
// places every pod the model bounds: +Inf when some of those pods have no
// column left and no existing node to go to, 0 when the edits are not
// ones it can weigh (they widen a pool, or restrict an offering's zone,
// capacity type or reservation).
func (b *editBounds) bound(edits []Edit) float64 {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
		default:
			return 0
		}
	}
	prog, v, done := b.program(edits)
	if done {
		return v
	}
	return b.solveProgram(prog, aggregateLP(&prog.m, nil, len(prog.m.repel) > 0))
}

// boundProgram is the model of the columns a set of edits leaves
// undominated (kept, by index in editBounds.columns, named by key).
type boundProgram struct {
	m    model
	kept []int
	key  string
}

// program is the model under the edits, or the bound when it is known
// without solving a program (done).
func (b *editBounds) program(edits []Edit) (prog boundProgram, v float64, done bool) {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
		default:
			return prog, 0, true
		}
	}
	ok, narrows := b.admitted(edits)
	if !narrows {
		// A weight moves no column.
		return prog, 0, true
	}
	if ok == nil {
		return prog, 0, true
	}
	var kept []int
	for j := range b.columns {
		if ok[b.typeOf[j]] {
			kept = append(kept, j)
		}
	}
	return b.programOf(kept)
}

// programOf is program for the columns, by index in b.columns.
func (b *editBounds) programOf(kept []int) (boundProgram, float64, bool) {
	prog := boundProgram{m: *b.m}
	prog.kept = b.undominated(kept)
	prog.m.columns = make([]column, len(prog.kept))
	for k, i := range prog.kept {
		prog.m.columns[k] = b.columns[i]
	}
	prog.key = valueKey(prog.kept)
	if v, done := b.values[prog.key]; done {
		return prog, v, true
	}
	prog.m.artificial = b.artificial
	if prog.m.nodes == 0 {
		for _, g := range prog.m.groups {
			if !slices.ContainsFunc(prog.m.columns, func(c column) bool { return c.shapes.has(g.shape) }) {
				b.values[prog.key] = math.Inf(1)
				return prog, math.Inf(1), true
			}
		}
	}
	return prog, 0, false
}

// solveProgram certifies the program's bound (aggregateLP of prog.m),
// remembers it and, for skips, the solution the solver found.
func (b *editBounds) solveProgram(prog boundProgram, p *coverLP) float64 {
	v := 0.0
	if len(p.b) > 0 {
		y, x, err := p.duals(len(p.b) <= gonumMaxRows)
		if err == nil {
			v = p.certify(y)
			b.remember(prog, x)
		}
	}
	b.values[prog.key] = v
	return v
}

// admitted says which of b.types the edits leave, nil when an edited
// pool's requirements do not read, and whether they restrict any model
// pool at all. Only what the edits changed can take a type away
// (Requirements.ChangedFrom), key by key: restrictions of different keys
// leave a type only if each leaves it, so a set whose restrictions each
// set a key of their own is the intersection of its single edits, each
// worked out once.
func (b *editBounds) admitted(edits []Edit) ([]bool, bool) {
	type slot struct {
		pool string
		key  string
	}
	seen := map[slot]bool{}
	distinct := true
	for _, e := range edits {
		if e.Op.Action != ActionRestrict {
			continue
		}
		k := slot{e.NodePool, e.Op.Key}
		distinct = distinct && !seen[k]
		seen[k] = true
	}
	if !distinct {
		a := b.admittedBy(edits)
		return a.ok, a.narrows
	}
	var ok []bool
	narrows, unread := false, false
	for _, e := range edits {
		if e.Op.Action != ActionRestrict {
			// A weight restricts nothing, but a pool whose
			// requirements do not read gives no bound.
			if pi, in := b.pools[e.NodePool]; in && !b.reads(pi) {
				unread = true
			}
			continue
		}
		name := e.String()
		a, done := b.admits[name]
		if !done {
			a = b.admittedBy([]Edit{e})
			b.admits[name] = a
		}
		if !a.narrows {
			continue
		}
		narrows = true
		if a.ok == nil {
			unread = true
			continue
		}
		if ok == nil {
			ok = slices.Clone(a.ok)
			continue
		}
		for i := range ok {
			ok[i] = ok[i] && a.ok[i]
		}
	}
	if unread {
		return nil, narrows
	}
	return ok, narrows
}

// reads reports whether the requirements of model pool pi read.
func (b *editBounds) reads(pi int) bool {
	for _, np := range b.in.NodePools {
		if np.NodePool != nil && np.NodePool.Name == b.m.pools[pi].name {
			_, err := requirements.FromNodePool(np.NodePool.Spec.Template)
			return err == nil
		}
	}
	return true
}

// admittedBy works out which of b.types the edits leave.
func (b *editBounds) admittedBy(edits []Edit) editAdmits {
	_, changes := ApplyEdits(b.in, edits)
	narrowed := map[int]requirements.Requirements{}
	for _, c := range changes {
		pi, ok := b.pools[c.After.Name]
		if !ok {
			continue
		}
		reqs, err := requirements.FromNodePool(c.After.Spec.Template)
		if err != nil {
			return editAdmits{narrows: true}
		}
		was, err := requirements.FromNodePool(c.Before.Spec.Template)
		if err != nil {
			return editAdmits{narrows: true}
		}
		if slices.ContainsFunc(edits, func(e Edit) bool { return e.NodePool == c.After.Name && e.Op.Action == ActionRestrict }) {
			// The columns are the pool's as it is: only what the
			// edits changed can take a type away.
			narrowed[pi] = reqs.ChangedFrom(was)
		}
	}
	if len(narrowed) == 0 {
		return editAdmits{}
	}
	a := editAdmits{ok: make([]bool, len(b.types)), narrows: true}
	// A type meets requirements of one key as every type whose
	// requirement of that key is the same does: each is checked once.
	type groupPass struct {
		of   []int
		pass []bool
	}
	grouped := map[int]groupPass{}
	for pi, reqs := range narrowed {
		if keys := reqs.Keys(); len(keys) == 1 {
			g := b.keyGroups(keys[0])
			gp := groupPass{of: g.of, pass: make([]bool, len(g.reps))}
			for k, it := range g.reps {
				gp.pass[k] = it.Requirements.IntersectsFast(reqs)
			}
			grouped[pi] = gp
		}
	}
	for i, t := range b.types {
		reqs, ok := narrowed[t.pool]
		if !ok {
			a.ok[i] = true
		} else if gp, ok := grouped[t.pool]; ok {
			a.ok[i] = gp.pass[gp.of[i]]
		} else {
			a.ok[i] = t.it.Requirements.IntersectsFast(reqs)
		}
	}
	return a
}

// typeGroups are editBounds.types grouped by their requirement of one
// key: of is, per type, its group, and reps a type of each group.
type typeGroups struct {
	of   []int
	reps []*instancetypes.InstanceType
}

// keyGroups groups b.types by their requirement of the key (those without
// one form a group of their own), once per key. The keys of the
// narrowing edits (NarrowingEdits) are grouped with the first of them
// asked for, in one pass over the types: a type's requirements are read
// once for all of them.
func (b *editBounds) keyGroups(key string) typeGroups {
	if g, done := b.groups[key]; done {
		return g
	}
	if b.labels != nil {
		if g, ok := b.labelGroups(key); ok {
			return g
		}
	}
	keys := []string{key}
	for _, k := range narrowingKeys {
		if _, done := b.groups[k]; !done && k != key {
			keys = append(keys, k)
		}
	}
	groups := make([]typeGroups, len(keys))
	index := make([]map[string]int, len(keys))
	for n := range keys {
		groups[n].of, index[n] = make([]int, len(b.types)), map[string]int{}
	}
	var buf []byte
	for i, t := range b.types {
		for n, k := range keys {
			buf = buf[:0]
			if r, ok := t.it.Requirements.Lookup(k); ok {
				buf = r.AppendKey(append(buf, 1))
			}
			g, seen := index[n][string(buf)]
			if !seen {
				g = len(groups[n].reps)
				index[n][string(buf)] = g
				groups[n].reps = append(groups[n].reps, t.it)
			}
			groups[n].of[i] = g
		}
	}
	for n, k := range keys {
		b.groups[k] = groups[n]
	}
	return groups[0]
}

// labelGroups is keyGroups, and of the other narrowing keys, from the
// groups of the types each pool offers (labels), when each type is one
// its pool offers: types of one pool group as their requirement of a key
// does.
func (b *editBounds) labelGroups(key string) (typeGroups, bool) {
	keys := []string{key}
	for _, k := range narrowingKeys {
		if _, done := b.groups[k]; !done && k != key {
			keys = append(keys, k)
		}
	}
	out := make([]typeGroups, len(keys))
	for n := range keys {
		out[n].of = make([]int, len(b.types))
	}
	// ids are, per pool and key, each of its groups' id in out (its
	// index + 1; 0 for the types without a requirement), -1 until seen.
	type poolGroups struct {
		lgs []scheduling.LabelGroups
		ids [][]int
	}
	byPool := map[int]*poolGroups{}
	for i, t := range b.types {
		pg, ok := byPool[t.pool]
		if !ok {
			pi := slices.IndexFunc(b.in.NodePools, func(np scheduling.Pool) bool { return np.NodePool != nil && np.NodePool.Name == b.m.pools[t.pool].name })
			if pi < 0 {
				return typeGroups{}, false
			}
			pg = &poolGroups{lgs: b.labels(b.in.NodePools[pi], keys...), ids: make([][]int, len(keys))}
			for n, lg := range pg.lgs {
				pg.ids[n] = slices.Repeat([]int{-1}, len(lg.Reqs)+1)
			}
			byPool[t.pool] = pg
		}
		// The pool's groups share one index of its options.
		oi, ok := pg.lgs[0].Index[t.it]
		if !ok {
			return typeGroups{}, false
		}
		for n, lg := range pg.lgs {
			id := &pg.ids[n][lg.Of[oi]+1]
			if *id < 0 {
				*id = len(out[n].reps)
				out[n].reps = append(out[n].reps, t.it)
			}
			out[n].of[i] = *id
		}
	}
	for n, k := range keys {
		b.groups[k] = out[n]
	}
	return out[0], true
}

// narrowingKeys are the type labels NarrowingEdits restricts.
var narrowingKeys = []string{apis.LabelInstanceCPU, apis.LabelInstanceSize, apis.LabelInstanceFamily, apis.LabelInstanceGeneration}

// undominated is undominated of the columns of b.columns at the
// indexes, in increasing order, by index: each column unless one kept
// before it dominates it. Dominance is transitive, so that is each
// column unless one before it dominates it: a column no column before it
// in b.columns dominates is kept, and one the first kept column that
// dominates it there (droppedBy) still dominates is not, without looking
// at the others.
func (b *editBounds) undominated(index []int) []int {
	if b.droppedBy == nil {
		b.droppedBy = make([]int, len(b.columns))
		var kept []int
		for i := range b.columns {
			c := &b.columns[i]
			k := slices.IndexFunc(kept, func(k int) bool { return dominates(&b.columns[k], c, b.m.pools) })
			if k < 0 {
				kept = append(kept, i)
				b.droppedBy[i] = -1
			} else {
				b.droppedBy[i] = kept[k]
			}
		}
	}
	in := newBitset(len(b.columns))
	for _, i := range index {
		in.set(i)
	}
	var kept []int
	for _, i := range index {
		d := b.droppedBy[i]
		if d >= 0 && in.has(d) {
			continue
		}
		c := &b.columns[i]
		if d < 0 || !slices.ContainsFunc(kept, func(k int) bool { return dominates(&b.columns[k], c, b.m.pools) }) {
			kept = append(kept, i)
		}
	}
	return kept
}

// valueKey names a list of column indexes.
func valueKey(index []int) string {
	b := make([]byte, 0, 4*len(index))
	for _, i := range index {
		b = binary.AppendUvarint(b, uint64(i))
	}
	return string(b)
}
