package scheduling

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/resources"
)

// limits is what a NodePool's limits leave for new nodes. Only the
// resources the NodePool limits count; a pool without limits has none.
type limits struct {
	names     []corev1.ResourceName // sorted
	remaining resources.Vector
}

func newLimits(list corev1.ResourceList) limits {
	l := limits{remaining: resources.FromList(list)}
	for name := range list {
		l.names = append(l.names, name)
	}
	slices.Sort(l.names)
	return l
}

// charge subtracts a node's capacity (and one node) from what remains.
func (l *limits) charge(capacity resources.Vector) {
	if len(l.names) == 0 {
		return
	}
	l.remaining = l.remaining.Sub(capacity.With("nodes", 1))
}

// allows reports whether a node of this capacity stays within the limits;
// if not, it names the first limited resource it would exceed.
func (l *limits) allows(capacity resources.Vector) (bool, string) {
	capacity = capacity.With("nodes", 1)
	for _, name := range l.names {
		if capacity.Get(name) > l.remaining.Get(name) {
			q := l.remaining.Quantity(name)
			return false, fmt.Sprintf("%s (%s left)", name, q.String())
		}
	}
	return true, ""
}

// String lists what remains of each limited resource.
func (l *limits) String() string {
	parts := make([]string, len(l.names))
	for i, name := range l.names {
		q := l.remaining.Quantity(name)
		parts[i] = fmt.Sprintf("%s=%s", name, q.String())
	}
	return strings.Join(parts, ", ")
}
