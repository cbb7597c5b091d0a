package instancetypes

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// On Azure the AWS provider's reservation labels are custom labels: a
// requirement on them chooses no offering (the NodePool's labels satisfy
// it), where on AWS it allows only reserved offerings.
func TestReservationLabelsChooseOfferingsOnlyWhereWellKnown(t *testing.T) {
	for _, key := range []string{apis.LabelCapacityReservationID, apis.LabelCapacityReservationType, apis.LabelCapacityReservationInterruptible} {
		reqs := requirements.NewRequirements(requirements.In(key, "x"))
		for rules, want := range map[*apis.LabelRules]bool{apis.AzureLabels: true, apis.AWSLabels: false} {
			it, err := NewInstanceType(Spec{Name: "t.large", Capacity: testSpec().Capacity, LabelRules: rules,
				Offerings: []Offering{{Zone: "z1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true}}})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := it.CheapestOffering(reqs); ok != want {
				t.Errorf("%s In [x] on %s: an offering %v, want %v", key, rules.Domain(), ok, want)
			}
			if got := it.Offerings[0].CompatibleUnder(it.LabelRules(), reqs); got != want {
				t.Errorf("%s In [x] on %s: CompatibleUnder %v, want %v", key, rules.Domain(), got, want)
			}
		}
	}
}
