package requirements

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// EqualWithout compares every field of the requirements on the keys but
// one, wherever that key sorts among them.
func TestEqualWithout(t *testing.T) {
	base := Requirements{}.Add(In("zone", "a", "b"), In("arch", "amd64"))
	host := func(name string) Requirements { return base.Add(In("hostname", name)) }
	assert.True(t, host("n-1").EqualWithout(host("n-2"), "hostname"))
	assert.True(t, host("n-1").EqualWithout(base, "hostname"))
	assert.False(t, host("n-1").EqualWithout(host("n-2"), ""))
	assert.False(t, host("n-1").EqualWithout(base.Add(In("zone", "a"), In("hostname", "n-1")), "hostname"), "values differ")
	assert.False(t, base.EqualWithout(base.Add(In("zz", "x")), "hostname"), "a key more")
	assert.False(t, base.EqualWithout(base.Add(NotIn("arch", "amd64")), "hostname"), "complement differs")
	assert.True(t, Requirements{}.EqualWithout(Requirements{}.Add(In("hostname", "x")), "hostname"))
}
