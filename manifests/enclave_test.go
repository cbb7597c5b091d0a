package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// enclaveOptions (AWS provider v1.15.0) is read from an EC2NodeClass, and,
// as the CRD requires, enabled must be given once enclaveOptions is.
func TestEnclaveOptions(t *testing.T) {
	const spec = "  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n"
	for _, tc := range []struct {
		enclave string
		enabled bool
	}{
		{"", false},
		{"  enclaveOptions: {enabled: true}\n", true},
		{"  enclaveOptions: {enabled: false}\n", false},
	} {
		s, err := Decode("ok.yaml", []byte(ec2NodeClass(spec+tc.enclave)))
		require.NoError(t, err, tc.enclave)
		require.Len(t, s.EC2NodeClasses, 1)
		assert.Equal(t, tc.enabled, s.EC2NodeClasses[0].NitroEnclavesEnabled(), tc.enclave)
	}
	_, err := Decode("bad.yaml", []byte(ec2NodeClass(spec+"  enclaveOptions: {}\n")))
	assert.Equal(t, []string{ncPath + "spec.enclaveOptions.enabled: required when enclaveOptions is given (true or false)"}, errorStrings(t, err))
	_, err = Decode("bad.yaml", []byte(ec2NodeClass(spec+"  enclaveOptions: {enabled: yes please}\n")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "EC2NodeClass")
	assert.Contains(t, err.Error(), "enabled")
}
