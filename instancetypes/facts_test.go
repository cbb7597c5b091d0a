package instancetypes

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedFacts(t *testing.T) {
	facts := EmbeddedFacts()
	if len(facts) != 1363 {
		t.Fatalf("%d embedded types, want 1363", len(facts))
	}
	if !slices.IsSortedFunc(facts, func(a, b EC2Facts) int { return strings.Compare(a.InstanceType, b.InstanceType) }) {
		t.Error("embedded facts are not sorted by name")
	}
	i := slices.IndexFunc(facts, func(f EC2Facts) bool { return f.InstanceType == "a1.medium" })
	want := EC2Facts{
		InstanceType: "a1.medium", VCPU: 1, MemoryMiB: 2048, Architecture: "arm64", Category: "a", Family: "a1",
		Generation: 1, Size: "medium", Hypervisor: "nitro", CPUManufacturer: "aws", NetworkBandwidthMbps: 500,
		EBSBandwidthMbps: 3500, MaxENIs: 2, IPv4PerENI: 4, OnDemandUSDPerHourUSEast1: 0.0255,
		InVPCLimits: true, BranchInterfaces: 10, NetworkCardENIs: []int64{2},
		PlacementStrategies: []string{"cluster", "partition", "spread"}, SustainedClockSpeedMhz: 2300,
	}
	if !reflect.DeepEqual(facts[i], want) {
		t.Errorf("a1.medium facts\n got %+v\nwant %+v", facts[i], want)
	}
	facts[i].VCPU = 99
	facts[i].NetworkCardENIs[0] = 99
	if again := EmbeddedFacts()[i]; again.VCPU != 1 || again.NetworkCardENIs[0] != 2 {
		t.Error("changing the returned facts changed the embedded ones")
	}
}

const goodLine = `{"instanceType":"x1.large","vcpu":2,"memoryMiB":4096,"architecture":"amd64","category":"x","family":"x1","generation":1,"size":"large","cpuManufacturer":"intel","encryptionInTransit":"true","maxENIs":3,"ipv4PerENI":10}`

func TestParseFacts(t *testing.T) {
	facts, err := ParseFacts(strings.NewReader("\n"+goodLine+"\n\n"), "facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || !facts[0].EncryptionInTransit || facts[0].OnDemandUSDPerHourUSEast1 != 0 || facts[0].Hypervisor != "" {
		t.Errorf("parsed %+v", facts)
	}
	replace := func(old, new string) string { return strings.Replace(goodLine, old, new, 1) }
	for _, tc := range []struct {
		name, input, want string
	}{
		{"not JSON", "{", "facts.jsonl:1: not JSON"},
		{"wrong type", replace(`"vcpu":2`, `"vcpu":"2"`), "facts.jsonl:1: vcpu: want a number, got string"},
		{"unknown field", replace(`"vcpu":2`, `"vcpus":2`), "facts.jsonl:1: vcpus: unknown field"},
		{"missing field", replace(`"memoryMiB":4096,`, ``), "facts.jsonl:1: memoryMiB: missing or not positive"},
		{"bad architecture", replace(`amd64`, `x86_64`), "architecture: missing or not amd64 or arm64"},
		{"bad boolean", replace(`"true"`, `"yes"`), `encryptionInTransit: "yes" is not "true" or "false"`},
		{"negative", replace(`"generation":1`, `"generation":-1`), "generation: -1 is negative"},
		{"zero price", replace(`"ipv4PerENI":10`, `"ipv4PerENI":10,"onDemandUSDPerHourUSEast1":0`), "onDemandUSDPerHourUSEast1: not positive"},
		{"GPU without name", replace(`"ipv4PerENI":10`, `"ipv4PerENI":10,"gpuCount":1`), "gpuName: missing"},
		{"two values", goodLine + goodLine, "facts.jsonl:1: more than one JSON value"},
		{"repeated type", goodLine + "\n\n" + goodLine, `facts.jsonl:3: instanceType: "x1.large" is also on line 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFacts(strings.NewReader(tc.input), "facts.jsonl")
			if !errors.Is(err, ErrInvalidFacts) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseFacts: %v\nwant ErrInvalidFacts containing %q", err, tc.want)
			}
		})
	}
}
