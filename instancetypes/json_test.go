package instancetypes

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// A catalog written and read back is the same catalog, and writing it again
// gives the same bytes.
func TestJSONRoundTrip(t *testing.T) {
	windows, err := NewAWS(EmbeddedFacts()[:50], AWSOptions{NodeClass: nodeClass(apis.AMIFamilyWindows2022,
		&apis.KubeletConfiguration{KubeReserved: map[string]string{"pid": "100"}}, nil, false)})
	if err != nil {
		t.Fatal(err)
	}
	reserved, err := NewInstanceType(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	// Overhead above capacity leaves a negative allocatable: nothing fits.
	overcommitted, err := NewInstanceType(Spec{Name: "tiny", Capacity: resources.New(1000, gib, 4),
		Overhead: Overhead{KubeReserved: resources.New(0, 2*gib, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Catalog{
		"Default":       Default(),
		"Fake(400)":     Fake(400),
		"KWOK":          KWOK(),
		"Windows":       windows,
		"reserved":      {reserved},
		"overcommitted": {overcommitted},
	} {
		t.Run(name, func(t *testing.T) {
			var first bytes.Buffer
			if err := WriteJSON(&first, c); err != nil {
				t.Fatal(err)
			}
			read, err := ReadJSON(bytes.NewReader(first.Bytes()), name+".json")
			if err != nil {
				t.Fatal(err)
			}
			if len(read) != len(c) {
				t.Fatalf("read %d types, wrote %d", len(read), len(c))
			}
			for i := range c {
				if !reflect.DeepEqual(read[i], c[i]) {
					t.Fatalf("%s differs after a round trip:\nwrote %s\n%s\n%v\nread  %s\n%s\n%v", c[i].Name,
						c[i], c[i].Requirements, c[i].Offerings, read[i], read[i].Requirements, read[i].Offerings)
				}
			}
			var second bytes.Buffer
			if err := WriteJSON(&second, read); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Error("writing the catalog read back gave other bytes")
			}
		})
	}
}

// wantFake4 is the JSON of Fake(5)[4], fake-it-4.
const wantFake4 = `[
  {
    "name": "fake-it-4",
    "labels": {
      "integer": "5",
      "kubernetes.io/arch": "amd64",
      "kubernetes.io/os": "linux",
      "node.kubernetes.io/instance-type": "fake-it-4",
      "size": "large",
      "special": "optional"
    },
    "capacity": {
      "cpu": "5",
      "memory": "10Gi",
      "pods": "50"
    },
    "overhead": {
      "kubeReserved": {
        "cpu": "100m",
        "memory": "10Mi"
      },
      "systemReserved": {},
      "evictionThreshold": {}
    },
    "allocatable": {
      "cpu": "4900m",
      "memory": "10230Mi",
      "pods": "50"
    },
    "offerings": [
      {
        "zone": "test-zone-1",
        "capacityType": "on-demand",
        "price": 1.573741824,
        "available": true
      },
      {
        "zone": "test-zone-1",
        "capacityType": "spot",
        "price": 1.573741824,
        "available": true
      },
      {
        "zone": "test-zone-2",
        "capacityType": "on-demand",
        "price": 1.573741824,
        "available": true
      },
      {
        "zone": "test-zone-2",
        "capacityType": "spot",
        "price": 1.573741824,
        "available": true
      },
      {
        "zone": "test-zone-3",
        "capacityType": "on-demand",
        "price": 1.573741824,
        "available": true
      }
    ]
  }
]
`

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Fake(5)[4:]); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != wantFake4 {
		t.Errorf("WriteJSON(Fake(5)[4:]):\n%s\nwant\n%s", got, wantFake4)
	}
	var small bytes.Buffer
	if err := WriteJSON(&small, Fake(1)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(small.String(), `"absentLabels": [
      "special"
    ],`) {
		t.Errorf("a small fake type does not list special as absent:\n%s", small.String())
	}
}

// minimal is a hand-written catalog entry; %s is replaced in the error cases.
const minimal = `[{"name": "m5.large", "labels": {"kubernetes.io/arch": "amd64"},
  "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"},
  "overhead": {"kubeReserved": {"cpu": "70m"}},
  "offerings": [{"zone": "a", "capacityType": "spot", "price": 0.03, "available": true}]}]`

func TestReadJSONHandWritten(t *testing.T) {
	c, err := ReadJSON(strings.NewReader(minimal), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	it := mustGet(t, c, "m5.large")
	if got := it.Allocatable().String(); got != `{"cpu":"1930m","memory":"8Gi","pods":"29"}` {
		t.Errorf("allocatable %s", got)
	}
	if got := it.Labels()[apis.LabelTopologyZone]; got != "a" {
		t.Errorf("zone label %q", got)
	}
}

func TestReadJSONErrors(t *testing.T) {
	entry := func(replace ...string) string {
		return strings.NewReplacer(replace...).Replace(minimal)
	}
	for _, tc := range []struct {
		name, input, want string
	}{
		{"empty", ``, `catalog.json: want a JSON array of instance types, got nothing`},
		{"object", `{}`, `catalog.json: want a JSON array of instance types, got an object`},
		{"null", `null`, `got null`},
		{"no types", `[]`, `catalog.json: no instance types`},
		{"syntax", "[\n{\"name\": }]", `catalog.json:2: not JSON`},
		{"element not an object", `[1]`, `catalog.json: instanceTypes[0]: want an object, got a number`},
		{"no name", `[{}]`, `instanceTypes[0]: name: missing`},
		{"name not a string", `[{"name": 5}]`, `instanceTypes[0]: name: want a string, got a number`},
		{"bad quantity", entry(`"cpu": "2"`, `"cpu": "lots"`),
			`catalog.json: instanceTypes[0] (m5.large): capacity.cpu: "lots" is not a quantity`},
		{"negative quantity", entry(`"pods": "29"`, `"pods": "-1"`), `capacity.pods: "-1" is negative`},
		{"huge quantity", entry(`"memory": "8Gi"`, `"memory": "1e30"`), `capacity.memory: "1e30" is too large`},
		{"huge exponent", entry(`"memory": "8Gi"`, `"memory": "1e-99999999"`), `capacity.memory: "1e-99999999" is not a quantity with an exponent from -30 to 30`},
		{"unknown field", entry(`"labels"`, `"lables"`), `instanceTypes[0] (m5.large): lables: unknown field (want one of name, labels,`},
		{"unknown overhead field", entry(`"kubeReserved"`, `"kubeReserve"`), `overhead.kubeReserve: unknown field`},
		{"unknown offering field", entry(`"price"`, `"cost"`), `offerings[0].cost: unknown field`},
		{"missing offering field", entry(`, "available": true`, ``), `offerings[0].available: missing`},
		{"repeated field", entry(`"name": "m5.large",`, `"name": "m5.large", "name": "m5.xlarge",`), `name: repeated`},
		{"repeated label", entry(`{"kubernetes.io/arch": "amd64"}`, `{"kubernetes.io/arch": "amd64", "kubernetes.io/arch": "arm64"}`),
			`labels.kubernetes.io/arch: repeated`},
		{"label not a string", entry(`"amd64"`, `true`), `labels.kubernetes.io/arch: want a string, got a boolean`},
		{"zone as a label", entry(`"kubernetes.io/arch"`, `"topology.kubernetes.io/zone"`), `labels: topology.kubernetes.io/zone comes from the offerings`},
		{"bad capacity type", entry(`"spot"`, `"cheap"`), `offerings[0]: capacityType: "cheap" is not one of`},
		{"price not a number", entry(`0.03`, `"cheap"`), `offerings[0].price: want a number, got a string`},
		{"offerings not an array", entry(`[{"zone"`, `{"x": [{"zone"`, `}]}]`, `}]}}]`), `offerings: want an array, got an object`},
		{"allocatable differs", entry(`"overhead"`, `"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "29"}, "overhead"`),
			`allocatable: not capacity less overhead: cpu is 2, want 1930m`},
		{"duplicate name", `[` + minimal[1:len(minimal)-1] + `,` + minimal[1:], `instanceTypes[1] (m5.large): name: also the name of instanceTypes[0]`},
		{"trailing data", minimal + `]`, `not JSON`},
		{"label choice also a label", entry(`"labels"`, `"labelChoices": {"kubernetes.io/arch": ["amd64", "arm64"]}, "labels"`),
			`labelChoices: kubernetes.io/arch is also a label`},
		{"label choice repeated", entry(`"labels"`, `"labelChoices": {"karpenter.k8s.aws/instance-tenancy": ["default", "default"]}, "labels"`),
			`labelChoices: karpenter.k8s.aws/instance-tenancy: "default" is listed twice`},
		{"label choice empty", entry(`"labels"`, `"labelChoices": {"karpenter.k8s.aws/instance-tenancy": []}, "labels"`),
			`labelChoices: karpenter.k8s.aws/instance-tenancy: no values`},
		{"reservation type on spot", entry(`"available": true`, `"available": true, "reservationType": "default"`),
			`offerings[0]: reservationType: "default" on a spot offering`},
		{"bad reservation type", entry(`"capacityType": "spot"`, `"capacityType": "reserved", "reservationID": "cr-1", "reservationType": "block"`),
			`offerings[0]: reservationType: "block" is not one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.input), "catalog.json")
			if !errors.Is(err, ErrInvalidCatalog) {
				t.Fatalf("ReadJSON: %v, want ErrInvalidCatalog", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJSON error\n%s\nwant it to contain\n%s", err, tc.want)
			}
		})
	}
}

// FuzzReadJSON: ReadJSON never panics, and whatever it accepts it writes
// and reads back unchanged.
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(minimal))
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Fake(6)[4:]); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`[{"name": "x", "offerings": [{"zone": "a", "capacityType": "reserved", "price": 0, "available": true, "reservationID": "cr", "reservationCapacity": 1}]}]`))
	f.Add([]byte(`[{"name": "x", "absentLabels": ["a"], "overhead": {"systemReserved": {"pid": "1k"}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, c); err != nil {
			t.Fatalf("WriteJSON of an accepted catalog: %v", err)
		}
		again, err := ReadJSON(bytes.NewReader(out.Bytes()), "again.json")
		if err != nil {
			t.Fatalf("ReadJSON of WriteJSON output: %v\n%s", err, out.String())
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("round trip changed the catalog:\n%s", out.String())
		}
	})
}
