package resources

// Interner hands out one shared *Vector per distinct value, for callers
// that hold the requests of many pods: pods of one workload ask for the
// same, and share one Vector instead of a copy each. The Vectors it returns
// are shared: they are read, never changed. The zero value is ready to
// use; an Interner is not safe for concurrent use.
type Interner struct {
	shared map[[numSlots]int64]*Vector
}

// Intern returns the shared Vector equal to v. A vector with resources
// outside the fixed slots is not shared: it gets a Vector of its own.
func (in *Interner) Intern(v Vector) *Vector {
	if len(v.extra) > 0 {
		own := new(Vector)
		*own = v
		return own
	}
	if p, ok := in.shared[v.slots]; ok {
		return p
	}
	if in.shared == nil {
		in.shared = map[[numSlots]int64]*Vector{}
	}
	p := new(Vector)
	*p = v
	in.shared[v.slots] = p
	return p
}
