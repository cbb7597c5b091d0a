package instancetypes

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/karpsim/karpsim/apis"
)

// The main facts table (data/ec2-instance-types.jsonl) says nothing of
// network cards, trunking, EFA, ENA, Nitro Enclaves, nested
// virtualization, placement groups or clock speed, which decide whether a
// type can launch under some EC2NodeClass settings and which extended
// resources and labels it has. data/ec2-extra-facts.jsonl supplies them
// per type, and the family rules below fill in what it leaves out.
//
// Where data/ec2-extra-facts.jsonl comes from (written by karpsim; its
// format is ours):
//   - vpcLimits, networkCardENIs and branchInterfaces, for the 1,355 types
//     of the main table the VPC resource controller knows (every type but
//     the hpc families and trn2.48xlarge): the controller's instance
//     limits (aws/amazon-vpc-resource-controller-k8s, as vendored by
//     aws/karpenter-provider-aws at 1d927085, whose pod-eni and
//     PrivateIPv4Address resources come from the same table). Each type's
//     default card agrees with maxENIs of the main table; a test checks.
//   - maxEFAInterfaces and sustainedClockSpeedMhz, for all 1,363 types:
//     the AWS provider's published instance-type reference
//     (website/content/en/docs/reference/instance-types.md at 1d927085,
//     generated from EC2's DescribeInstanceTypes), which gives each type's
//     vpc.amazonaws.com/efa resource and its sustained clock-speed label;
//     297 types have EFA. Its pod-eni resources agree with
//     branchInterfaces for every type. 10 old types have a clock speed of
//     0, which karpsim reads as unknown: it gives them no label, where the
//     provider labels them "0". The 17 types of the provider's test
//     catalog agree with its recorded DescribeInstanceTypes answers.
//   - nestedVirtualization: no type yet; karpsim does not know which
//     processors offer it, so enabling it leaves no type available.
//
// A line may also set enaSupported, nitroEnclaves or placementStrategies
// to override the family rules for its type. NitroEnclaves decides which
// types an EC2NodeClass with enclaveOptions enabled can launch (AWS
// provider v1.15.0, compatibility.go).

//go:embed data/ec2-extra-facts.jsonl
var embeddedExtraFacts []byte

// extraFactsLine is one line of data/ec2-extra-facts.jsonl.
type extraFactsLine struct {
	InstanceType           string   `json:"instanceType"`
	VPCLimits              bool     `json:"vpcLimits"`
	NetworkCardENIs        []int64  `json:"networkCardENIs"`
	BranchInterfaces       int64    `json:"branchInterfaces"`
	MaxEFAInterfaces       int64    `json:"maxEFAInterfaces"`
	SustainedClockSpeedMhz int64    `json:"sustainedClockSpeedMhz"`
	NestedVirtualization   bool     `json:"nestedVirtualization"`
	ENASupported           *bool    `json:"enaSupported"`
	NitroEnclaves          *bool    `json:"nitroEnclaves"`
	PlacementStrategies    []string `json:"placementStrategies"`
}

// withExtraFacts returns a copy of facts (sorted by name) completed by the
// family rules, then by the supplementary facts read from r; name names r
// in errors, which give the line and the field. A line for a type facts
// lacks, a repeated type, an unknown field or an impossible value is an
// error.
func withExtraFacts(facts []EC2Facts, r io.Reader, name string) ([]EC2Facts, error) {
	out := slices.Clone(facts)
	for i := range out {
		applyFactRules(&out[i])
	}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	seen := map[string]int{}
	for line := 1; scanner.Scan(); line++ {
		text := bytes.TrimSpace(scanner.Bytes())
		if len(text) == 0 {
			continue
		}
		if err := applyExtraLine(out, seen, line, text); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %w", ErrInvalidFacts, name, line, err)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidFacts, name, err)
	}
	return out, nil
}

func applyExtraLine(facts []EC2Facts, seen map[string]int, line int, text []byte) error {
	var raw extraFactsLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return describeJSONError(err)
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	i, found := sort.Find(len(facts), func(i int) int { return strings.Compare(raw.InstanceType, facts[i].InstanceType) })
	switch {
	case raw.InstanceType == "":
		return errors.New("instanceType: missing")
	case !found:
		return fmt.Errorf("instanceType: %q is not in the main facts table", raw.InstanceType)
	}
	if first, ok := seen[raw.InstanceType]; ok {
		return fmt.Errorf("instanceType: %q is also on line %d", raw.InstanceType, first)
	}
	seen[raw.InstanceType] = line
	f := &facts[i]
	if err := checkExtraLine(raw, f); err != nil {
		return err
	}
	f.InVPCLimits = raw.VPCLimits
	f.NetworkCardENIs = slices.Clone(raw.NetworkCardENIs)
	f.BranchInterfaces = raw.BranchInterfaces
	f.MaxEFAInterfaces = raw.MaxEFAInterfaces
	f.SustainedClockSpeedMhz = raw.SustainedClockSpeedMhz
	f.NestedVirtualization = raw.NestedVirtualization
	if raw.ENASupported != nil {
		f.ENAUnsupported = !*raw.ENASupported
	}
	if raw.NitroEnclaves != nil {
		f.NitroEnclaves = *raw.NitroEnclaves
	}
	if raw.PlacementStrategies != nil {
		f.PlacementStrategies = slices.Clone(raw.PlacementStrategies)
	}
	return nil
}

// checkExtraLine names the first impossible field of a line for f.
func checkExtraLine(raw extraFactsLine, f *EC2Facts) error {
	for _, n := range []struct {
		field string
		v     int64
	}{
		{"branchInterfaces", raw.BranchInterfaces}, {"maxEFAInterfaces", raw.MaxEFAInterfaces},
		{"sustainedClockSpeedMhz", raw.SustainedClockSpeedMhz},
	} {
		if n.v < 0 {
			return fmt.Errorf("%s: %d is negative", n.field, n.v)
		}
	}
	for i, n := range raw.NetworkCardENIs {
		if n < 1 {
			return fmt.Errorf("networkCardENIs[%d]: %d is below 1", i, n)
		}
	}
	if len(raw.NetworkCardENIs) > 0 && raw.NetworkCardENIs[0] != f.MaxENIs {
		return fmt.Errorf("networkCardENIs[0]: %d interfaces on the default card, but the main table's maxENIs is %d", raw.NetworkCardENIs[0], f.MaxENIs)
	}
	for i, s := range raw.PlacementStrategies {
		if !slices.Contains(apis.PlacementStrategies, s) {
			return fmt.Errorf("placementStrategies[%d]: %q is not cluster, partition or spread", i, s)
		}
	}
	return nil
}

// applyFactRules sets the facts that follow from a type's family, as the
// EC2 user guide states them; a line of data/ec2-extra-facts.jsonl may
// override them per type.
func applyFactRules(f *EC2Facts) {
	family, size, _ := strings.Cut(f.InstanceType, ".")
	f.ENAUnsupported = withoutENA(family, size)
	f.NitroEnclaves = nitroEnclavesSupported(f, family)
	f.PlacementStrategies = placementStrategies(family)
}

// familiesWithoutENA are the families with no Elastic Network Adapter:
// per the EC2 user guide ("Enhanced networking on Amazon EC2 instances"),
// every current generation type has ENA except C4, D2, M4 below
// m4.16xlarge (which use the Intel 82599 VF) and T2 (no enhanced
// networking); of the previous generation, C3, R3, I2 and M3 use the
// Intel VF or nothing, and the first generation (C1, M1, M2, T1) predates
// both. H1, I3, R4, X1 and X1e, though Xen, have ENA.
var familiesWithoutENA = []string{"c1", "c3", "c4", "d2", "i2", "m1", "m2", "m3", "r3", "t1", "t2"}

func withoutENA(family, size string) bool {
	return slices.Contains(familiesWithoutENA, family) || (family == "m4" && size != "16xlarge")
}

// nitroEnclavesSupported is the AWS Nitro Enclaves user guide's rule for a
// parent instance: a virtualized Nitro type (not bare metal, not Xen) with
// at least 4 vCPUs on Intel or AMD or at least 2 on Graviton, except the
// burstable T3, T3a and T4g, the first Graviton A1, and the Mac types.
func nitroEnclavesSupported(f *EC2Facts, family string) bool {
	if f.Hypervisor != "nitro" || slices.Contains([]string{"a1", "t3", "t3a", "t4g"}, family) || strings.HasPrefix(family, "mac") {
		return false
	}
	if f.Architecture == apis.ArchitectureArm64 {
		return f.VCPU >= 2
	}
	return f.VCPU >= 4
}

// placementStrategies: every type can launch into partition and spread
// placement groups; cluster groups refuse burstable performance types
// (T2, T3, T3a, T4g), flex types and Mac types, per the EC2 user guide's
// placement group rules, as DescribeInstanceTypes answers for the AWS
// provider's test catalog (t3, t4g, m7i-flex without cluster) agree.
var burstableFamilies = []string{"t1", "t2", "t3", "t3a", "t4g"}

func placementStrategies(family string) []string {
	if slices.Contains(burstableFamilies, family) || strings.Contains(family, "-flex") || strings.HasPrefix(family, "mac") {
		return []string{apis.PlacementStrategyPartition, apis.PlacementStrategySpread}
	}
	return slices.Clone(apis.PlacementStrategies)
}
