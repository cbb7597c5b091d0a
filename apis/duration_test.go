package apis

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestNillableDurationJSON(t *testing.T) {
	cases := []struct {
		in      string
		want    *time.Duration
		never   bool
		marshal string
	}{
		{in: `"720h"`, want: ptr(720 * time.Hour), marshal: `"720h"`},
		{in: `"30s"`, want: ptr(30 * time.Second), marshal: `"30s"`},
		{in: `"1h30m"`, want: ptr(90 * time.Minute), marshal: `"1h30m"`},
		{in: `"90m"`, want: ptr(90 * time.Minute), marshal: `"1h30m"`},
		{in: `"0s"`, want: ptr(time.Duration(0)), marshal: `"0s"`},
		{in: `"Never"`, never: true, marshal: `"Never"`},
		{in: `null`, marshal: `null`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var d NillableDuration
			require.NoError(t, json.Unmarshal([]byte(c.in), &d))
			assert.Equal(t, c.want, d.Duration)
			assert.Equal(t, c.never || c.want != nil, d.IsSet())
			assert.Equal(t, c.want == nil, d.IsNever())
			out, err := json.Marshal(d)
			require.NoError(t, err)
			assert.Equal(t, c.marshal, string(out))
		})
	}
}

func TestNillableDurationRejects(t *testing.T) {
	for in, want := range map[string]string{
		`"forever"`: `"forever" is neither a duration nor "Never"`,
		`"never"`:   `"never" is neither a duration nor "Never"`,
		`720`:       `a duration must be a string such as "30s", "720h" or "Never", not 720`,
	} {
		var d NillableDuration
		assert.EqualError(t, json.Unmarshal([]byte(in), &d), want, in)
	}
}

func TestNillableDurationInStructs(t *testing.T) {
	type holder struct {
		D NillableDuration `json:"d,omitzero"`
	}
	var h holder
	require.NoError(t, yaml.Unmarshal([]byte("{}"), &h))
	assert.False(t, h.D.IsSet(), "a left-out field is not set")
	out, err := json.Marshal(h)
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(out), "an unset duration is left out")

	require.NoError(t, yaml.Unmarshal([]byte("d: Never"), &h))
	assert.True(t, h.D.IsSet())
	assert.Equal(t, NeverDuration(), h.D)
	out, err = json.Marshal(h)
	require.NoError(t, err)
	assert.Equal(t, `{"d":"Never"}`, string(out))
}

func TestNillableDurationDeepCopy(t *testing.T) {
	d := NewNillableDuration(time.Minute)
	c := d.DeepCopy()
	*c.Duration = time.Hour
	assert.Equal(t, time.Minute, *d.Duration)
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                          "0s",
		720 * time.Hour:            "720h",
		time.Hour + 30*time.Minute: "1h30m",
		time.Hour + 5*time.Second:  "1h5s",
		45 * time.Second:           "45s",
		1500 * time.Millisecond:    "1.5s",
		-time.Minute:               "-1m0s",
		26*time.Hour + 3*time.Minute + 4*time.Second: "26h3m4s",
	} {
		assert.Equal(t, want, FormatDuration(d))
	}
}

func ptr[T any](v T) *T { return &v }

// FuzzNillableDuration reads arbitrary text as a NodePool's duration
// fields read it (consolidateAfter, expireAfter, terminationGracePeriod):
// "Never" or a Go duration. What it accepts prints and marshals back to
// the same value; JSON decoding agrees with ParseNillableDuration; and
// FormatDuration of any duration reads back as that duration.
func FuzzNillableDuration(f *testing.F) {
	for _, s := range []string{"Never", "720h", "1h30m", "30s", "0s", "-5m", "1.5h", "9223372036854775807ns", "2562047h47m16.854775807s",
		"-2562047h47m16.854775808s", "never", "", "1d", "+3s", ".5s", "1h1h", "0"} {
		f.Add(s, int64(len(s))*int64(time.Hour))
	}
	f.Add("1µs", int64(-1<<63))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		d, err := ParseNillableDuration(s)
		quoted, _ := json.Marshal(s)
		var fromJSON NillableDuration
		jsonErr := json.Unmarshal(quoted, &fromJSON)
		if (err == nil) != (jsonErr == nil) {
			t.Fatalf("%q: ParseNillableDuration says %v, JSON %v", s, err, jsonErr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error does not quote the value: %v", err)
			}
		} else {
			if !d.IsSet() || !reflect.DeepEqual(d, fromJSON) {
				t.Fatalf("%q: %#v, from JSON %#v", s, d, fromJSON)
			}
			again, err := ParseNillableDuration(d.String())
			if err != nil || !reflect.DeepEqual(again, d) {
				t.Fatalf("%q prints as %q, which reads as %#v (%v)", s, d.String(), again, err)
			}
			out, err := json.Marshal(d)
			var back NillableDuration
			if err != nil || json.Unmarshal(out, &back) != nil || !reflect.DeepEqual(back, d) {
				t.Fatalf("%q marshals as %s, which reads as %#v", s, out, back)
			}
		}
		text := FormatDuration(time.Duration(n))
		if back, err := time.ParseDuration(text); err != nil || back != time.Duration(n) {
			t.Fatalf("%d formats as %q, which reads as %v (%v)", n, text, back, err)
		}
	})
}
