package drift

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func TestExpiry(t *testing.T) {
	created := t0.Add(-24 * time.Hour)
	claim := func(expireAfter apis.NillableDuration, created time.Time) *apis.NodeClaim {
		c := &apis.NodeClaim{}
		if !created.IsZero() {
			c.CreationTimestamp = metav1.NewTime(created)
		}
		c.Spec.ExpireAfter = expireAfter
		return c
	}
	day := apis.NewNillableDuration(24 * time.Hour)
	cases := []struct {
		name    string
		claim   *apis.NodeClaim
		now     time.Time
		expired bool
		at      time.Time
	}{
		{"a second before", claim(day, created), t0.Add(-time.Second), false, t0},
		{"exactly at the deadline", claim(day, created), t0, true, t0},
		{"after", claim(day, created), t0.Add(time.Hour), true, t0},
		{"left out: 720h default", claim(apis.NillableDuration{}, created), t0, false, created.Add(720 * time.Hour)},
		{"Never", claim(apis.NeverDuration(), created), t0.Add(10000 * time.Hour), false, time.Time{}},
		{"no creationTimestamp", claim(day, time.Time{}), t0, false, time.Time{}},
		{"nil claim", nil, t0, false, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expired, at := Expiry(tc.claim, tc.now)
			assert.Equal(t, tc.expired, expired)
			assert.True(t, tc.at.Equal(at), "at = %s, want %s", at, tc.at)
		})
	}
}

func TestTerminationDeadline(t *testing.T) {
	c := &apis.NodeClaim{}
	_, ok := TerminationDeadline(c, t0)
	assert.False(t, ok, "no terminationGracePeriod: no deadline")
	_, ok = TerminationDeadline(nil, t0)
	assert.False(t, ok)

	c.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 48 * time.Hour}
	deadline, ok := TerminationDeadline(c, t0.Add(1500*time.Millisecond))
	assert.True(t, ok)
	assert.Equal(t, t0.Add(48*time.Hour+time.Second), deadline, "kept to the second, as the RFC 3339 annotation does")
}
