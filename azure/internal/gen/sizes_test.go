package main

import (
	"slices"
	"strings"
	"testing"
)

const caSample = `package azure

var InstanceTypes = map[string]*InstanceType{
	"Standard_A4_v2": {
		InstanceType: "Standard_A4_v2",
		SkuFamily:    "standardAv2Family",
		VCPU:         4,
		MemoryMb:     8192,
		GPU:          0,
		Architecture: "amd64",
	},
	"Standard_D4ps_v5": {
		InstanceType: "Standard_D4ps_v5",
		SkuFamily:    "standardDPSv5Family",
		VCPU:         4,
		MemoryMb:     16384,
		GPU:          0,
		Architecture: "arm64",
	},
	"Standard_B4ms": {
		InstanceType: "Standard_B4ms",
		SkuFamily:    "standardBSFamily",
		VCPU:         4,
		MemoryMb:     16384,
		GPU:          0,
		Architecture: "amd64",
	},
	"Standard_NC40ads_H100_v5": {
		InstanceType: "Standard_NC40ads_H100_v5",
		SkuFamily:    "StandardNCadsH100v5Family",
		VCPU:         40,
		MemoryMb:     327680,
		GPU:          1,
		Architecture: "amd64",
	},
	"Standard_D2_v2_Promo": {
		InstanceType: "Standard_D2_v2_Promo",
		SkuFamily:    "standardDv2PromoFamily",
		VCPU:         2,
		MemoryMb:     7168,
		GPU:          0,
		Architecture: "amd64",
	},
}
`

func TestDerive(t *testing.T) {
	table, err := parseCASizes([]byte(caSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(table) != 5 {
		t.Fatalf("%d sizes, want 5", len(table))
	}
	for _, tc := range []struct {
		name                 string
		arch, hyperV         string
		memoryGB             float64
		premium, accel, spot bool
		gpus                 int64
	}{
		{"Standard_A4_v2", "x64", "V1", 8, false, false, true, 0},
		{"Standard_D4ps_v5", "Arm64", "V2", 16, true, true, true, 0},
		{"Standard_B4ms", "x64", "V2", 16, true, false, false, 0},
		{"Standard_NC40ads_H100_v5", "x64", "V2", 320, true, false, true, 1},
		{"Standard_D2_v2_Promo", "x64", "V2", 7, false, true, false, 0},
	} {
		s, err := derive(table[tc.name])
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Architecture != tc.arch || s.HyperVGenerations != tc.hyperV || s.MemoryGB != tc.memoryGB ||
			s.PremiumIO != tc.premium || s.AcceleratedNetworking != tc.accel || s.LowPriorityCapable != tc.spot || s.GPUs != tc.gpus {
			t.Errorf("%s: %+v", tc.name, *s)
		}
		if s.EncryptionAtHost || s.EphemeralOSDisk || s.UltraSSDAvailable || s.Zones == nil || len(s.Zones) != 0 {
			t.Errorf("%s: the conservative defaults are not set: %+v", tc.name, *s)
		}
		if !slices.Equal(s.Derived, derivedFacts) {
			t.Errorf("%s: derived %v", tc.name, s.Derived)
		}
	}
}

func TestParseCASizesErrors(t *testing.T) {
	for _, tc := range []struct{ edit, want string }{
		{`Architecture: "arm64",`, "disagrees with the feature letters"},
		{`Cores: 4,`, "unexpected"},
		{`MemoryMb:     8192,`, "lacks fields"},
	} {
		src := strings.Replace(caSample, `		Architecture: "amd64",
	},
	"Standard_D4ps_v5"`, `		`+tc.edit+`
	},
	"Standard_D4ps_v5"`, 1)
		table, err := parseCASizes([]byte(src))
		if err == nil {
			_, err = derive(table["Standard_A4_v2"])
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.edit, err, tc.want)
		}
	}
}
