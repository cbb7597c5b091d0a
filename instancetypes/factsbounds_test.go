package instancetypes

import (
	"errors"
	"strings"
	"testing"
)

// Facts past what any instance has are refused, so that the products the
// model takes from them (vCPUs × 1000 millicores, vCPUs × podsPerCore,
// ENIs × addresses, pods × 11 MiB) never wrap into a small capacity.
func TestParseFactsRefusesWhatWouldWrap(t *testing.T) {
	replace := func(old, new string) string { return strings.Replace(goodLine, old, new, 1) }
	for _, tc := range []struct{ input, want string }{
		{replace(`"vcpu":2`, `"vcpu":9223372036854775807`), "vcpu: 9223372036854775807 is more than karpsim reads (1048576)"},
		{replace(`"memoryMiB":4096`, `"memoryMiB":9007199254740992`), "memoryMiB: 9007199254740992 is more than karpsim reads (8589934592, 8 PiB)"},
		{replace(`"ipv4PerENI":10`, `"ipv4PerENI":4294967296`), "ipv4PerENI: 4294967296 is more than karpsim reads (4096)"},
		{replace(`"ipv4PerENI":10`, `"ipv4PerENI":10,"onDemandUSDPerHourUSEast1":1e300`), "onDemandUSDPerHourUSEast1: 1e+300 is more than karpsim reads ($1e+06 an hour)"},
	} {
		_, err := ParseFacts(strings.NewReader(tc.input), "facts.jsonl")
		if !errors.Is(err, ErrInvalidFacts) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFacts: %v\nwant ErrInvalidFacts containing %q", err, tc.want)
		}
	}
	// The largest facts read give capacities within resources.MaxAmount.
	big := replace(`"vcpu":2`, `"vcpu":1048576`)
	big = strings.Replace(big, `"memoryMiB":4096`, `"memoryMiB":8589934592`, 1)
	facts, err := ParseFacts(strings.NewReader(big), "facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := NewAWS(facts, AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(catalog) != 1 {
		t.Fatalf("%d types from one line of facts", len(catalog))
	}
	for _, it := range catalog {
		if it.Capacity.HasNegative() || it.Allocatable().CPU() <= 0 {
			t.Errorf("%s: capacity %v, allocatable %v", it.Name, it.Capacity, it.Allocatable())
		}
	}
}
