package apis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Never is the string a NillableDuration takes to mean "no duration": the
// feature it configures is disabled.
const Never = "Never"

// NillableDuration is a duration that may also be "Never". In JSON it is a
// string such as "720h", "1h30m", "30s" or "Never".
//
// Duration is nil for "Never" and for a field the manifest left out. The
// two differ only before SetDefaults runs: a left-out field gets its CRD
// default, an explicit "Never" stays nil. Code that runs after defaulting
// treats a nil Duration as "never" (see IsNever).
type NillableDuration struct {
	Duration *time.Duration

	// Never is true when the value was written as "Never" (or built with
	// NeverDuration), so that defaulting leaves it alone. It is ignored when
	// Duration is set. The field is exported so that reflection-based
	// equality and hashing (equality.Semantic, hashstructure) see it.
	Never bool
}

// NewNillableDuration returns a NillableDuration holding d.
func NewNillableDuration(d time.Duration) NillableDuration {
	return NillableDuration{Duration: &d}
}

// NeverDuration returns the explicit "Never" value.
func NeverDuration() NillableDuration {
	return NillableDuration{Never: true}
}

// ParseNillableDuration parses "Never" or a Go duration string.
func ParseNillableDuration(s string) (NillableDuration, error) {
	if s == Never {
		return NeverDuration(), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return NillableDuration{}, fmt.Errorf("%q is neither a duration nor %q", s, Never)
	}
	return NewNillableDuration(d), nil
}

// IsSet reports whether the value holds a duration or an explicit "Never",
// rather than being left out.
func (d NillableDuration) IsSet() bool { return d.Duration != nil || d.Never }

// IsNever reports whether there is no duration, explicit or not.
func (d NillableDuration) IsNever() bool { return d.Duration == nil }

// String returns the value the way it is written in a manifest: a compact
// duration, "Never", or "" when the field was left out.
func (d NillableDuration) String() string {
	switch {
	case d.Duration != nil:
		return FormatDuration(*d.Duration)
	case d.Never:
		return Never
	default:
		return ""
	}
}

// DeepCopy returns a copy that shares no memory with d.
func (d NillableDuration) DeepCopy() NillableDuration {
	if d.Duration != nil {
		v := *d.Duration
		d.Duration = &v
	}
	return d
}

// UnmarshalJSON accepts a duration string, "Never", or null (left out).
func (d *NillableDuration) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"30s\", \"720h\" or %q, not %s", Never, data)
	}
	parsed, err := ParseNillableDuration(s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// MarshalJSON writes the compact duration string, "Never", or null when the
// field was left out, so that decoding the output gives the same value.
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	if !d.IsSet() {
		return []byte("null"), nil
	}
	return json.Marshal(d.String())
}

// FormatDuration writes d in the compact form manifests use: "720h",
// "1h30m", "30s", "0s". Durations with a fraction of a second, which no
// Karpenter field accepts, fall back to time.Duration's own format.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	if d%time.Second != 0 || d < 0 {
		return d.String()
	}
	var out []byte
	hours, rest := d/time.Hour, d%time.Hour
	minutes, seconds := rest/time.Minute, (rest%time.Minute)/time.Second
	if hours > 0 {
		out = strconv.AppendInt(out, int64(hours), 10)
		out = append(out, 'h')
	}
	if minutes > 0 {
		out = strconv.AppendInt(out, int64(minutes), 10)
		out = append(out, 'm')
	}
	if seconds > 0 {
		out = strconv.AppendInt(out, int64(seconds), 10)
		out = append(out, 's')
	}
	return string(out)
}
