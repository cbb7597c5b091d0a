package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Node repair through `karpsim disrupt`: --feature-gates NodeRepair and the
// AWS provider's RebootForRepair gate, over testdata/disrupt/node-repair
// with its GPU node's fault made a transient one (XID 48) two hours old.
func transientGPUFault(t *testing.T) string {
	t.Helper()
	in, err := os.ReadFile(disruptScenario("node-repair"))
	require.NoError(t, err)
	s := strings.Replace(string(in), `NVIDIA-XID79-GPU-fell-off-the-bus, lastHeartbeatTime: "2026-03-03T11:59:00Z", lastTransitionTime: "2026-03-03T11:55:00Z"`,
		`NVIDIA-XID48-double-bit-ECC, lastHeartbeatTime: "2026-03-03T11:59:00Z", lastTransitionTime: "2026-03-03T10:00:00Z"`, 1)
	require.NotEqual(t, string(in), s)
	return s
}

func TestDisruptNodeRepairRebootForRepair(t *testing.T) {
	t.Parallel()
	input := transientGPUFault(t)
	at := "--at=2026-03-03T12:00:00Z"
	// The GPU node's fault is older, so it goes first: replaced without
	// the AWS gate, rebooted in place with it.
	deleted, r := disruptDeletes(t, input, at, "--feature-gates", "NodeRepair=true")
	require.Len(t, r.Commands, 1)
	assert.Equal(t, []string{"ip-10-0-7-17.ec2.internal"}, deleted)
	assert.Equal(t, "5m0s", r.Commands[0].TerminationGracePeriod.Duration.String())

	deleted, r = disruptDeletes(t, input, at, "--feature-gates", "NodeRepair=true", "--aws-feature-gates", "RebootForRepair=true")
	require.Len(t, r.Commands, 1)
	assert.Empty(t, deleted, "a reboot deletes nothing")
	assert.Equal(t, "ip-10-0-7-17.ec2.internal", r.Commands[0].Reboot)
	assert.True(t, strings.HasPrefix(r.Commands[0].Reason, "Unhealthy/reboot: AcceleratedHardwareReady=False"), r.Commands[0].Reason)

	file := writeFile(t, "in.yaml", input)
	code, stdout, stderr := runCmd("disrupt", "-f", file, at, "--feature-gates", "NodeRepair=true", "--aws-feature-gates", "RebootForRepair=true")
	require.Zero(t, code, stderr)
	assert.Contains(t, stdout, "(reboot) ip-10-0-7-17.ec2.internal")
	code, stdout, stderr = runCmd("explain", "node", "ip-10-0-7-17.ec2.internal", "-f", file, at, "--feature-gates", "NodeRepair=true", "--aws-feature-gates", "RebootForRepair=true")
	require.Zero(t, code, stderr)
	assert.Regexp(t, `reboots: +ip-10-0-7-17.ec2.internal`, stdout)

	// Without the gate nothing is repaired.
	deleted, _ = disruptDeletes(t, input, at)
	assert.Empty(t, deleted)
}

func TestDisruptNodeRepairRefusesInvalidPolicies(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCmd("disrupt", "-f", disruptScenario("node-repair"), "--at", "2026-03-03T12:00:00Z", "--feature-gates", "NodeRepair=true", "--cloud", "azure")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--feature-gates NodeRepair=true: the azure provider's repair policies: invalid repair policies")
	code, _, stderr = runCmd("disrupt", "-f", disruptScenario("node-repair"), "--aws-feature-gates", "Reboot=true")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown gate "Reboot"`)
}

func TestExplainNodeRepairVerdict(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("explain", "node", "ip-10-0-7-17.ec2.internal", "-f", disruptScenario("node-repair"), "--at", "2026-03-03T12:00:00Z",
		"--feature-gates", "NodeRepair=true")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "eligible in 5m0s (at 2026-03-03T12:05:00Z)")
}
