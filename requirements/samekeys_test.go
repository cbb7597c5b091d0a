package requirements

import "testing"

func TestSameKeysComparesKeysOnly(t *testing.T) {
	a := NewRequirements(In("zone", "a"), In("arch", "amd64"))
	for _, tc := range []struct {
		name string
		o    Requirements
		want bool
	}{
		{"same keys, other values", NewRequirements(NotIn("zone", "b"), In("arch", "arm64")), true},
		{"one key other", NewRequirements(In("zone", "a"), In("os", "linux")), false},
		{"fewer keys", NewRequirements(In("zone", "a")), false},
		{"more keys", NewRequirements(In("zone", "a"), In("arch", "amd64"), In("os", "linux")), false},
		{"none", NewRequirements(), false},
	} {
		if got := a.SameKeys(tc.o); got != tc.want {
			t.Errorf("%s: SameKeys = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.o.SameKeys(a); got != tc.want {
			t.Errorf("%s, reversed: SameKeys = %v, want %v", tc.name, got, tc.want)
		}
	}
}
