package requirements

import "bytes"

// ChangedFrom returns the requirements of r on the keys where they differ
// from those of was, or that was does not constrain. Intersecting is
// checked key by key, so for requirements that intersect was, intersecting
// r is intersecting these: a caller that narrows requirements checks only
// what the narrowing changed.
func (r Requirements) ChangedFrom(was Requirements) Requirements {
	var changed []Requirement
	for _, item := range r.items {
		if old, ok := was.Lookup(item.key); !ok || !bytes.Equal(item.AppendKey(nil), old.AppendKey(nil)) {
			changed = append(changed, item)
		}
	}
	return Requirements{items: changed}
}
