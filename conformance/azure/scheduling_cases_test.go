package azure

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
)

var _ = register("provisioning",
	conformanceCase{Name: "no-labels", Run: func(t *T) {
		world{suiteCatalog(t), nodePool()}.launch(t, pendingPod("p"))
	}},
)

var _ = register("gpu",
	conformanceCase{Name: "non-gpu-pod", Run: func(t *T) {
		labels := world{suiteCatalog(t), nodePool()}.launch(t, pendingPod("p"))[0]
		expectLabel(t, labels, azure.LabelSKUGPUCount, "0")
	}},
	conformanceCase{Name: "gpu-pod", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool()}
		labels := w.launch(t, pendingPod("p", requesting(apis.ResourceNVIDIAGPU, "1")))[0]
		expectLabel(t, labels, apis.LabelInstanceType, "Standard_NC16as_T4_v3")
		expectLabel(t, labels, azure.LabelSKUGPUName, "T4")
		expectLabel(t, labels, azure.LabelSKUGPUManufacturer, "nvidia")
		expectLabel(t, labels, azure.LabelSKUGPUCount, "1")
		if got := sizeOf(t, w.catalog, "Standard_NC16as_T4_v3").Allocatable().Get(apis.ResourceNVIDIAGPU); got != 1 {
			t.Errorf("allocatable nvidia.com/gpu %d, want 1", got)
		}
	}},
)

var _ = register("zones",
	conformanceCase{Name: "prefer-zonal",
		Run: func(t *T) {
			w := world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "Standard_NC24ads_A100_v4"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand))}
			labels := w.launch(t, pendingPod("p"))[0]
			expectLabel(t, labels, azure.LabelPlacementScope, "zonal")
			if labels[apis.LabelTopologyZone] == azure.RegionalZone {
				t.Errorf("launched regionally (zone %s)", azure.RegionalZone)
			}
		}},
	conformanceCase{Name: "regional-when-scope-requires",
		// The placement scope is each offering's label: requiring regional
		// leaves the offerings of zone 0.
		Run: func(t *T) {
			w := world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "Standard_NC24ads_A100_v4"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand),
				in(azure.LabelPlacementScope, "regional"))}
			labels := w.launch(t, pendingPod("p"))[0]
			expectLabel(t, labels, apis.LabelTopologyZone, azure.RegionalZone)
			expectLabel(t, labels, azure.LabelPlacementScope, "regional")
		}},
	conformanceCase{Name: "requested-zone", Run: func(t *T) {
		zone := fakeRegion + "-3"
		w := world{suiteCatalog(t), nodePool(in(apis.LabelCapacityType, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand), in(apis.LabelTopologyZone, zone))}
		expectLabel(t, w.launch(t, pendingPod("p"))[0], apis.LabelTopologyZone, zone)
	}},
	conformanceCase{Name: "non-zonal-region", Run: func(t *T) {
		w := world{catalogOf(t, nonZonalRegion, azure.Settings{}), nodePool()}
		expectLabel(t, w.launch(t, pendingPod("p"))[0], apis.LabelTopologyZone, azure.RegionalZone)
	}},
	conformanceCase{Name: "non-zonal-size-zone-0", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "Standard_NC6s_v3"))}
		expectLabel(t, w.launch(t, pendingPod("p"))[0], apis.LabelTopologyZone, azure.RegionalZone)
	}},
	conformanceCase{Name: "no-empty-zone", Run: func(t *T) {
		for _, region := range []string{fakeRegion, nonZonalRegion, azure.DefaultRegion} {
			for _, it := range catalogOf(t, region, azure.Settings{}) {
				for _, o := range it.Offerings {
					if o.Zone == "" {
						t.Errorf("%s in %s: an offering has no zone", it.Name, region)
					}
				}
			}
		}
	}},
	conformanceCase{Name: "non-zonal-excluded-by-zone", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "Standard_NC6s_v3"), in(apis.LabelTopologyZone, fakeZone1))}
		w.expectNotScheduled(t, pendingPod("p"))
	}},
	conformanceCase{Name: "non-zonal-excluded-by-all-zones", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool(in(apis.LabelInstanceType, "Standard_NC6s_v3"),
			in(apis.LabelTopologyZone, fakeRegion+"-1", fakeRegion+"-2", fakeRegion+"-3"))}
		w.expectNotScheduled(t, pendingPod("p"))
	}},
	conformanceCase{Name: "topology-spread", Run: func(t *T) {
		w := world{suiteCatalog(t), nodePool()}
		var pods []*corev1.Pod
		for i := range 3 {
			pods = append(pods, pendingPod(fmt.Sprintf("p%d", i), labelled("app", "tsc"), spreadOverZones("tsc")))
		}
		zones := map[string]bool{}
		for _, labels := range w.launch(t, pods...) {
			zones[labels[apis.LabelTopologyZone]] = true
		}
		if len(zones) != 3 {
			t.Errorf("3 pods spread over zones landed in %v", zones)
		}
	}},
)

// labelCase is one entry of the suite's label table: a pod selecting
// label=value alone schedules onto a node carrying it. Settings and the
// NodePool's requirements are the entry's setup.
type labelCase struct {
	slug, label, value string
	settings           azure.Settings
	poolReqs           []requirement
	fails              string
}

// The entries' values are those the suite selects; its fake region is
// southcentralus and its node resource group test-resourceGroup.
var labelCases = []labelCase{
	{slug: "topology-kubernetes-io-region", label: apis.LabelTopologyRegion, value: fakeRegion},
	{slug: "karpenter-sh-nodepool", label: apis.LabelNodePool, value: "default"},
	{slug: "topology-kubernetes-io-zone", label: apis.LabelTopologyZone, value: fakeZone1},
	{slug: "node-kubernetes-io-instance-type", label: apis.LabelInstanceType, value: "Standard_NC24ads_A100_v4"},
	{slug: "kubernetes-io-os", label: apis.LabelOS, value: "linux"},
	{slug: "kubernetes-io-arch", label: apis.LabelArch, value: "amd64"},
	{slug: "karpenter-sh-capacity-type", label: apis.LabelCapacityType, value: apis.CapacityTypeOnDemand},
	{slug: "karpenter-azure-com-placement-scope", label: azure.LabelPlacementScope, value: "zonal"},
	{slug: "karpenter-azure-com-sku-name", label: azure.LabelSKUName, value: "Standard_NC24ads_A100_v4"},
	{slug: "karpenter-azure-com-sku-family", label: azure.LabelSKUFamily, value: "N"},
	{slug: "karpenter-azure-com-sku-series", label: azure.LabelSKUSeries, value: "NCads_v4"},
	{slug: "karpenter-azure-com-sku-version", label: azure.LabelSKUVersion, value: "4"},
	{slug: "karpenter-azure-com-sku-storage-ephemeralos-maxsize", label: azure.LabelSKUEphemeralOSMaxSize, value: "429"},
	{slug: "karpenter-azure-com-sku-networking-accelerated", label: azure.LabelSKUAcceleratedNetworking, value: "true"},
	{slug: "karpenter-azure-com-sku-storage-premium-capable", label: azure.LabelSKUStoragePremiumCapable, value: "true"},
	{slug: "karpenter-azure-com-sku-storage-ultra-ssd", label: azure.LabelSKUUltraSSD, value: "true"},
	{slug: "karpenter-azure-com-sku-gpu-name", label: azure.LabelSKUGPUName, value: "A100"},
	{slug: "karpenter-azure-com-sku-gpu-manufacturer", label: azure.LabelSKUGPUManufacturer, value: "nvidia"},
	{slug: "karpenter-azure-com-sku-gpu-count", label: azure.LabelSKUGPUCount, value: "1"},
	{slug: "karpenter-azure-com-sku-cpu", label: azure.LabelSKUCPU, value: "24"},
	{slug: "karpenter-azure-com-sku-memory", label: azure.LabelSKUMemory, value: "8192"},
	{slug: "kubernetes-azure-com-sku-cpu", label: azure.LabelAKSCPU, value: "24"},
	{slug: "kubernetes-azure-com-sku-memory", label: azure.LabelAKSMemory, value: "8192"},
	{slug: "kubernetes-azure-com-mode-user", label: azure.LabelAKSMode, value: "user"},
	{slug: "kubernetes-azure-com-mode-system", label: azure.LabelAKSMode, value: "system"},
	{slug: "kubernetes-azure-com-scalesetpriority-regular", label: azure.LabelAKSScaleSetPriority, value: "regular"},
	{slug: "kubernetes-azure-com-scalesetpriority-spot", label: azure.LabelAKSScaleSetPriority, value: "spot"},
	{slug: "kubernetes-azure-com-priority-regular", label: azure.LabelAKSPriority, value: "regular"},
	{slug: "kubernetes-azure-com-priority-spot", label: azure.LabelAKSPriority, value: "spot"},
	{slug: "kubernetes-azure-com-os-sku", label: azure.LabelAKSOSSKU, value: "Ubuntu"},
	{slug: "kubernetes-azure-com-fips-enabled", label: azure.LabelAKSFIPSEnabled, value: "true",
		settings: azure.Settings{FIPSMode: azure.FIPSModeFIPS, ImageFamily: azure.ImageFamilyAzureLinux}},
	{slug: "failure-domain-beta-kubernetes-io-region", label: "failure-domain.beta.kubernetes.io/region", value: fakeRegion},
	{slug: "failure-domain-beta-kubernetes-io-zone", label: "failure-domain.beta.kubernetes.io/zone", value: fakeZone1},
	{slug: "beta-kubernetes-io-arch", label: "beta.kubernetes.io/arch", value: "amd64"},
	{slug: "beta-kubernetes-io-os", label: "beta.kubernetes.io/os", value: "linux"},
	{slug: "beta-kubernetes-io-instance-type", label: "beta.kubernetes.io/instance-type", value: "Standard_NC24ads_A100_v4"},
	{slug: "topology-disk-csi-azure-com-zone", label: "topology.disk.csi.azure.com/zone", value: fakeZone1},
	{slug: "node-kubernetes-io-windows-build", label: apis.LabelWindowsBuild, value: "window"},
	{slug: "kubernetes-azure-com-cluster", label: azure.LabelAKSCluster, value: "test-resourceGroup",
		settings: azure.Settings{NodeResourceGroup: "test-resourceGroup"}},
	{slug: "kubernetes-io-custom-label", label: "kubernetes.io/custom-label", value: "custom-value",
		poolReqs: []requirement{in("kubernetes.io/custom-label", "custom-value")}},
	{slug: "k8s-io-custom-label", label: "k8s.io/custom-label", value: "custom-value",
		poolReqs: []requirement{in("k8s.io/custom-label", "custom-value")}},
	{slug: "kubelet-kubernetes-io-custom-label", label: "kubelet.kubernetes.io/custom-label", value: "custom-value",
		poolReqs: []requirement{in("kubelet.kubernetes.io/custom-label", "custom-value")}},
}

// normalized are the deprecated labels Karpenter reads as their stable
// ones: the node carries the stable label with the value.
var normalized = map[string]string{
	"failure-domain.beta.kubernetes.io/region": apis.LabelTopologyRegion,
	"failure-domain.beta.kubernetes.io/zone":   apis.LabelTopologyZone,
	"beta.kubernetes.io/arch":                  apis.LabelArch,
	"beta.kubernetes.io/os":                    apis.LabelOS,
	"beta.kubernetes.io/instance-type":         apis.LabelInstanceType,
	"topology.disk.csi.azure.com/zone":         apis.LabelTopologyZone,
}

func (lc labelCase) run(t *T) {
	w := world{catalogOf(t, fakeRegion, lc.settings), nodePool(lc.poolReqs...)}
	labels := w.launch(t, pendingPod("p", selecting(lc.label, lc.value)))[0]
	key := lc.label
	if stable, ok := normalized[key]; ok {
		key = stable
	}
	expectLabel(t, labels, key, lc.value)
}

var _ = func() bool {
	cases := make([]conformanceCase, 0, len(labelCases)+1)
	for _, lc := range labelCases {
		cases = append(cases, conformanceCase{Name: lc.slug, Run: lc.run, Fails: lc.fails})
	}
	cases = append(cases, conformanceCase{Name: "all-at-once", Run: func(t *T) {
		// Every entry without a setup of its own, one pod each, solved
		// together.
		w := world{suiteCatalog(t), nodePool()}
		var pods []*corev1.Pod
		var entries []labelCase
		for i, lc := range labelCases {
			if lc.settings != (azure.Settings{}) || lc.poolReqs != nil || lc.label == apis.LabelWindowsBuild {
				continue
			}
			pods = append(pods, pendingPod(fmt.Sprintf("p%d", i), selecting(lc.label, lc.value)))
			entries = append(entries, lc)
		}
		for i, labels := range w.launch(t, pods...) {
			key := entries[i].label
			if stable, ok := normalized[key]; ok {
				key = stable
			}
			expectLabel(t, labels, key, entries[i].value)
		}
	}})
	return register("labels", cases...)
}()
