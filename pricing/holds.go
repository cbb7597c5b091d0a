package pricing

import "time"

// Holds reports whether any mark holds at now: whether a catalog must be
// read against the marks at all.
func (u *UnavailableOfferings) Holds(now time.Time) bool {
	if u == nil {
		return false
	}
	for _, expires := range u.expires {
		if !now.After(expires) {
			return true
		}
	}
	return false
}
