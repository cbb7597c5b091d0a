package apis

import (
	"testing"
)

func TestEC2NodeClassLaunchSettingsValidate(t *testing.T) {
	efa := func(card, device int32) *NetworkInterface {
		return &NetworkInterface{NetworkCardIndex: card, DeviceIndex: device, InterfaceType: InterfaceTypeEFAOnly}
	}
	primary := &NetworkInterface{InterfaceType: InterfaceTypeInterface}
	for _, c := range []struct {
		name   string
		change func(nc *EC2NodeClass)
		want   []string
	}{
		{"all valid", func(nc *EC2NodeClass) {
			nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{ID: ptr("pg-0abc")}
			nc.Spec.NetworkInterfaces = []*NetworkInterface{primary, efa(0, 1), efa(1, 0)}
			nc.Spec.ConnectionTracking = &ConnectionTracking{UDPTimeout: ptr(int32(30))}
			nc.Spec.CPUOptions = &CPUOptions{NestedVirtualization: ptr("enabled")}
		}, nil},
		{"placement group by name and id", func(nc *EC2NodeClass) {
			nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{Name: ptr("pg"), ID: ptr("group-1")}
		}, []string{
			"spec.placementGroupSelector: name and id are mutually exclusive",
			`spec.placementGroupSelector.id: "group-1" is not a valid ID (expected something like pg-0123456789abcdef0)`,
		}},
		{"placement group by neither", func(nc *EC2NodeClass) { nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{} },
			[]string{"spec.placementGroupSelector: set name or id"}},
		{"interfaces without a primary", func(nc *EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*NetworkInterface{efa(0, 0), efa(0, 0), {NetworkCardIndex: -1, InterfaceType: "ena"}}
		}, []string{
			"spec.networkInterfaces[1]: networkCardIndex 0 and deviceIndex 0 are also those of spec.networkInterfaces[0]",
			"spec.networkInterfaces[1]: a second efa-only interface on network card 0 (at most one per card)",
			`spec.networkInterfaces[2].interfaceType: "ena" is not allowed (use interface or efa-only)`,
			"spec.networkInterfaces[2].networkCardIndex: -1 is negative",
			"spec.networkInterfaces: no primary interface: one must have networkCardIndex 0, deviceIndex 0 and interfaceType interface",
		}},
		{"connection tracking", func(nc *EC2NodeClass) {
			nc.Spec.ConnectionTracking = &ConnectionTracking{}
		}, []string{"spec.connectionTracking: set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout"}},
		{"connection tracking out of range", func(nc *EC2NodeClass) {
			nc.Spec.ConnectionTracking = &ConnectionTracking{TCPEstablishedTimeout: ptr(int32(59)), UDPStreamTimeout: ptr(int32(181))}
		}, []string{
			"spec.connectionTracking.tcpEstablishedTimeout: 59 is outside 60 to 432000 seconds",
			"spec.connectionTracking.udpStreamTimeout: 181 is outside 60 to 180 seconds",
		}},
		{"nested virtualization", func(nc *EC2NodeClass) { nc.Spec.CPUOptions = &CPUOptions{NestedVirtualization: ptr("on")} },
			[]string{`spec.cpuOptions.nestedVirtualization: "on" is not allowed (use enabled or disabled)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc := validEC2NodeClass()
			c.change(nc)
			assertFieldErrors(t, c.want, nc.Validate())
		})
	}
}

func TestNestedVirtualizationEnabled(t *testing.T) {
	nc := &EC2NodeClass{}
	if nc.NestedVirtualizationEnabled() {
		t.Error("no CPU options: enabled")
	}
	nc.Spec.CPUOptions = &CPUOptions{NestedVirtualization: ptr(NestedVirtualizationDisabled)}
	if nc.NestedVirtualizationEnabled() {
		t.Error("disabled: enabled")
	}
	nc.Spec.CPUOptions.NestedVirtualization = ptr(NestedVirtualizationEnabled)
	if !nc.NestedVirtualizationEnabled() {
		t.Error("enabled: not enabled")
	}
}
