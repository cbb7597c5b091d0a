package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// instanceProfile compares the instance profile the claim launched with, when
// the claim records it, with the one the EC2NodeClass resolves now.
func (e *evaluation) instanceProfile() verdict {
	nc := e.in.NodeClass
	launchedWith, ok := e.claim.Annotations[AnnotationInstanceProfileName]
	if !ok || launchedWith == nc.Status.InstanceProfile {
		return verdict{}
	}
	return drifted(InstanceProfileDrift, "NodeClaim %q launched with instance profile %q (%s), EC2NodeClass %q status.instanceProfile is %q",
		e.claim.Name, launchedWith, AnnotationInstanceProfileName, nc.Name, nc.Status.InstanceProfile)
}

func (e *evaluation) nodeClassHash() verdict {
	nc := e.in.NodeClass
	return e.compareHash(NodeClassDrift, apis.AnnotationEC2NodeClassHash, apis.AnnotationEC2NodeClassHashVersion,
		EC2NodeClassHashVersion, fmt.Sprintf("EC2NodeClass %q", nc.Name), func() string { return NodeClassHash(nc) })
}

// ami checks the claim's image against the AMI the EC2NodeClass resolves for
// the claim's instance type: the first AMI in status.amis whose requirements
// the type meets. Another image, even one listed for other types, is drift.
func (e *evaluation) ami() verdict {
	if e.in.InstanceTypes == nil {
		return verdict{}
	}
	nc := e.in.NodeClass
	name := e.labels[apis.LabelInstanceType]
	it, ok := e.in.InstanceTypes.Get(name)
	switch {
	case !ok:
		return halted("instance type %q of NodeClaim %q is not in NodePool %q's catalog, so its AMI cannot be resolved",
			name, e.claim.Name, e.in.NodePool.Name)
	case len(nc.Status.AMIs) == 0:
		return halted("EC2NodeClass %q status.amis is empty", nc.Name)
	case e.claim.Status.ImageID == "":
		return halted("NodeClaim %q has no status.imageID", e.claim.Name)
	}
	image := e.claim.Status.ImageID
	want, found := resolveAMI(it, nc.Status.AMIs)
	switch {
	case found && want == image:
		return verdict{}
	case !found:
		return drifted(AMIDrift, "image %s of NodeClaim %q: none of EC2NodeClass %q's AMIs (%s) suits instance type %s",
			image, e.claim.Name, nc.Name, amiList(nc.Status.AMIs), name)
	}
	return drifted(AMIDrift, "image %s of NodeClaim %q is not %s, the first of EC2NodeClass %q's AMIs (%s) that suits instance type %s",
		image, e.claim.Name, want, nc.Name, amiList(nc.Status.AMIs), name)
}

// resolveAMI returns the first AMI, in status order, whose requirements the
// instance type meets. An AMI whose requirements do not parse suits no type.
func resolveAMI(it *instancetypes.InstanceType, amis []apis.AMI) (string, bool) {
	for _, ami := range amis {
		reqs, err := requirements.FromNodeSelectorRequirements(ami.Requirements...)
		if err == nil && it.Requirements.CompatibleFast(reqs, requirements.DenyUndefined) {
			return ami.ID, true
		}
	}
	return "", false
}

// amiList keeps status order, which decides the AMI a type gets.
func amiList(amis []apis.AMI) string {
	ids := make([]string, len(amis))
	for i, ami := range amis {
		ids[i] = ami.ID
	}
	return strings.Join(ids, ", ")
}

// instance runs the three checks that read the EC2 instance. As in the AWS
// provider, all three are evaluated before the first drift is reported, so
// an EC2NodeClass with no resolved subnets stops the check even when the
// security groups differ.
func (e *evaluation) instance() verdict {
	inst := e.in.Instance
	if inst == nil {
		e.note("no EC2 instance given: security-group, subnet and capacity-reservation checks skipped")
		return verdict{}
	}
	nc := e.in.NodeClass
	groups := make([]string, len(nc.Status.SecurityGroups))
	for i, sg := range nc.Status.SecurityGroups {
		groups[i] = sg.ID
	}
	if len(groups) == 0 {
		return halted("EC2NodeClass %q status.securityGroups is empty", nc.Name)
	}
	var found []verdict
	if !sameSet(groups, inst.SecurityGroupIDs) {
		found = append(found, drifted(SecurityGroupDrift, "instance of NodeClaim %q has security groups (%s), EC2NodeClass %q status.securityGroups are (%s)",
			e.claim.Name, sortedList(inst.SecurityGroupIDs), nc.Name, sortedList(groups)))
	}
	if len(nc.Status.Subnets) == 0 {
		return halted("EC2NodeClass %q status.subnets is empty", nc.Name)
	}
	if !slices.ContainsFunc(nc.Status.Subnets, func(s apis.Subnet) bool { return s.ID == inst.SubnetID }) {
		found = append(found, drifted(SubnetDrift, "instance of NodeClaim %q is in subnet %q, not among EC2NodeClass %q status.subnets (%s)",
			e.claim.Name, inst.SubnetID, nc.Name, subnetList(nc.Status.Subnets)))
	}
	if id := inst.CapacityReservationID; id != "" && !slices.ContainsFunc(nc.Status.CapacityReservations,
		func(r apis.CapacityReservation) bool { return r.ID == id }) {
		found = append(found, drifted(CapacityReservationDrift, "instance of NodeClaim %q runs in capacity reservation %q, not among EC2NodeClass %q status.capacityReservations (%s)",
			e.claim.Name, id, nc.Name, reservationList(nc.Status.CapacityReservations)))
	}
	if len(found) == 0 {
		return verdict{}
	}
	return found[0]
}

// sameSet reports whether a and b hold the same values, ignoring order and
// repeats.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func subnetList(subnets []apis.Subnet) string {
	ids := make([]string, len(subnets))
	for i, s := range subnets {
		ids[i] = s.ID
	}
	return sortedList(ids)
}

func reservationList(reservations []apis.CapacityReservation) string {
	if len(reservations) == 0 {
		return "none"
	}
	ids := make([]string, len(reservations))
	for i, r := range reservations {
		ids[i] = r.ID
	}
	return sortedList(ids)
}
