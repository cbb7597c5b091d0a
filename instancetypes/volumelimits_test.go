package instancetypes

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/resources"
)

func volumeLimitedSpec() Spec {
	return Spec{Name: "limited", Capacity: resources.New(4000, 8*gib, 110),
		VolumeAttachmentLimits: map[string]int{"ebs.csi.aws.com": 25, "local.csi": 0},
		Offerings:              []Offering{{Zone: "us-east-1a", CapacityType: "on-demand", Price: 0.1, Available: true}}}
}

// Volume attachment limits are copied from the spec, written to the JSON
// catalog and read back unchanged.
func TestVolumeAttachmentLimitsRoundTrip(t *testing.T) {
	spec := volumeLimitedSpec()
	it, err := NewInstanceType(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.VolumeAttachmentLimits["ebs.csi.aws.com"] = 1
	if got := it.VolumeAttachmentLimits["ebs.csi.aws.com"]; got != 25 {
		t.Fatalf("the type follows a change to its spec: %d", got)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Catalog{it}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"volumeAttachmentLimits": {`) {
		t.Fatalf("not written:\n%s", buf.String())
	}
	read, err := ReadJSON(&buf, "limits.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read[0].VolumeAttachmentLimits, map[string]int{"ebs.csi.aws.com": 25, "local.csi": 0}) {
		t.Fatalf("read back %v", read[0].VolumeAttachmentLimits)
	}
	// A type without limits writes none.
	plain := volumeLimitedSpec()
	plain.VolumeAttachmentLimits = nil
	it, err = NewInstanceType(plain)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := WriteJSON(&buf, Catalog{it}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "volumeAttachmentLimits") {
		t.Fatalf("written although empty:\n%s", buf.String())
	}
}

// Bad limits are refused naming the type and the driver; the AWS model
// states none, as the AWS provider v1.15.x does.
func TestVolumeAttachmentLimitsRefused(t *testing.T) {
	const head = `[{"name": "x", "labels": {}, "capacity": {"cpu": "1"}, "overhead": {}, "offerings": [], "volumeAttachmentLimits": `
	for _, tc := range []struct{ limits, want string }{
		{`{"ebs.csi.aws.com": -1}`, `instanceTypes[0] (x): volumeAttachmentLimits.ebs.csi.aws.com: -1 is negative`},
		{`{"ebs.csi.aws.com": 1.5}`, `instanceTypes[0] (x): volumeAttachmentLimits.ebs.csi.aws.com: want an integer`},
		{`{"ebs.csi.aws.com": 1e30}`, `instanceTypes[0] (x): volumeAttachmentLimits.ebs.csi.aws.com: want an integer`},
		{`{"ebs.csi.aws.com": "25"}`, `instanceTypes[0] (x): volumeAttachmentLimits.ebs.csi.aws.com: want an integer, got a string`},
		{`{"a": 1, "a": 2}`, `instanceTypes[0] (x): volumeAttachmentLimits.a: repeated`},
		{`{"": 1}`, `instanceTypes[0] (x): volumeAttachmentLimits: a driver without a name`},
		{`[25]`, `instanceTypes[0] (x): volumeAttachmentLimits: want an object, got an array`},
	} {
		_, err := ReadJSON(strings.NewReader(head+tc.limits+"}]"), "c.json")
		if err == nil || !errors.Is(err, ErrInvalidCatalog) || !strings.Contains(err.Error(), "c.json: "+tc.want) {
			t.Errorf("%s: got %v, want %q", tc.limits, err, tc.want)
		}
	}
	spec := volumeLimitedSpec()
	spec.VolumeAttachmentLimits = map[string]int{"ebs.csi.aws.com": -2}
	if _, err := NewInstanceType(spec); err == nil || !errors.Is(err, ErrInvalidInstanceType) || !strings.Contains(err.Error(), "volumeAttachmentLimits.ebs.csi.aws.com: -2 is negative") {
		t.Errorf("NewInstanceType: %v", err)
	}
	for _, it := range Default() {
		if it.VolumeAttachmentLimits != nil {
			t.Fatalf("%s: the AWS model states volume limits %v, which the AWS provider does not", it.Name, it.VolumeAttachmentLimits)
		}
	}
}
