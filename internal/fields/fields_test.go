package fields

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNearest(t *testing.T) {
	known := []string{"requirements", "nodeClassRef", "taints", "startupTaints", "expireAfter"}
	for _, c := range []struct{ given, want string }{
		{"requirments", "requirements"},
		{"Requirements", "requirements"},
		{"taint", "taints"},
		{"tiants", "taints"},
		{"nodeclassref", "nodeClassRef"},
		{"expireAftr", "expireAfter"},
		{"labels", ""},
		{"req", ""},
		{"taints", ""}, // a known name is not a misspelling
	} {
		assert.Equal(t, c.want, Nearest(c.given, known), c.given)
	}
	assert.Equal(t, " (did you mean scale?)", Hint("scael", []string{"at", "scale", "traffic"}))
	assert.Equal(t, "", Hint("zzz", []string{"at", "scale"}))
	// Ties go to the first name in lexical order.
	assert.Equal(t, "ab", Nearest("aa", []string{"ba", "ab"}))
}

type inner struct {
	Count int             `json:"count"`
	Wait  metav1.Duration `json:"wait,omitzero"`
}

type Embedded struct {
	Shared string `json:"shared"`
}

type outer struct {
	Embedded
	Name   string           `json:"name"`
	Items  []inner          `json:"items"`
	ByName map[string]inner `json:"byName"`
	Free   map[string]any   `json:"free"`
	hidden string           // unexported: not a field of the document
	Skip   string           `json:"-"`
}

func TestNamesChildAndSteps(t *testing.T) {
	typ := reflect.TypeFor[outer]()
	assert.Equal(t, []string{"byName", "free", "items", "name", "shared"}, Names(typ))
	assert.Nil(t, Names(reflect.TypeFor[int]()))
	assert.Empty(t, outer{hidden: "x"}.Name)
	assert.Equal(t, reflect.TypeFor[int](), At(typ, []string{"byName", "web", "count"}))
	assert.Equal(t, reflect.TypeFor[string](), At(typ, []string{"shared"}))
	assert.Nil(t, At(typ, []string{"items", "0", "nope"}))
	assert.Equal(t, []string{"spec", "containers", "0", "resources", "requests", "cpu"}, Steps("spec.containers[0].resources.requests[cpu]"))
	assert.Equal(t, []string{"a", "0", "1", "b"}, Steps("a[0][1].b"))
}

func TestCheck(t *testing.T) {
	doc := `name: x
shard: 1
items:
- count: 1
- cuont: 2
  wait: soon
- count: ten
byName:
  web: {count: 1.5}
free: {anything: [1, 2]}
name2: &a {x: 1}
NAME: y
`
	var node yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(doc), &node))
	got := Check(&node, reflect.TypeFor[outer]())
	assert.Equal(t, []Problem{
		{Line: 2, Path: "", Message: `unknown field "shard" (did you mean shared?)`},
		{Line: 5, Path: "items[1]", Message: `unknown field "cuont" (did you mean count?)`},
		{Line: 6, Path: "items[1].wait", Message: `"soon" is not a duration (use e.g. 30s, 5m or 8h)`},
		{Line: 7, Path: "items[2].count", Message: `expected an integer, got the string "ten"`},
		{Line: 9, Path: "byName[web].count", Message: `expected an integer, got the number 1.5`},
		{Line: 11, Path: "", Message: `unknown field "name2" (did you mean name?)`},
	}, got)
	// NAME is name to encoding/json, which matches any letter case.
	assert.Equal(t, 7, Line(&node, "items[2].count"))
	assert.Equal(t, 5, Line(&node, "items[1]"))
	assert.Equal(t, 0, Line(&node, "items[3]"))
	assert.Equal(t, 0, Line(&node, "missing"))
}

func TestCheckWrongShapes(t *testing.T) {
	var node yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("items: {count: 1}\nbyName: [1]\n"), &node))
	assert.Equal(t, []Problem{
		{Line: 1, Path: "items", Message: "expected a list, got an object"},
		{Line: 2, Path: "byName", Message: "expected an object, got a list"},
	}, Check(&node, reflect.TypeFor[outer]()))
	require.NoError(t, yaml.Unmarshal([]byte("[1, 2]"), &node))
	assert.Equal(t, []Problem{{Line: 1, Message: "expected an object, got a list"}}, Check(&node, reflect.TypeFor[outer]()))
}
