package provisioning

import (
	"slices"
	"strings"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpsim/karpsim/instancetypes"
)

// karpenterTypes turns karpsim's catalog into Karpenter's instance types:
// the same requirements (one per label, zone and capacity type In the values
// of the offerings, DoesNotExist for the labels a type lacks), capacity,
// overhead and offerings, each offering's requirements naming its zone,
// capacity type and, when reserved, its reservation's ID and type, as the
// AWS provider's offerings do.
func karpenterTypes(c instancetypes.Catalog) []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, 0, len(c))
	for _, it := range c {
		reqs := karpsched.NewRequirements()
		for _, r := range it.Requirements.NodeSelectorRequirements() {
			reqs.Add(karpsched.NewRequirement(r.Key, r.Operator, r.Values...))
		}
		var offerings cloudprovider.Offerings
		for _, o := range it.Offerings {
			labels := map[string]string{corev1.LabelTopologyZone: o.Zone, karpv1.CapacityTypeLabelKey: o.CapacityType}
			if o.ReservationID != "" {
				labels[awsv1.LabelCapacityReservationID] = o.ReservationID
				labels[awsv1.LabelCapacityReservationType] = o.ReservationType
			}
			offerings = append(offerings, &cloudprovider.Offering{
				Requirements:        karpsched.NewLabelRequirements(labels),
				Price:               o.Price,
				Available:           o.Available,
				ReservationCapacity: o.ReservationCapacity,
			})
		}
		out = append(out, &cloudprovider.InstanceType{
			Name:         it.Name,
			Requirements: reqs,
			Offerings:    offerings,
			Capacity:     it.Capacity.List(),
			Overhead: &cloudprovider.InstanceTypeOverhead{
				KubeReserved:      it.Overhead.KubeReserved.List(),
				SystemReserved:    it.Overhead.SystemReserved.List(),
				EvictionThreshold: it.Overhead.EvictionThreshold.List(),
			},
		})
	}
	return out
}

// cheapest is the type and price of the cheapest launchable offering of
// the options that reqs allow (available, and a reservation only with a unit
// left: v1.15.0's Offering.Launchable, which the AWS provider's launch
// filters take); "" when none does. Types of equal price go by name: which
// of them launches is the cloud's choice, not the scheduler's, and the two
// sides order equal-priced options differently.
func cheapest(options []*cloudprovider.InstanceType, reqs karpsched.Requirements) (string, float64) {
	name, best := "", 0.0
	for _, it := range options {
		for _, o := range it.Offerings.Compatible(reqs).Launchable() {
			if name == "" || o.Price < best || o.Price == best && it.Name < name {
				name, best = it.Name, o.Price
			}
		}
	}
	return name, best
}

// zonesOf is the zones reqs allow, for -show.
func zonesOf(reqs karpsched.Requirements) string {
	if !reqs.Has(corev1.LabelTopologyZone) {
		return "any"
	}
	r := reqs.Get(corev1.LabelTopologyZone)
	if r.Operator() != corev1.NodeSelectorOpIn {
		return r.String()
	}
	v := r.Values()
	slices.Sort(v)
	return strings.Join(v, ",")
}
