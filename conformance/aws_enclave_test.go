package conformance

import (
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// The compatibility suite's NitroEnclavesCompatibility table (AWS provider
// v1.15.0): the made-up type states its Nitro Enclaves support, and the
// EC2NodeClass's enclaveOptions is left out (nil), enabled or disabled.
// karpsim's facts say a type supports Nitro Enclaves or not: a type whose
// support EC2 leaves unset is one whose facts do not state support, the
// zero value, which karpsim reads as not supported, as the provider does.

// enclaveCase: the type (supported or not) is compatible (want) under the
// setting ("" for no enclaveOptions, else "enabled" or "disabled").
func enclaveCase(setting string, supported, want bool) func(t *T) {
	return func(t *T) {
		f := compatType("", nil, 0)
		f.NitroEnclaves = supported
		nc := awsNodeClass("al2023@latest", nil)
		if setting != "" {
			enabled := setting == "enabled"
			nc.Spec.EnclaveOptions = &apis.EnclaveOptions{Enabled: &enabled}
		}
		require.Equal(t, want, compatible(t, f, nc, ""))
	}
}

var _ = register("aws-compat",
	conformanceCase{Name: "enclaves-no-options", Run: enclaveCase("", false, true)},
	conformanceCase{Name: "enclaves-enabled-supported", Run: enclaveCase("enabled", true, true)},
	conformanceCase{Name: "enclaves-enabled-unsupported", Run: enclaveCase("enabled", false, false)},
	// Support unset: the facts do not state it (see above).
	conformanceCase{Name: "enclaves-enabled-support-unset", Run: func(t *T) {
		f := compatType("", nil, 0)
		enabled := true
		nc := awsNodeClass("al2023@latest", nil)
		nc.Spec.EnclaveOptions = &apis.EnclaveOptions{Enabled: &enabled}
		require.False(t, compatible(t, f, nc, ""))
	}},
	conformanceCase{Name: "enclaves-disabled", Run: enclaveCase("disabled", false, true)},
)
