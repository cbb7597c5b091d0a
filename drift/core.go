package drift

import (
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// run applies steps in order and stops at the first that finds drift or
// halts; done is false when every step passed.
func (e *evaluation) run(steps ...func(*evaluation) verdict) (Result, bool) {
	for _, step := range steps {
		v := step(e)
		switch {
		case v.reason != "":
			return Result{Drifted: true, Reason: v.reason, Detail: v.detail}, true
		case v.halt:
			e.note("%s", v.detail)
			return Result{Detail: strings.Join(e.notes, "; ")}, true
		}
	}
	return Result{}, false
}

// compareHash is the static check Karpenter runs for the NodePool and the
// AWS provider for the EC2NodeClass: the claim's stamped hash against the
// object's current one. It applies only when the claim carries both the hash
// and its version, and only when the version is the current one; a claim
// stamped under another version is re-stamped by Karpenter, not drifted.
func (e *evaluation) compareHash(reason Reason, hashKey, versionKey, version, owner string, hash func() string) verdict {
	claimHash, hasHash := e.claim.Annotations[hashKey]
	claimVersion, hasVersion := e.claim.Annotations[versionKey]
	switch {
	case !hasHash || !hasVersion:
		e.note("NodeClaim %q lacks the %s or %s annotation, so %s is not checked (Stamp sets them)", e.claim.Name, hashKey, versionKey, reason)
		return verdict{}
	case claimVersion != version:
		e.note("NodeClaim %q has %s %s, current is %s: Karpenter re-stamps its %s (see Restamp) instead of drifting it",
			e.claim.Name, versionKey, claimVersion, version, hashKey)
		return verdict{}
	}
	if current := hash(); current != claimHash {
		return drifted(reason, "%s %s on NodeClaim %q != %s, the hash of %s (version %s)",
			hashKey, claimHash, e.claim.Name, current, owner, version)
	}
	return verdict{}
}

func (e *evaluation) nodePoolHash() verdict {
	np := e.in.NodePool
	return e.compareHash(NodePoolDrifted, apis.AnnotationNodePoolHash, apis.AnnotationNodePoolHashVersion,
		NodePoolHashVersion, fmt.Sprintf("NodePool %q's template", np.Name), func() string { return NodePoolHash(np) })
}

// requirements checks the NodePool's requirements (not its template labels,
// which the hash covers) against the claim's labels, every key the pool
// requires with In, Exists, Gt or Lt having to be among the labels.
func (e *evaluation) requirements() verdict {
	np := e.in.NodePool
	pool, err := poolRequirements(np.Spec.Template.Spec.Requirements)
	if err != nil {
		return halted("NodePool %q spec.template.spec.requirements%v", np.Name, err)
	}
	if err := requirements.FromLabels(e.labels).Compatible(pool, requirements.DenyUndefined); err != nil {
		return drifted(RequirementsDrifted, "NodePool %q spec.template.spec.requirements no longer admit NodeClaim %q's labels: %v",
			np.Name, e.claim.Name, err)
	}
	return verdict{}
}

func poolRequirements(terms []apis.NodeSelectorRequirementWithMinValues) (requirements.Requirements, error) {
	items := make([]requirements.Requirement, 0, len(terms))
	for i, term := range terms {
		req, err := requirements.New(term.Key, term.Operator, term.Values...)
		if err != nil {
			return requirements.Requirements{}, fmt.Errorf("[%d]: %w", i, err)
		}
		items = append(items, req)
	}
	return requirements.NewRequirements(items...), nil
}

// instanceType checks, for claims older than InstanceTypeCheckAge, that the
// claim's instance type is still among the pool's and still has an offering,
// available or not, in the claim's zone and capacity type. Karpenter also
// re-checks a claim at most every 30 minutes once it passed; karpsim checks
// on every call.
func (e *evaluation) instanceType() verdict {
	if e.in.InstanceTypes == nil {
		e.note("no instance types given: %s and %s not checked", InstanceTypeNotFound, AMIDrift)
		return verdict{}
	}
	if age := e.in.Now.Sub(e.claim.CreationTimestamp.Time); age <= InstanceTypeCheckAge {
		e.note("NodeClaim %q is %s old, so %s waits until it is older than %s",
			e.claim.Name, apis.FormatDuration(age), InstanceTypeNotFound, apis.FormatDuration(InstanceTypeCheckAge))
		return verdict{}
	}
	name := e.labels[apis.LabelInstanceType]
	if name == "" {
		return drifted(InstanceTypeNotFound, "NodeClaim %q has no %s label", e.claim.Name, apis.LabelInstanceType)
	}
	it, ok := e.in.InstanceTypes.Get(name)
	if !ok {
		return drifted(InstanceTypeNotFound, "instance type %s of NodeClaim %q is not among NodePool %q's %d instance types",
			name, e.claim.Name, e.in.NodePool.Name, len(e.in.InstanceTypes))
	}
	reqs := offeringRequirements(e.labels)
	for _, o := range it.Offerings {
		if o.CompatibleUnder(it.LabelRules(), reqs) {
			return verdict{}
		}
	}
	return drifted(InstanceTypeNotFound, "no offering of %s matches NodeClaim %q's zone %q and capacity type %q (offerings: %s)",
		name, e.claim.Name, e.labels[apis.LabelTopologyZone], e.labels[apis.LabelCapacityType], offeringList(it.Offerings))
}

// offeringRequirements are the claim's labels as requirements, except that
// a reserved claim also matches on-demand offerings and any reservation:
// Karpenter may demote a reserved node to on-demand after launch, and leaves
// checking the reservation to the cloud provider.
func offeringRequirements(labels map[string]string) requirements.Requirements {
	reqs := requirements.FromLabels(labels)
	if !reqs.Get(apis.LabelCapacityType).Has(apis.CapacityTypeReserved) {
		return reqs
	}
	return reqs.Without(apis.LabelCapacityType, apis.LabelCapacityReservationID).Add(
		requirements.In(apis.LabelCapacityType, apis.CapacityTypeReserved, apis.CapacityTypeOnDemand))
}

func offeringList(offerings []instancetypes.Offering) string {
	if len(offerings) == 0 {
		return "none"
	}
	names := make([]string, len(offerings))
	for i, o := range offerings {
		names[i] = o.Zone + "/" + o.CapacityType
		if o.ReservationID != "" {
			names[i] += "/" + o.ReservationID
		}
	}
	return strings.Join(names, ", ")
}

// sortedList joins values sorted, for messages that must not depend on
// input order.
func sortedList(values []string) string {
	values = slices.Clone(values)
	slices.Sort(values)
	return strings.Join(values, ", ")
}
