package instancetypes_test

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// The smallest Graviton type on AL2023: 1 vCPU less 60m of kube-reserved
// CPU; 2048 MiB less 64 MiB of CMA, 149 MiB of VM overhead, 343 MiB of
// kube-reserved memory for 8 pods and 100 MiB of eviction threshold; its
// trunk ENI takes 10 branch interfaces for pods with their own security
// groups.
func Example() {
	it, _ := instancetypes.Default().Get("a1.medium")
	fmt.Println(it.Allocatable())
	fmt.Println(it.Labels()[apis.LabelInstanceCategory], it.Labels()[apis.LabelArch])
	// Output:
	// {"cpu":"940m","ephemeral-storage":"17Gi","memory":"1392Mi","pods":"8","vpc.amazonaws.com/pod-eni":"10"}
	// a arm64
}

func ExampleInstanceType_CheapestOffering() {
	it, _ := instancetypes.Fake(3).Get("fake-it-2")
	spot := requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot))
	offering, _ := it.CheapestOffering(spot)
	fmt.Printf("%s %s %.4f\n", offering.Zone, offering.CapacityType, offering.Price)
	// Output: test-zone-1 spot 0.9442
}
