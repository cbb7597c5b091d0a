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
	"strings"
	"sync"

	"github.com/karpsim/karpsim/apis"
)

// EC2Facts is what karpsim knows of one EC2 instance type: the fields of
// one line of data/ec2-instance-types.jsonl. Counts and sizes that are 0
// are unknown or absent (no local NVMe, no GPU, no price).
type EC2Facts struct {
	InstanceType string
	VCPU         int64
	MemoryMiB    int64
	// Architecture is "amd64" or "arm64".
	Architecture string
	Category     string
	Family       string
	Generation   int64
	Size         string
	// Hypervisor is "nitro" or "xen", and empty on bare metal.
	Hypervisor           string
	CPUManufacturer      string
	NetworkBandwidthMbps int64
	EBSBandwidthMbps     int64
	EncryptionInTransit  bool
	// MaxENIs and IPv4PerENI are the network interfaces of the default
	// network card and the IPv4 addresses of each; they bound pod density.
	MaxENIs    int64
	IPv4PerENI int64
	// OnDemandUSDPerHourUSEast1 is the on-demand Linux price in us-east-1,
	// 0 when there is none.
	OnDemandUSDPerHourUSEast1 float64
	LocalNVMeGB               int64
	// The GPU fields describe the type's one kind of GPU, if GPUName is set;
	// GPUCount may be 0 for a fraction of a GPU.
	GPUName         string
	GPUManufacturer string
	GPUCount        int64
	GPUMemoryMiB    int64
	// The accelerator fields describe its one kind of inference or training
	// accelerator, if AcceleratorName is set.
	AcceleratorName  string
	AcceleratorCount int64

	// The fields below are not in the main table: they come from
	// data/ec2-extra-facts.jsonl and the family rules of extrafacts.go.

	// InVPCLimits says the VPC resource controller's limits table lists the
	// type; only then does it give Windows nodes PrivateIPv4Address.
	InVPCLimits bool
	// BranchInterfaces are the trunk ENI's branch interfaces the VPC
	// resource controller offers as vpc.amazonaws.com/pod-eni; 0 when the
	// type cannot trunk.
	BranchInterfaces int64
	// NetworkCardENIs are the network interfaces each network card takes,
	// by card index; nil when unknown, which is taken as one card of
	// MaxENIs. The default card is card 0.
	NetworkCardENIs []int64
	// MaxEFAInterfaces are the Elastic Fabric Adapters the type takes; 0
	// when it has none or it is not known.
	MaxEFAInterfaces int64
	// ENAUnsupported says the type has no Elastic Network Adapter.
	ENAUnsupported bool
	// NitroEnclaves says the type can run Nitro Enclaves.
	NitroEnclaves bool
	// NestedVirtualization says the processor offers nested virtualization
	// to the instance.
	NestedVirtualization bool
	// PlacementStrategies are the placement group strategies the type can
	// launch into (apis.PlacementStrategies).
	PlacementStrategies []string
	// SustainedClockSpeedMhz is the all-core sustained clock speed; 0 when
	// not known.
	SustainedClockSpeedMhz int64
}

// factsLine is one line of the facts file, as written.
type factsLine struct {
	InstanceType              *string  `json:"instanceType"`
	VCPU                      *int64   `json:"vcpu"`
	MemoryMiB                 *int64   `json:"memoryMiB"`
	Architecture              *string  `json:"architecture"`
	Category                  string   `json:"category"`
	Family                    string   `json:"family"`
	Generation                int64    `json:"generation"`
	Size                      string   `json:"size"`
	Hypervisor                string   `json:"hypervisor"`
	CPUManufacturer           string   `json:"cpuManufacturer"`
	NetworkBandwidthMbps      int64    `json:"networkBandwidthMbps"`
	EBSBandwidthMbps          int64    `json:"ebsBandwidthMbps"`
	EncryptionInTransit       string   `json:"encryptionInTransit"`
	MaxENIs                   *int64   `json:"maxENIs"`
	IPv4PerENI                *int64   `json:"ipv4PerENI"`
	OnDemandUSDPerHourUSEast1 *float64 `json:"onDemandUSDPerHourUSEast1"`
	LocalNVMeGB               int64    `json:"localNVMeGB"`
	GPUName                   string   `json:"gpuName"`
	GPUManufacturer           string   `json:"gpuManufacturer"`
	GPUCount                  int64    `json:"gpuCount"`
	GPUMemoryMiB              int64    `json:"gpuMemoryMiB"`
	AcceleratorName           string   `json:"acceleratorName"`
	AcceleratorCount          int64    `json:"acceleratorCount"`
}

//go:embed data/ec2-instance-types.jsonl
var embeddedFacts []byte

// EmbeddedFactsDate is the day the embedded facts and their on-demand
// prices were taken into karpsim: data/ec2-instance-types.jsonl records no
// date of its own, so this is the date of the commit that added it
// (61a2ff9, 2026-11-22). Whoever refreshes the file updates it.
const EmbeddedFactsDate = "2026-11-22"

var embedded = sync.OnceValues(func() ([]EC2Facts, error) {
	facts, err := ParseFacts(bytes.NewReader(embeddedFacts), "data/ec2-instance-types.jsonl")
	if err != nil {
		return nil, err
	}
	return withExtraFacts(facts, bytes.NewReader(embeddedExtraFacts), "data/ec2-extra-facts.jsonl")
})

// EmbeddedFacts returns the facts of the 1,363 EC2 instance types embedded
// in the package, sorted by name, with the supplementary facts of
// data/ec2-extra-facts.jsonl and the family rules of extrafacts.go. They
// are parsed once; each call returns its own copy.
func EmbeddedFacts() []EC2Facts {
	facts, err := embedded()
	if err != nil {
		// The file is part of the package and checked by its tests.
		panic(fmt.Sprintf("instancetypes: embedded facts: %v", err))
	}
	out := slices.Clone(facts)
	for i := range out {
		out[i].NetworkCardENIs = slices.Clone(out[i].NetworkCardENIs)
		out[i].PlacementStrategies = slices.Clone(out[i].PlacementStrategies)
	}
	return out
}

// ErrInvalidFacts is wrapped by the errors ParseFacts returns.
var ErrInvalidFacts = errors.New("invalid instance type facts")

// ParseFacts reads facts in the embedded file's format: one JSON object per
// line, blank lines ignored. name names the input in errors, which give the
// line and the field: "facts.jsonl:12: vcpu: want a number, got string".
// Unknown fields, missing required fields, impossible values and repeated
// instance types are errors. It reads the main table only: the fields of
// data/ec2-extra-facts.jsonl and the family rules (extrafacts.go) are left
// zero, so such types have no trunking, EFA or clock-speed facts and
// support no placement strategy.
func ParseFacts(r io.Reader, name string) ([]EC2Facts, error) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var out []EC2Facts
	seen := map[string]int{}
	for line := 1; scanner.Scan(); line++ {
		text := bytes.TrimSpace(scanner.Bytes())
		if len(text) == 0 {
			continue
		}
		facts, err := parseFactsLine(text)
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %w", ErrInvalidFacts, name, line, err)
		}
		if first, ok := seen[facts.InstanceType]; ok {
			return nil, fmt.Errorf("%w: %s:%d: instanceType: %q is also on line %d", ErrInvalidFacts, name, line, facts.InstanceType, first)
		}
		seen[facts.InstanceType] = line
		out = append(out, facts)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidFacts, name, err)
	}
	slices.SortFunc(out, func(a, b EC2Facts) int { return strings.Compare(a.InstanceType, b.InstanceType) })
	return out, nil
}

func parseFactsLine(text []byte) (EC2Facts, error) {
	var raw factsLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return EC2Facts{}, describeJSONError(err)
	}
	if dec.More() {
		return EC2Facts{}, errors.New("more than one JSON value on the line")
	}
	if err := checkFactsLine(raw); err != nil {
		return EC2Facts{}, err
	}
	facts := EC2Facts{
		InstanceType: *raw.InstanceType, VCPU: *raw.VCPU, MemoryMiB: *raw.MemoryMiB,
		Architecture: *raw.Architecture, Category: raw.Category, Family: raw.Family,
		Generation: raw.Generation, Size: raw.Size, Hypervisor: raw.Hypervisor,
		CPUManufacturer: raw.CPUManufacturer, NetworkBandwidthMbps: raw.NetworkBandwidthMbps,
		EBSBandwidthMbps: raw.EBSBandwidthMbps, EncryptionInTransit: raw.EncryptionInTransit == "true",
		MaxENIs: *raw.MaxENIs, IPv4PerENI: *raw.IPv4PerENI, LocalNVMeGB: raw.LocalNVMeGB,
		GPUName: raw.GPUName, GPUManufacturer: raw.GPUManufacturer, GPUCount: raw.GPUCount,
		GPUMemoryMiB: raw.GPUMemoryMiB, AcceleratorName: raw.AcceleratorName, AcceleratorCount: raw.AcceleratorCount,
	}
	if raw.OnDemandUSDPerHourUSEast1 != nil {
		facts.OnDemandUSDPerHourUSEast1 = *raw.OnDemandUSDPerHourUSEast1
	}
	return facts, nil
}

// Bounds on the facts that capacity is computed from, far past any
// instance, so that the products the model takes (vCPUs × 1000, vCPUs ×
// podsPerCore, ENIs × addresses, pods × 11 MiB) stay within
// resources.MaxAmount instead of wrapping.
const (
	maxFactsVCPU      = 1 << 20
	maxFactsMemoryMiB = 1 << 33
	maxFactsENIs      = 1 << 12
)

// checkFactsLine names the first field that is missing or impossible.
func checkFactsLine(raw factsLine) error {
	switch {
	case raw.InstanceType == nil || *raw.InstanceType == "":
		return errors.New("instanceType: missing")
	case raw.VCPU == nil || *raw.VCPU <= 0:
		return errors.New("vcpu: missing or not positive")
	case *raw.VCPU > maxFactsVCPU:
		return fmt.Errorf("vcpu: %d is more than karpsim reads (%d)", *raw.VCPU, maxFactsVCPU)
	case raw.MemoryMiB == nil || *raw.MemoryMiB <= 0:
		return errors.New("memoryMiB: missing or not positive")
	case *raw.MemoryMiB > maxFactsMemoryMiB:
		return fmt.Errorf("memoryMiB: %d is more than karpsim reads (%d, 8 PiB)", *raw.MemoryMiB, maxFactsMemoryMiB)
	case raw.Architecture == nil || (*raw.Architecture != apis.ArchitectureAmd64 && *raw.Architecture != apis.ArchitectureArm64):
		return errors.New("architecture: missing or not amd64 or arm64")
	case raw.EncryptionInTransit != "true" && raw.EncryptionInTransit != "false":
		return fmt.Errorf("encryptionInTransit: %q is not \"true\" or \"false\"", raw.EncryptionInTransit)
	case raw.MaxENIs == nil || *raw.MaxENIs < 0:
		return errors.New("maxENIs: missing or negative")
	case *raw.MaxENIs > maxFactsENIs:
		return fmt.Errorf("maxENIs: %d is more than karpsim reads (%d)", *raw.MaxENIs, maxFactsENIs)
	case raw.IPv4PerENI == nil || *raw.IPv4PerENI < 1:
		return errors.New("ipv4PerENI: missing or below 1")
	case *raw.IPv4PerENI > maxFactsENIs:
		return fmt.Errorf("ipv4PerENI: %d is more than karpsim reads (%d)", *raw.IPv4PerENI, maxFactsENIs)
	case raw.OnDemandUSDPerHourUSEast1 != nil && !(*raw.OnDemandUSDPerHourUSEast1 > 0):
		return errors.New("onDemandUSDPerHourUSEast1: not positive")
	case raw.OnDemandUSDPerHourUSEast1 != nil && *raw.OnDemandUSDPerHourUSEast1 > apis.MaxPricePerHour:
		return fmt.Errorf("onDemandUSDPerHourUSEast1: %v is more than karpsim reads ($%g an hour)", *raw.OnDemandUSDPerHourUSEast1, float64(apis.MaxPricePerHour))
	case raw.GPUName == "" && (raw.GPUManufacturer != "" || raw.GPUCount != 0 || raw.GPUMemoryMiB != 0):
		return errors.New("gpuName: missing while other GPU fields are set")
	case raw.AcceleratorName == "" && raw.AcceleratorCount != 0:
		return errors.New("acceleratorName: missing while acceleratorCount is set")
	}
	for _, n := range []struct {
		field string
		v     int64
	}{
		{"networkBandwidthMbps", raw.NetworkBandwidthMbps}, {"ebsBandwidthMbps", raw.EBSBandwidthMbps},
		{"localNVMeGB", raw.LocalNVMeGB}, {"gpuCount", raw.GPUCount}, {"gpuMemoryMiB", raw.GPUMemoryMiB},
		{"acceleratorCount", raw.AcceleratorCount}, {"generation", raw.Generation},
	} {
		if n.v < 0 {
			return fmt.Errorf("%s: %d is negative", n.field, n.v)
		}
	}
	return nil
}

// describeJSONError rewords encoding/json's errors to name the field.
func describeJSONError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Errorf("%s: want %s, got %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Errorf("want %s, got %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("not JSON: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("not JSON: the object is cut short")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%s: unknown field", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return err
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "ptr":
		return "a value"
	}
	return "a number"
}
