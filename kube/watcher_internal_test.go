package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/client-go/tools/cache"

	"github.com/karpsim/karpsim/cloud"
)

// An object deleted while the informer was not watching comes back from
// the relist as a tombstone: it is still reported, by name.
func TestTombstoneIsReportedDeleted(t *testing.T) {
	w := NewWatcher(Clients{}, WatcherConfig{})
	var got []cloud.Change
	w.Watch(t.Context(), func(c cloud.Change) { got = append(got, c) })
	w.handler("Pod").OnDelete(cache.DeletedFinalStateUnknown{Key: "shop/web-0"})
	w.handler("Node").OnDelete(cache.DeletedFinalStateUnknown{Key: "node-a"})
	assert.Equal(t, []cloud.Change{
		{Type: cloud.Deleted, Kind: "Pod", Namespace: "shop", Name: "web-0"},
		{Type: cloud.Deleted, Kind: "Node", Name: "node-a"},
	}, got)
}
