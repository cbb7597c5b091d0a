package apis

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The DeepCopy tests fill every exported field of an object (every pointer
// set, every slice and map with two entries), copy it, check the copy is
// equal, then change every value reachable in the copy and check the
// original did not change. A field DeepCopy forgets makes the first check
// fail; memory it shares makes the second fail.

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	timeType     = reflect.TypeOf(metav1.Time{})
)

// fill sets v (addressable) to a deterministic non-zero value; seed varies
// the values so that map keys differ.
func fill(v reflect.Value, seed int) {
	switch {
	case v.Type() == quantityType:
		v.Set(reflect.ValueOf(resource.MustParse(fmt.Sprintf("%dGi", seed+1))))
		return
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(time.Date(2024, 1, seed+1, 0, 0, 0, 0, time.UTC))))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed+i)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(`{"raw":true}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < 2; i++ {
			fill(v.Index(i), seed+i)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := 0; i < 2; i++ {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, seed+i)
			fill(e, seed+i)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	}
}

// mutate changes every value reachable from v (addressable).
func mutate(v reflect.Value) {
	switch {
	case v.Type() == quantityType:
		q := v.Interface().(resource.Quantity)
		q.Add(resource.MustParse("1"))
		v.Set(reflect.ValueOf(q))
		return
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(v.Interface().(metav1.Time).Add(time.Hour))))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	}
}

func filled[T any]() *T {
	obj := new(T)
	fill(reflect.ValueOf(obj).Elem(), 0)
	return obj
}

func checkDeepCopy[T any](t *testing.T, deepCopy func(*T) *T) {
	t.Helper()
	original := filled[T]()
	copied := deepCopy(original)
	require.Equal(t, original, copied, "the copy differs from the original: a field is not copied")
	mutate(reflect.ValueOf(copied).Elem())
	require.NotEqual(t, filled[T](), copied, "mutate changed nothing")
	require.Equal(t, filled[T](), original, "changing the copy changed the original: memory is shared")
	require.Nil(t, deepCopy(nil))
}

func TestNodePoolDeepCopy(t *testing.T) {
	checkDeepCopy(t, (*NodePool).DeepCopy)
}

func TestNodeClaimDeepCopy(t *testing.T) {
	checkDeepCopy(t, (*NodeClaim).DeepCopy)
}

func TestEC2NodeClassDeepCopy(t *testing.T) {
	checkDeepCopy(t, (*EC2NodeClass).DeepCopy)
}

func TestDeepCopyKeepsNeverAndEmptySlices(t *testing.T) {
	np := &NodePool{}
	np.Spec.Template.Spec.ExpireAfter = NeverDuration()
	np.Spec.Disruption.Budgets = []Budget{}
	np.Spec.Template.Spec.Requirements = []NodeSelectorRequirementWithMinValues{}
	c := np.DeepCopy()
	require.Equal(t, np, c)
	require.NotNil(t, c.Spec.Disruption.Budgets, "an empty budget list means no budget and must stay empty, not nil")

	nc := &EC2NodeClass{}
	nc.Spec.AMISelectorTerms = []AMISelectorTerm{}
	require.Equal(t, nc, nc.DeepCopy())
}
