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
	names []corev1.ResourceName // sorted
	// slots are the names' fixed slots in a resources.Vector, -1 for the
	// others, resolved once for the hot check in allows.
	slots     []int
	remaining resources.Vector
	// Each node counts one "nodes", kept apart from the capacity vectors.
	limitsNodes    bool
	remainingNodes int64
}

// resourceNodes is the limit on the number of nodes.
const resourceNodes corev1.ResourceName = "nodes"

func newLimits(list corev1.ResourceList) limits {
	l := limits{remaining: resources.FromList(list)}
	for name := range list {
		l.names = append(l.names, name)
	}
	slices.Sort(l.names)
	for _, name := range l.names {
		slot, ok := resources.Slot(name)
		if !ok {
			slot = -1
		}
		l.slots = append(l.slots, slot)
	}
	if _, ok := list[resourceNodes]; ok {
		// Read within ±resources.MaxAmount, as every amount is, so that
		// counting nodes down cannot wrap.
		l.limitsNodes, l.remainingNodes = true, l.remaining.Get(resourceNodes)
	}
	return l
}

// charge subtracts a node's capacity (and one node) from what remains. The
// subtraction saturates (see resources): a pool whose nodes' capacity sums
// past 2^62 has nothing left, however many nodes are charged.
func (l *limits) charge(capacity resources.Vector) {
	if len(l.names) == 0 {
		return
	}
	l.remaining = l.remaining.Sub(capacity)
	l.remainingNodes--
}

// exceeded returns the index in names of the first limited resource a node
// of this capacity would exceed, or -1 when it stays within the limits.
func (l *limits) exceeded(capacity resources.Vector) int {
	for i, name := range l.names {
		switch slot := l.slots[i]; {
		case slot >= 0:
			if capacity.Slot(slot) > l.remaining.Slot(slot) {
				return i
			}
		case name == resourceNodes:
			if l.remainingNodes < 1 {
				return i
			}
		case capacity.Get(name) > l.remaining.Get(name):
			return i
		}
	}
	return -1
}

// describe says what is left of the i-th limited resource.
func (l *limits) describe(i int) string {
	if l.names[i] == resourceNodes {
		return fmt.Sprintf("nodes (%d left)", l.remainingNodes)
	}
	q := l.remaining.Quantity(l.names[i])
	return fmt.Sprintf("%s (%s left)", l.names[i], q.String())
}

// String lists what remains of each limited resource.
func (l *limits) String() string {
	parts := make([]string, len(l.names))
	for i, name := range l.names {
		if name == resourceNodes {
			parts[i] = fmt.Sprintf("nodes=%d", l.remainingNodes)
			continue
		}
		q := l.remaining.Quantity(name)
		parts[i] = fmt.Sprintf("%s=%s", name, q.String())
	}
	return strings.Join(parts, ", ")
}
