// Package dra models dynamic resource allocation (resource.k8s.io/v1) as
// Karpenter v1.14 schedules it with --ignore-dra-requests=false: the devices
// an instance type will offer once its DRA driver publishes them (template
// devices), which of them a DeviceClass and a request select, and what a
// pod's ResourceClaims ask of a node.
//
// It translates DRA into what package scheduling already decides on, in one
// place: every distinct device selection (a DeviceClass with a request's
// selectors) becomes an extended resource named dra.karpsim.dev/…; an
// instance type offers as many units of it as it has matching devices, a
// pod requests as many as its claims' requests count, and the pods sharing
// one ResourceClaim are held on the node of the one that allocates it
// (Karpenter allocates a shared claim once and places its other pods on the
// same NodeClaim). Build a Translator with New from the cluster's DRA
// objects; package snapshot and the simulator do so when DRA is on, and
// scheduling never sees a ResourceClaim. It does no I/O.
package dra

import (
	"fmt"
	"strconv"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Device is one device a node offers through a DRA driver.
type Device struct {
	Driver string
	Name   string
	// Attributes are the device's attributes by name (without the driver's
	// domain): strings, integers or booleans.
	Attributes map[string]any
	// Capacity are the device's capacities by name.
	Capacity map[string]resource.Quantity
	// AllowMultipleAllocations lets several requests share the device,
	// each taking a share of its capacities (Policies says how much).
	AllowMultipleAllocations bool
	// Policies are the request policies of its capacities, by name.
	Policies map[string]*resourcev1.CapacityRequestPolicy
	// ConsumesCounters are what allocating it draws from its pool's
	// counter sets.
	ConsumesCounters []resourcev1.DeviceCounterConsumption
}

// Drivers of the GPU makers whose DRA drivers karpsim models, by the
// instance-gpu-manufacturer label's value.
var gpuDrivers = map[string]string{
	"nvidia": "gpu.nvidia.com",
}

// InstanceTypeDevices are the devices a node of the type offers once its
// drivers published them: for a GPU type whose maker has a modelled
// driver, one device per GPU ("gpu-0", …) with the attributes type "gpu",
// productName (the instance-gpu-name label, e.g. "t4"), index, and the
// capacity memory (the GPU's memory). This is karpsim's stand-in for the
// cloud provider's ResourceSliceTemplates.
func InstanceTypeDevices(it *instancetypes.InstanceType) []Device {
	labels := it.Labels()
	driver := gpuDrivers[labels[apis.LabelInstanceGPUManufacturer]]
	count, _ := strconv.Atoi(labels[apis.LabelInstanceGPUCount])
	if driver == "" || count <= 0 {
		return nil
	}
	mib, _ := strconv.ParseInt(labels[apis.LabelInstanceGPUMemory], 10, 64)
	out := make([]Device, count)
	for i := range out {
		out[i] = Device{
			Driver: driver,
			Name:   fmt.Sprintf("gpu-%d", i),
			Attributes: map[string]any{
				"type":        "gpu",
				"productName": labels[apis.LabelInstanceGPUName],
				"index":       int64(i),
			},
			Capacity: map[string]resource.Quantity{"memory": *resource.NewQuantity(mib<<20, resource.BinarySI)},
		}
	}
	return out
}
