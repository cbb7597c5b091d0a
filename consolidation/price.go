package consolidation

import (
	"math"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// worstLaunchPrice is the most a launch of the type could cost under reqs:
// the most expensive launchable offering reqs allow (a full reservation is
// not one), of the first capacity type in launch order that has one; +Inf
// when there is none.
func worstLaunchPrice(it *instancetypes.InstanceType, reqs requirements.Requirements) float64 {
	for _, capacityType := range instancetypes.LaunchOrder() {
		worst, found := 0.0, false
		for _, o := range it.Offerings {
			if o.Launchable() && o.CapacityType == capacityType && o.CompatibleUnder(it.LabelRules(), reqs) {
				worst, found = max(worst, o.Price), true
			}
		}
		if found {
			return worst
		}
	}
	return math.Inf(1)
}

// launch is the offering the cloud provider would launch among the types:
// reserved with an instance left, then spot, then on-demand; the cheapest
// of that capacity type, ties to the earlier type and offering.
func launch(types []*instancetypes.InstanceType, reqs requirements.Requirements) (*instancetypes.InstanceType, instancetypes.Offering, bool) {
	for _, capacityType := range instancetypes.LaunchOrder() {
		var bestType *instancetypes.InstanceType
		var best instancetypes.Offering
		for _, it := range types {
			for _, o := range it.Offerings {
				if o.Launchable() && o.CapacityType == capacityType && o.CompatibleUnder(it.LabelRules(), reqs) && (bestType == nil || o.Price < best.Price) {
					bestType, best = it, o
				}
			}
		}
		if bestType != nil {
			return bestType, best, true
		}
	}
	return nil, instancetypes.Offering{}, false
}

// hasOffering reports whether the type has an available offering reqs allow.
func hasOffering(it *instancetypes.InstanceType, reqs requirements.Requirements) bool {
	for _, o := range it.Offerings {
		if o.Available && o.CompatibleUnder(it.LabelRules(), reqs) {
			return true
		}
	}
	return false
}

// minValuesMet reports how many of the types, taken in order, it takes to
// meet every minValues of reqs (counting the distinct values each type's
// requirement on the key allows), and whether all of them do. With no
// minValues the answer is 0 and true.
func minValuesMet(types []*instancetypes.InstanceType, reqs requirements.Requirements) (int, bool) {
	var keyed []requirements.Requirement
	for _, r := range reqs.Items() {
		if r.MinValues() > 0 {
			keyed = append(keyed, r)
		}
	}
	if len(keyed) == 0 {
		return 0, true
	}
	seen := make([]map[string]bool, len(keyed))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	for n, it := range types {
		met := true
		for i, r := range keyed {
			for _, v := range it.Requirements.Get(r.Key()).Values() {
				seen[i][v] = true
			}
			met = met && len(seen[i]) >= r.MinValues()
		}
		if met {
			return n + 1, true
		}
	}
	return len(types), false
}
