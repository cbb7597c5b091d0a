package requirements

import "testing"

func TestSameSetIsIdentityNotEquality(t *testing.T) {
	a := NewRequirements(In("zone", "a"), In("arch", "amd64"))
	copied := a
	built := NewRequirements(In("zone", "a"), In("arch", "amd64"))
	switch {
	case !a.SameSet(copied):
		t.Error("a copy of a set is not the same set")
	case a.SameSet(built):
		t.Error("an equal set built apart is the same set")
	case a.SameSet(a.Add(In("os", "linux"))):
		t.Error("a set with a requirement added is the same set")
	case !NewRequirements().SameSet(Requirements{}):
		t.Error("two empty sets are not the same")
	}
}
