package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
)

// instanceTypesOptions are the flags of `karpsim instance-types`.
type instanceTypesOptions struct {
	output     string
	nodeClass  string
	catalog    string
	spotPrices string
	region     string
	zones      string
	overlays   []string
	nodePool   string
	offers     offeringFlags
	awsGates   string
	// cloud is --cloud; the Azure fields apply to --cloud azure only.
	cloud                   string
	azureNetworkPlugin      string
	azureNetworkPluginMode  string
	instanceTypesSetByFlags func(name string) bool
}

// Clouds of `karpsim instance-types --cloud`.
const (
	instanceTypesCloudAWS   = "aws"
	instanceTypesCloudAzure = "azure"
)

func newInstanceTypesCommand() *cobra.Command {
	var opts instanceTypesOptions
	cmd := &cobra.Command{
		Use:   "instance-types [flags]",
		Short: "list the instance-type catalog with capacity, overhead, allocatable and offerings",
		Long: `Instance-types lists the catalog Karpenter would choose from: by default the embedded EC2 facts modelled
as Karpenter's AWS provider computes capacity, overhead and allocatable, with on-demand prices and
modelled spot prices. An EC2NodeClass's status gives the zones (its subnets') and the capacity
reservations (with --reservation-capacity counts); --zonal-shift makes a zone's offerings unavailable,
and ZONES then counts the zones still offered. The table is sorted by name; -o wide adds allocatable
CPU, memory and ephemeral storage and the extended resources that are not accelerators (pod ENIs, EFA);
-o json prints the JSON catalog format that --catalog reads, and -o yaml the same as YAML.

With --cloud azure it lists the VM sizes Karpenter's Azure provider (AKS node auto-provisioning) would
offer in --region (default eastus): the sizes the region's embedded price table prices, with the facts of
the provider's resource SKU tables, else of Cluster Autoscaler's Azure size table with the capabilities it
lacks derived from the size's name (-o wide's DERIVED column counts them; data README of package azure),
filtered, labelled and sized as the provider does for a default AKSNodeClass
(Ubuntu, 128 GB OS disk), with pods per node from --network-plugin and --network-plugin-mode, offerings
on-demand and spot in each of the region's zones (<region>-<n>) and the regional zone "0", and modelled
spot prices. The same JSON shape as AWS's.`,
		Example: `  # The catalog, one line per instance type
  karpsim instance-types

  # As JSON, for an EC2NodeClass's kubelet settings and block devices
  karpsim instance-types -o json --nodeclass testdata/seed-manifests/001-ec2nodeclass-default.yaml

  # With the NodeOverlays of a file applied, as its NodePool "on-demand" sees them
  karpsim instance-types --overlays testdata/plan/node-overlay/input.yaml --nodepool on-demand

  # Azure's VM sizes in West Europe, as JSON
  karpsim instance-types --cloud azure --region westeurope -o json`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(opts.output); err != nil {
				return err
			}
			opts.instanceTypesSetByFlags = cmd.Flags().Changed
			return runInstanceTypes(opts, cmd.OutOrStdout())
		},
	}
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.StringVar(&opts.nodeClass, "nodeclass", "", "EC2NodeClass YAML `FILE` to compute overhead and allocatable with (default: AL2023, no block device mappings)")
	f.StringVar(&opts.catalog, "catalog", "", "read the catalog from this JSON `FILE` (as printed by -o json) instead of the embedded EC2 facts")
	f.StringVar(&opts.spotPrices, "spot-prices", "", "JSON `FILE` printed by 'aws ec2 describe-spot-price-history'; replaces the modelled spot prices")
	f.StringVar(&opts.cloud, "cloud", instanceTypesCloudAWS, "`CLOUD` whose catalog to model: aws (EC2 instance types) or azure (VM sizes, as Karpenter's Azure provider sees them)")
	f.StringVar(&opts.region, "region", "us-east-1", "region of the embedded catalog's offerings (with --cloud azure: an Azure region, default eastus)")
	f.StringVar(&opts.azureNetworkPlugin, "network-plugin", "", "with --cloud azure, the cluster's network `PLUGIN` (azure, kubenet or none; default azure), which sets the pods per node")
	f.StringVar(&opts.azureNetworkPluginMode, "network-plugin-mode", "", "with --cloud azure, the network plugin `MODE` (overlay, or none for pods in the node subnet; default overlay)")
	f.StringVar(&opts.zones, "zones", "", "comma-separated zones (default: the region's a, b and c)")
	f.StringArrayVar(&opts.overlays, "overlays", nil, "apply the NodeOverlays of this manifest `FILE` (karpenter.sh/v1alpha1) and show what they changed in an OVERLAY column; repeatable")
	addOfferingFlags(cmd, &opts.offers)
	f.StringVar(&opts.awsGates, "aws-feature-gates", "", awsFeatureGatesUsage)
	f.StringVar(&opts.nodePool, "nodepool", "default", "with --overlays, the `NAME` of the NodePool the catalog is for (overlays may select karpenter.sh/nodepool and the labels of that NodePool's template when a file gives it)")
	must(cmd.MarkFlagFilename("nodeclass", manifestExtensions...))
	must(cmd.MarkFlagFilename("overlays", manifestExtensions...))
	must(cmd.MarkFlagFilename("catalog", "json"))
	must(cmd.MarkFlagFilename("spot-prices", "json"))
	noCompletion(cmd, "region", "zones")
	completeValues(cmd, "cloud", instanceTypesCloudAWS, instanceTypesCloudAzure)
	completeValues(cmd, "network-plugin", azure.NetworkPluginAzure, azure.NetworkPluginKubenet, azure.NetworkPluginNone)
	completeValues(cmd, "network-plugin-mode", azure.NetworkPluginModeOverlay, azure.NetworkPluginModeNodeSubnet)
	return cmd
}

func runInstanceTypes(opts instanceTypesOptions, stdout io.Writer) error {
	var overlays *manifests.Set
	overlaid := len(opts.overlays) > 0
	if overlaid {
		var err error
		if overlays, err = loadOverlayFiles(opts.overlays); err != nil {
			return err
		}
	}
	catalog, err := loadCatalog(opts, overlays)
	if err != nil {
		return err
	}
	if overlaid {
		catalog = applyOverlays(catalog, overlays, opts.nodePool)
	}
	switch opts.output {
	case "json":
		return instancetypes.WriteJSON(stdout, catalog)
	case "yaml":
		var buf bytes.Buffer
		if err := instancetypes.WriteJSON(&buf, catalog); err != nil {
			return err
		}
		out, err := yaml.JSONToYAML(buf.Bytes())
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	return writeTable(stdout, opts.output, func(w io.Writer) error { return writeInstanceTypesTable(w, catalog, overlaid, opts.output == "wide") })
}

// loadOverlayFiles reads the files of --overlays, which must give at least
// one NodeOverlay.
func loadOverlayFiles(files []string) (*manifests.Set, error) {
	set, err := manifests.Load(files...)
	if err != nil {
		return nil, err
	}
	if len(set.NodeOverlays) == 0 {
		return nil, fmt.Errorf("%w: --overlays: no NodeOverlay (karpenter.sh/v1alpha1) in %s", errUsage, strings.Join(files, ", "))
	}
	return set, nil
}

// applyOverlays applies the set's NodeOverlays to the catalog as the
// NodePool called pool sees it: its template labels come from the set when
// it gives that NodePool.
func applyOverlays(catalog instancetypes.Catalog, set *manifests.Set, pool string) instancetypes.Catalog {
	target := instancetypes.OverlayPool{Name: pool, Types: catalog}
	for _, np := range set.NodePools {
		if np.Name == pool {
			target.Labels = np.Spec.Template.ObjectMeta.Labels
		}
	}
	out, conflicts := instancetypes.ApplyOverlays([]instancetypes.OverlayPool{target}, set.NodeOverlays)
	for _, c := range conflicts {
		fmt.Fprintln(os.Stderr, "karpsim instance-types: warning: "+c.String())
	}
	return out[0]
}

// loadCatalog builds the catalog the flags describe. The embedded model
// takes the NodeOverlays of --overlays (nil for none) as the AWS provider
// does with the NodeOverlay gate on: they price the types the price list
// lacks.
func loadCatalog(opts instanceTypesOptions, overlays *manifests.Set) (instancetypes.Catalog, error) {
	switch opts.cloud {
	case instanceTypesCloudAWS, "":
	case instanceTypesCloudAzure:
		return loadAzureInstanceTypes(opts)
	default:
		return nil, fmt.Errorf("%w: --cloud %q: want aws or azure", errUsage, opts.cloud)
	}
	if opts.azureNetworkPlugin != "" || opts.azureNetworkPluginMode != "" {
		return nil, fmt.Errorf("%w: --network-plugin and --network-plugin-mode apply to --cloud azure", errUsage)
	}
	gates, err := parseAWSFeatureGates(opts.awsGates)
	if err != nil {
		return nil, err
	}
	var spot []pricing.SpotPrice
	if opts.spotPrices != "" {
		f, err := os.Open(opts.spotPrices)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if spot, err = pricing.ParseSpotPriceHistory(f, opts.spotPrices); err != nil {
			return nil, err
		}
	}
	if opts.catalog != "" {
		if opts.nodeClass != "" {
			return nil, fmt.Errorf("%w: --nodeclass applies to the embedded EC2 facts; a --catalog file states capacity and overhead itself", errUsage)
		}
		f, err := os.Open(opts.catalog)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		catalog, err := instancetypes.ReadJSON(f, opts.catalog)
		if err != nil || spot == nil {
			return catalog, err
		}
		return catalog.WithSpotPrices(spot)
	}
	awsOpts := instancetypes.AWSOptions{Region: opts.region, ZonalShifts: splitZones(opts.offers.zonalShift), NodeClassCEL: gates.nodeClassCEL}
	if overlays != nil {
		awsOpts.NodeOverlays, awsOpts.NodeOverlayGate = overlays.NodeOverlays, true
	}
	if opts.zones != "" {
		awsOpts.Zones = strings.Split(opts.zones, ",")
	}
	if awsOpts.Reservations, err = opts.offers.reservations(); err != nil {
		return nil, err
	}
	strategy, err := opts.offers.placementGroupStrategy()
	if err != nil {
		return nil, err
	}
	if opts.nodeClass != "" {
		nodeClass, err := loadNodeClass(opts.nodeClass)
		if err != nil {
			return nil, err
		}
		awsOpts.NodeClass = nodeClass
		awsOpts.PlacementGroupStrategy = instancetypes.PlacementStrategyFor(nodeClass, strategy)
	}
	if spot != nil {
		awsOpts.Prices = instancetypes.EmbeddedPrices().WithSpotPrices(spot)
	}
	return instancetypes.NewAWS(instancetypes.EmbeddedFacts(), awsOpts)
}

// loadNodeClass reads the one EC2NodeClass a file holds.
func loadNodeClass(path string) (*apis.EC2NodeClass, error) {
	set, err := manifests.Load(path)
	if err != nil {
		return nil, err
	}
	switch n := len(set.EC2NodeClasses); n {
	case 0:
		return nil, fmt.Errorf("%s: no EC2NodeClass in the file", path)
	case 1:
		return set.EC2NodeClasses[0], nil
	default:
		names := make([]string, n)
		for i, nc := range set.EC2NodeClasses {
			names[i] = nc.Name
		}
		return nil, fmt.Errorf("%s: %d EC2NodeClasses (%s); give a file with one", path, n, strings.Join(names, ", "))
	}
}

// writeInstanceTypesTable prints one line per instance type, sorted by name:
// capacity, the pods it takes, accelerators, the cheapest available price
// per capacity type (reserved only when some type has reserved offerings),
// and the zones with an available offering out of the type's zones; with
// overlaid, an OVERLAY column says what NodeOverlays changed. Wide adds the
// allocatable CPU, memory and ephemeral storage (capacity less overhead)
// and the extended resources that are not accelerators (ENIs for pods, EFA
// devices), and for Azure sizes the number of capabilities derived from the
// size's name (azure.DerivedFacts).
func writeInstanceTypesTable(w io.Writer, catalog instancetypes.Catalog, overlaid, wide bool) error {
	reserved := slices.ContainsFunc(catalog, func(it *instancetypes.InstanceType) bool {
		return slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.CapacityType == apis.CapacityTypeReserved })
	})
	// Azure sizes whose capabilities are partly derived from their names
	// get a column counting those capabilities.
	derived := wide && slices.ContainsFunc(catalog, func(it *instancetypes.InstanceType) bool { return azure.DerivedFacts(it.Name) != nil })
	type column struct {
		header string
		// shown says whether the table has the column.
		shown bool
		cell  func(it *instancetypes.InstanceType) string
	}
	allocatable := func(name corev1.ResourceName) func(*instancetypes.InstanceType) string {
		return func(it *instancetypes.InstanceType) string { return quantity(it.Allocatable(), name) }
	}
	price := func(capacityType string) func(*instancetypes.InstanceType) string {
		return func(it *instancetypes.InstanceType) string { return cheapest(it, capacityType) }
	}
	columns := []column{
		{"NAME", true, func(it *instancetypes.InstanceType) string { return it.Name }},
		{"ARCH", true, func(it *instancetypes.InstanceType) string { return it.Requirements.Get(apis.LabelArch).Any() }},
		{"CPU", true, func(it *instancetypes.InstanceType) string { return quantity(it.Capacity, corev1.ResourceCPU) }},
		{"MEMORY", true, func(it *instancetypes.InstanceType) string { return quantity(it.Capacity, corev1.ResourceMemory) }},
		{"ALLOC CPU", wide, allocatable(corev1.ResourceCPU)},
		{"ALLOC MEMORY", wide, allocatable(corev1.ResourceMemory)},
		{"ALLOC PODS", true, allocatable(corev1.ResourcePods)},
		{"ALLOC STORAGE", wide, allocatable(corev1.ResourceEphemeralStorage)},
		{"ACCELERATORS", true, func(it *instancetypes.InstanceType) string { return extendedResources(it, true) }},
		{"OTHER RESOURCES", wide, func(it *instancetypes.InstanceType) string { return extendedResources(it, false) }},
		{"ON-DEMAND $/H", true, price(apis.CapacityTypeOnDemand)},
		{"SPOT $/H", true, price(apis.CapacityTypeSpot)},
		{"RESERVED $/H", reserved, price(apis.CapacityTypeReserved)},
		{"ZONES", true, zonesAvailable},
		{"OVERLAY", overlaid, overlayNote},
		{"DERIVED", wide && derived, func(it *instancetypes.InstanceType) string { return strconv.Itoa(len(azure.DerivedFacts(it.Name))) }},
	}
	columns = slices.DeleteFunc(columns, func(c column) bool { return !c.shown })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cells := make([]string, len(columns))
	for i, c := range columns {
		cells[i] = c.header
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
	for _, it := range catalog {
		for i, c := range columns {
			cells[i] = c.cell(it)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// overlayNote says what NodeOverlays changed of a type: each overlay that
// set prices, with the provider's price range it changed, and the extended
// resources set, with the overlays that set them; "-" when none.
func overlayNote(it *instancetypes.InstanceType) string {
	var parts []string
	seen := map[string]bool{}
	for _, o := range it.Offerings {
		if o.PriceOverlay == "" || seen[o.PriceOverlay] {
			continue
		}
		seen[o.PriceOverlay] = true
		parts = append(parts, fmt.Sprintf("price by %s (from %.4f in %s %s)", o.PriceOverlay, o.BasePrice, o.Zone, o.CapacityType))
	}
	if n := it.Overlay; n != nil {
		var set []string
		for _, name := range n.Capacity.Names() {
			set = append(set, string(name)+"="+quantity(n.Capacity, name))
		}
		parts = append(parts, fmt.Sprintf("capacity %s by %s", strings.Join(set, ","), strings.Join(n.CapacityFrom, ",")))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// quantity prints one resource of v, or "-" when v has none.
func quantity(v resources.Vector, name corev1.ResourceName) string {
	if v.Get(name) == 0 {
		return "-"
	}
	q := v.Quantity(name)
	return q.String()
}

// acceleratorResources are the extended resources that are accelerators:
// GPUs, and Neuron and Gaudi devices (a Neuron device's cores are the same
// accelerator counted finer).
var acceleratorResources = []corev1.ResourceName{
	apis.ResourceNVIDIAGPU, apis.ResourceAMDGPU, apis.ResourceAWSNeuron, apis.ResourceHabanaGaudi,
}

// extendedResources prints a type's accelerators (accelerators true), e.g.
// "4 nvidia.com/gpu", or its other extended resources, e.g.
// "38 vpc.amazonaws.com/pod-eni"; "-" when it has none.
func extendedResources(it *instancetypes.InstanceType, accelerators bool) string {
	var parts []string
	for _, name := range it.Capacity.Names() {
		switch name {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
			continue
		}
		if slices.Contains(acceleratorResources, name) == accelerators {
			parts = append(parts, quantity(it.Capacity, name)+" "+string(name))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// zonesAvailable prints how many of the type's zones have an available
// offering, with the number of its zones when some have none (a zonal
// shift, a missing price, insufficient capacity).
func zonesAvailable(it *instancetypes.InstanceType) string {
	zones := it.Requirements.Get(apis.LabelTopologyZone).Values()
	n := 0
	for _, z := range zones {
		if slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.Zone == z && o.Available }) {
			n++
		}
	}
	if n == len(zones) {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%d of %d", n, len(zones))
}

// cheapest prints the lowest price among the available offerings of a
// capacity type, or "-" when there is none.
func cheapest(it *instancetypes.InstanceType, capacityType string) string {
	best, found := 0.0, false
	for _, o := range it.Offerings {
		if o.Available && o.CapacityType == capacityType && (!found || o.Price < best) {
			best, found = o.Price, true
		}
	}
	if !found {
		return "-"
	}
	if best > 0 && best < 0.00005 {
		// A reservation's nominal price (on-demand / 10,000,000).
		return fmt.Sprintf("%.2g", best)
	}
	return fmt.Sprintf("%.4f", best)
}

// loadAzureInstanceTypes builds the Azure catalog of --region (default
// azure.DefaultRegion), or reads --catalog; the AWS-only flags are errors.
func loadAzureInstanceTypes(opts instanceTypesOptions) (instancetypes.Catalog, error) {
	changed := opts.instanceTypesSetByFlags
	if changed == nil {
		changed = func(string) bool { return false }
	}
	for _, name := range []string{"nodeclass", "spot-prices", "zones", "zonal-shift", "reservation-capacity", "placement-group-strategy", "aws-feature-gates"} {
		if changed(name) {
			return nil, fmt.Errorf("%w: --%s applies to --cloud aws", errUsage, name)
		}
	}
	if opts.catalog != "" {
		f, err := os.Open(opts.catalog)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return instancetypes.ReadJSON(f, opts.catalog)
	}
	region := azure.DefaultRegion
	if changed("region") {
		region = opts.region
	}
	catalog, err := azure.Catalog(region, azure.Settings{NetworkPlugin: opts.azureNetworkPlugin, NetworkPluginMode: opts.azureNetworkPluginMode})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return catalog, nil
}
