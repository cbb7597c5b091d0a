package scheduling

import (
	"reflect"
	"testing"

	"github.com/karpsim/karpsim/requirements"
)

// TestOptionsEqualCoversEveryField sets each field of Options in turn and
// checks Equal tells it from the zero value, so that a field added later
// and forgotten in Equal fails here.
func TestOptionsEqualCoversEveryField(t *testing.T) {
	if !(Options{}).Equal(Options{}) {
		t.Fatal("zero options differ from themselves")
	}
	typ := reflect.TypeOf(Options{})
	for i := range typ.NumField() {
		var o Options
		f := reflect.ValueOf(&o).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int:
			f.SetInt(1)
		case reflect.Float64:
			f.SetFloat(1)
		case reflect.Slice:
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), reflect.Zero(f.Type().Elem())))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
			f.SetMapIndex(reflect.Zero(f.Type().Key()), reflect.Zero(f.Type().Elem()))
		case reflect.Interface:
			if !reflect.TypeOf(&noDevices{}).Implements(f.Type()) {
				t.Fatalf("field %s: interface %s has no value in this test", typ.Field(i).Name, f.Type())
			}
			f.Set(reflect.ValueOf(&noDevices{}))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		}
		if o.Equal(Options{}) || (Options{}).Equal(o) {
			t.Errorf("Equal does not tell %s apart", typ.Field(i).Name)
		}
		if !o.Equal(o) {
			t.Errorf("options with %s set differ from themselves", typ.Field(i).Name)
		}
	}
}

// noDevices is a DeviceAllocator with nothing to allocate.
type noDevices struct{}

func (*noDevices) Claims(string) bool { return false }

func (*noDevices) Node(string, string, map[string]string) any { return nil }

func (*noDevices) Allocate(state any, _, _, _ string, _ DeviceHoldings, _ requirements.Requirements) (any, requirements.Requirements, bool) {
	return state, requirements.Requirements{}, true
}
