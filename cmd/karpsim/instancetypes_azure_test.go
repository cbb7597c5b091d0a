package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/instancetypes"
)

func TestInstanceTypesAzure(t *testing.T) {
	code, out, stderr := runCmd("instance-types", "--cloud", "azure", "--region", "westeurope", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := azure.Catalog("westeurope", azure.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := instancetypes.WriteJSON(&buf, want); err != nil {
		t.Fatal(err)
	}
	if out != buf.String() {
		t.Error("instance-types --cloud azure -o json is not the package's catalog in the JSON catalog format")
	}
	// The JSON reads back as a catalog, as AWS's does.
	if _, err := instancetypes.ReadJSON(strings.NewReader(out), "stdout"); err != nil {
		t.Fatal(err)
	}

	// The default region is eastus, not the AWS default.
	code, table, stderr := runCmd("instance-types", "--cloud", "azure")
	if code != 0 || !strings.Contains(table, "Standard_D2s_v3") || !strings.Contains(table, "0.0960") {
		t.Fatalf("exit %d, eastus table:\n%s%s", code, table, stderr)
	}

	// The network plugin sets pods per node.
	code, out, stderr = runCmd("instance-types", "--cloud", "azure", "--network-plugin", "kubenet", "-o", "json")
	if code != 0 || !strings.Contains(out, `"pods": "110"`) || strings.Contains(out, `"pods": "250"`) {
		t.Fatalf("exit %d: kubenet pods: %s", code, stderr)
	}
}

func TestInstanceTypesAzureUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cloud", "azure", "--region", "atlantis"}, `unknown region "atlantis"`},
		{[]string{"--cloud", "azure", "--zones", "eastus-1"}, "--zones applies to --cloud aws"},
		{[]string{"--cloud", "azure", "--zonal-shift", "eastus-1"}, "--zonal-shift applies to --cloud aws"},
		{[]string{"--cloud", "azure", "--network-plugin", "calico"}, `networkPlugin: "calico"`},
		{[]string{"--cloud", "gcp"}, `--cloud "gcp": want aws or azure`},
		{[]string{"--network-plugin", "kubenet"}, "apply to --cloud azure"},
	} {
		code, _, stderr := runCmd(append([]string{"instance-types"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestInstanceTypesAzureDerivedColumn checks that -o wide counts the
// derived capabilities of Azure sizes and that AWS tables have no such
// column.
func TestInstanceTypesAzureDerivedColumn(t *testing.T) {
	code, table, stderr := runCmd("instance-types", "--cloud", "azure", "-o", "wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(table, "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "DERIVED") {
		t.Fatalf("header %q has no DERIVED column", lines[0])
	}
	for name, want := range map[string]string{"Standard_D2s_v3": "0", "Standard_D4ps_v5": "8"} {
		var found bool
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				found = true
				if f[len(f)-1] != want {
					t.Errorf("%s: DERIVED %s, want %s", name, f[len(f)-1], want)
				}
			}
		}
		if !found {
			t.Errorf("%s is not in the eastus table", name)
		}
	}
	code, table, stderr = runCmd("instance-types", "-o", "wide")
	if code != 0 || strings.Contains(table, "DERIVED") {
		t.Fatalf("exit %d, AWS wide table has a DERIVED column: %s", code, stderr)
	}
}
