package requirements

// SameSet reports whether r and o are one set handed on, not merely equal
// sets: copies of one Requirements value, as a cache of compiled
// requirements hands them out. Sets are never changed once built, so a
// memo may take an answer for r as the answer for a same set. Equal sets
// built apart are not the same.
func (r Requirements) SameSet(o Requirements) bool {
	return len(r.items) == len(o.items) && (len(r.items) == 0 || &r.items[0] == &o.items[0])
}
