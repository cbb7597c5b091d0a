package instancetypes

import (
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// LearnedMemory is the memory capacity registered nodes reported, as the
// AWS provider's capacity controller learns it: the model's estimate (the
// nominal memory less VM_MEMORY_OVERHEAD_PERCENT) is replaced, for new
// launches of a type, by what a node of that type really has. What is
// learned holds for one EC2NodeClass AMI set: a node class whose
// status.amis change estimates again until a node of the new AMIs reports.
// The zero value has learned nothing; it is not safe for concurrent use.
type LearnedMemory struct {
	bytes map[learnedKey]int64
}

type learnedKey struct{ instanceType, amis string }

// Observe records the memory capacity (bytes) a registered node of the
// node class reported. It counts only when imageID, the AMI the node's
// NodeClaim launched with, is the AMI the class picks for the node's type
// today: the first of status.amis whose requirements the node's labels
// meet, wherever it is in the list. The smallest capacity seen is kept,
// as upstream keeps the least. It reports whether the node counted.
func (l *LearnedMemory) Observe(nc *apis.EC2NodeClass, nodeLabels map[string]string, imageID string, memory int64) bool {
	instanceType := nodeLabels[apis.LabelInstanceType]
	if instanceType == "" || memory <= 0 || amiFor(nc.Status.AMIs, nodeLabels) != imageID {
		return false
	}
	if l.bytes == nil {
		l.bytes = map[learnedKey]int64{}
	}
	key := learnedKey{instanceType, amiSet(nc.Status.AMIs)}
	if old, ok := l.bytes[key]; !ok || memory < old {
		l.bytes[key] = memory
	}
	return true
}

// Memory is the learned memory capacity of the type under the node class's
// current AMIs, and whether one was learned.
func (l *LearnedMemory) Memory(nc *apis.EC2NodeClass, instanceType string) (int64, bool) {
	if l == nil || nc == nil {
		return 0, false
	}
	b, ok := l.bytes[learnedKey{instanceType, amiSet(nc.Status.AMIs)}]
	return b, ok
}

// amiFor is the ID of the first AMI whose requirements a node with these
// labels meets, "" when none does. A label the node lacks fails an In or
// Exists requirement, as a node's labels are final.
func amiFor(amis []apis.AMI, nodeLabels map[string]string) string {
	labels := requirements.FromLabels(nodeLabels)
	for _, ami := range amis {
		reqs, err := requirements.FromNodeSelectorRequirements(ami.Requirements...)
		if err == nil && labels.Compatible(reqs, requirements.DenyUndefined) == nil {
			return ami.ID
		}
	}
	return ""
}

// amiSet names a set of AMIs by their sorted IDs: what is learned under one
// set does not hold under another.
func amiSet(amis []apis.AMI) string {
	ids := make([]string, len(amis))
	for i, ami := range amis {
		ids[i] = ami.ID
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}
