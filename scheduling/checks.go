package scheduling

import (
	"fmt"

	"github.com/karpsim/karpsim/requirements"
)

// check names one of the checks a pod passes to join an existing node or a
// claim. Each kind of target has one function that walks its checks in
// order, claim.evaluate and existingNode.evaluate: tryAdd calls it for a
// verdict and explain for the reason, so a check added for one is a check
// of the other.
type check int

const (
	passed check = iota
	checkTaints
	checkVolumeLimits
	checkHostPorts
	checkResources
	checkRequirements
	checkTopology
	checkInstanceTypes
	checkMinValues
	checkReservations
)

var checkNames = [...]string{
	passed:             "passed",
	checkTaints:        "taints",
	checkVolumeLimits:  "volume limits",
	checkHostPorts:     "host ports",
	checkResources:     "resources",
	checkRequirements:  "requirements",
	checkTopology:      "topology",
	checkInstanceTypes: "instance types",
	checkMinValues:     "minValues",
	checkReservations:  "capacity reservations",
}

func (c check) String() string {
	if c < 0 || int(c) >= len(checkNames) {
		return fmt.Sprintf("check(%d)", int(c))
	}
	return checkNames[c]
}

// nodeChecks and claimChecks are the checks in the order evaluate walks
// them for an existing node and for a claim, Karpenter's order. A claim's
// evaluate may, for a verdict only, first try shortcuts: cheaper forms of
// its topology and instance-type checks that refuse what those would
// refuse (see claim.evaluate).
var (
	nodeChecks  = []check{checkTaints, checkVolumeLimits, checkHostPorts, checkResources, checkRequirements, checkTopology}
	claimChecks = []check{checkTaints, checkVolumeLimits, checkHostPorts, checkRequirements, checkTopology, checkInstanceTypes, checkMinValues, checkReservations}
)

// refusal is explain's answer: the reason a check gave, which it prints
// as it is, and the check.
type refusal struct {
	check check
	err   error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// refuse records, when the reason is asked for (why is set), the reason
// that the check failed, and returns the check. The reason is worked out
// only then: a verdict needs none.
func refuse(why *error, c check, reason func() error) check {
	if why != nil {
		*why = &refusal{check: c, err: reason()}
	}
	return c
}

// errNoCheckFailed is explain's answer when every check passes the pod
// that tryAdd refused: a shortcut refused what its check would not, which
// is a bug, reported rather than hidden.
var errNoCheckFailed = fmt.Errorf("refused, yet every check passes (a shortcut disagrees with its check)")

// topologyMismatch is the topology check's reason when the requirements
// do not admit those topology adds.
func topologyMismatch(reqs requirements.Requirements, topoReqs []requirements.Requirement, undefined requirements.Undefined) error {
	topo := requirements.NewRequirements(topoReqs...)
	if err := reqs.Compatible(topo, undefined); err != nil {
		return fmt.Errorf("topology: %w", err)
	}
	return fmt.Errorf("topology: %s is not admitted", topo)
}
