package drift

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// enclaveOptions enters the EC2NodeClass hash as the AWS provider v1.15.0
// hashes it: enabled, explicitly disabled and left out are three hashes
// (upstream's "should distinguish omitted enclave options from explicitly
// disabled"). karpsim stamps hash version v5 (see hash.go), so the values
// are not v1.15.0's v6 ones.
func TestEC2NodeClassHashEnclaveOptions(t *testing.T) {
	seen := map[string]string{}
	for _, tc := range []struct {
		name    string
		enclave *apis.EnclaveOptions
	}{
		{"omitted", nil},
		{"enabled", &apis.EnclaveOptions{Enabled: ptr(true)}},
		{"disabled", &apis.EnclaveOptions{Enabled: ptr(false)}},
	} {
		nc := upstreamTestNodeClass()
		nc.Spec.EnclaveOptions = tc.enclave
		h := EC2NodeClassHash(nc, nil)
		if other, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s does (%s)", tc.name, other, h)
		}
		seen[h] = tc.name
	}
	// A change of enclaveOptions drifts the class's claims.
	nc := upstreamTestNodeClass()
	before := EC2NodeClassHash(nc, nil)
	nc.Spec.EnclaveOptions = &apis.EnclaveOptions{Enabled: ptr(true)}
	if EC2NodeClassHash(nc, nil) == before {
		t.Fatal("enabling Nitro Enclaves leaves the hash")
	}
}
